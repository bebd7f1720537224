// The error codes. The first line of each constant's comment, "CodeX is NNNNN: meaning.", is the
// code's description: go generate writes error_descriptions.go from it.

//go:generate go test -run ^TestCodeDescriptionsAreGeneratedFromTheComments$ . -args -update

package compute

import "errors"

// The error codes of the contract, plus 01204. Each is an [ErrorCode], usable with errors.Is:
//
//	if errors.Is(err, compute.CodeTerminationProtected) { ... }
const (
	// CodeInvalidRoute is 02001: invalid route.
	CodeInvalidRoute ErrorCode = "02001"
	// CodeMalformedRequest is 02002: malformed request.
	CodeMalformedRequest ErrorCode = "02002"
	// CodeMissingParameters is 02003: missing parameters.
	CodeMissingParameters ErrorCode = "02003"
	// CodeBadRequest is 02004: bad request.
	CodeBadRequest ErrorCode = "02004"
	// CodeInvalidSSHKey is 02005: invalid ssh key.
	CodeInvalidSSHKey ErrorCode = "02005"
	// CodeInvalidImage is 02006: invalid image.
	CodeInvalidImage ErrorCode = "02006"
	// CodeInvalidSecurityGroup is 02007: invalid security group.
	CodeInvalidSecurityGroup ErrorCode = "02007"
	// CodeInstanceNotFound is 02008: instance not found.
	CodeInstanceNotFound ErrorCode = "02008"
	// CodeNotAllowed is 02009: not allowed.
	CodeNotAllowed ErrorCode = "02009"
	// CodeMaxQuotaReached is 02010: max quota reached.
	CodeMaxQuotaReached ErrorCode = "02010"
	// CodeSnapshotAlreadyInProgress is 02011: snapshot already being created.
	CodeSnapshotAlreadyInProgress ErrorCode = "02011"
	// CodeSnapshotQuotaReached is 02012: max instance snapshots quota reached.
	CodeSnapshotQuotaReached ErrorCode = "02012"
	// CodeDeleteRequiresActive is 02013: only active instances can be deleted.
	CodeDeleteRequiresActive ErrorCode = "02013"
	// CodeAuthTokenNotProvided is 02014: auth token not provided.
	CodeAuthTokenNotProvided ErrorCode = "02014"
	// CodeSnapshotNotFound is 02015: snapshot not found.
	CodeSnapshotNotFound ErrorCode = "02015"
	// CodeSnapshotInUse is 02016: snapshot cannot be deleted while in use.
	CodeSnapshotInUse ErrorCode = "02016"
	// CodeLegacyLargeDiskUnsupported is 02017: legacy large disk instance types not supported (earlier list only).
	CodeLegacyLargeDiskUnsupported ErrorCode = "02017"
	// CodeWeakPassword is 02018: weak password.
	CodeWeakPassword ErrorCode = "02018"
	// CodePaymentMethodRequired is 02019: payment method required.
	CodePaymentMethodRequired ErrorCode = "02019"
	// CodeInstanceConfigNotAllowed is 02020: instance config (type and/or region) not allowed.
	CodeInstanceConfigNotAllowed ErrorCode = "02020"
	// CodeVolumeNotFound is 02021: volume not found.
	CodeVolumeNotFound ErrorCode = "02021"
	// CodeAttachedVolumeNotDeletable is 02022: volumes attached to instances cannot be deleted.
	CodeAttachedVolumeNotDeletable ErrorCode = "02022"
	// CodeUpdateRequiresActive is 02023: only active instances can be updated.
	CodeUpdateRequiresActive ErrorCode = "02023"
	// CodeDefaultSecurityGroupImmutable is 02024: default security groups cannot be updated or deleted.
	CodeDefaultSecurityGroupImmutable ErrorCode = "02024"
	// CodeSecurityGroupNotFound is 02025: security group not found.
	CodeSecurityGroupNotFound ErrorCode = "02025"
	// CodeSecurityGroupLocked is 02026: security group is locked for update and delete.
	CodeSecurityGroupLocked ErrorCode = "02026"
	// CodeSecurityGroupUsedByInstances is 02027: security groups used by instances cannot be deleted.
	CodeSecurityGroupUsedByInstances ErrorCode = "02027"
	// CodeInvalidRules is 02028: at least one of the provided rules is invalid.
	CodeInvalidRules ErrorCode = "02028"
	// CodeInstanceAlreadyStarted is 02029: instance is already started.
	CodeInstanceAlreadyStarted ErrorCode = "02029"
	// CodeSecurityGroupAttachFailed is 02030: at least one provided security group cannot be attached.
	CodeSecurityGroupAttachFailed ErrorCode = "02030"
	// CodeSecurityGroupDetachFailed is 02031: at least one provided security group cannot be detached.
	CodeSecurityGroupDetachFailed ErrorCode = "02031"
	// CodeVolumeAttachFailed is 02032: at least one provided volume cannot be attached.
	CodeVolumeAttachFailed ErrorCode = "02032"
	// CodeVolumeDetachFailed is 02033: at least one provided volume cannot be detached.
	CodeVolumeDetachFailed ErrorCode = "02033"
	// CodeInstanceNotUpdatable is 02034: instance cannot be updated.
	CodeInstanceNotUpdatable ErrorCode = "02034"
	// CodeImageIncompatible is 02035: the selected image cannot run on this instance.
	CodeImageIncompatible ErrorCode = "02035"
	// CodeOutOfStock is 02036: requested instance configuration temporarily out of stock.
	CodeOutOfStock ErrorCode = "02036"
	// CodeSnapshotRequiresActive is 02037: only active instances can be snapshotted.
	CodeSnapshotRequiresActive ErrorCode = "02037"
	// CodeTerminationProtected is 02038: the instance is termination protected.
	CodeTerminationProtected ErrorCode = "02038"
	// CodeInstanceCannotStart is 02039: the instance cannot be started.
	CodeInstanceCannotStart ErrorCode = "02039"
	// CodeAccountSuspended is 02040: account is suspended.
	CodeAccountSuspended ErrorCode = "02040"
	// CodeAccountBanned is 02041: account is banned.
	CodeAccountBanned ErrorCode = "02041"
	// CodeAccountDisabled is 02042: account is disabled.
	CodeAccountDisabled ErrorCode = "02042"
	// CodePermissionDenied is 02043: permission denied.
	CodePermissionDenied ErrorCode = "02043"
	// CodePublicAPIDisabled is 02044: the public API is currently disabled.
	CodePublicAPIDisabled ErrorCode = "02044"
	// CodeOnDemandBillingNotAllowed is 02045: on-demand billing not allowed with this instance type.
	CodeOnDemandBillingNotAllowed ErrorCode = "02045"
	// CodeVolumeLocked is 02046: volume is locked, cannot be attached or detached.
	CodeVolumeLocked ErrorCode = "02046"
	// CodeSSHKeyNotFound is 02047: SSH key not found.
	CodeSSHKeyNotFound ErrorCode = "02047"
	// CodeSSHKeyMalformed is 02048: SSH key is improperly formatted (earlier wording: not valid).
	CodeSSHKeyMalformed ErrorCode = "02048"
	// CodeStaticPublicIPQuotaReached is 02049: max static public ip quota reached.
	CodeStaticPublicIPQuotaReached ErrorCode = "02049"
	// CodeAccountNotVerified is 02050: account not verified.
	CodeAccountNotVerified ErrorCode = "02050"
	// CodeRegionsMismatch is 02051: regions mismatch, with a dynamic hint in the message.
	CodeRegionsMismatch ErrorCode = "02051"
	// CodeInvalidPlacementOption is 02052: invalid placement option.
	CodeInvalidPlacementOption ErrorCode = "02052"
	// CodePrivateKeyProvided is 02053: provided private key.
	// SSHKeys.Create gets it for a private key, which the SDK refuses before sending.
	CodePrivateKeyProvided ErrorCode = "02053"
	// CodeVolumeTypeUnavailable is 02054: volume type unavailable.
	// VolumesService.Create gets it for a type the region does not offer.
	CodeVolumeTypeUnavailable ErrorCode = "02054"
	// CodeFloatingIPNotFound is 02055: floating IP not found.
	CodeFloatingIPNotFound ErrorCode = "02055"
	// CodeVolumeAlreadyAttached is 02056: volume is already attached to the instance.
	CodeVolumeAlreadyAttached ErrorCode = "02056"
	// CodeDriverIncompatibleWithImage is 02057: selected driver incompatible with the selected image.
	CodeDriverIncompatibleWithImage ErrorCode = "02057"
	// CodeDriverIncompatibleWithInstance is 02058: selected driver incompatible with this instance.
	CodeDriverIncompatibleWithInstance ErrorCode = "02058"
	// CodeBillingTypeNotAllowed is 02059: selected billing type not allowed with this instance type.
	CodeBillingTypeNotAllowed ErrorCode = "02059"
	// CodeInvalidSubscription is 02060: invalid subscription.
	CodeInvalidSubscription ErrorCode = "02060"
	// CodePaymentFailed is 02061: payment failed.
	CodePaymentFailed ErrorCode = "02061"
	// CodeActionRequired is 02062: action required.
	CodeActionRequired ErrorCode = "02062"
	// CodeInsufficientDiskSize is 02063: insufficient disk size.
	CodeInsufficientDiskSize ErrorCode = "02063"
	// CodeFloatingIPInUse is 02064: floating IP in use.
	CodeFloatingIPInUse ErrorCode = "02064"
	// CodeSecurityGroupInUse is 02065: security group is in use.
	CodeSecurityGroupInUse ErrorCode = "02065"
	// CodeVolumeInUse is 02066: volume is in use.
	CodeVolumeInUse ErrorCode = "02066"
	// CodeReservationNotFound is 02067: reservation not found.
	// An instance create or update gets it for a reservation_id that does not exist.
	CodeReservationNotFound ErrorCode = "02067"
	// CodeFilesystemResizeInvalid is 02068: filesystem resize invalid.
	CodeFilesystemResizeInvalid ErrorCode = "02068"
	// CodeDeleteRequiresRunningOrStopped is 02069: only running or stopped instances can be deleted.
	CodeDeleteRequiresRunningOrStopped ErrorCode = "02069"
	// CodeMigrationPrerequisitesNotMet is 02070: migration prerequisites not met.
	CodeMigrationPrerequisitesNotMet ErrorCode = "02070"
	// CodeMigrationAlreadyInitiated is 02071: migration has already been initiated.
	CodeMigrationAlreadyInitiated ErrorCode = "02071"
	// CodeBareMetalClusterNotFound is 02072: bare metal cluster not found.
	CodeBareMetalClusterNotFound ErrorCode = "02072"
	// CodeBareMetalClusterPendingLimit is 02073: bare metal cluster pending limit reached.
	CodeBareMetalClusterPendingLimit ErrorCode = "02073"
	// CodeDeprecatedRegion is 02074: mutations to resources in a deprecated region are forbidden.
	CodeDeprecatedRegion ErrorCode = "02074"
	// CodeFloatingIPVersionUnavailable is 02075: floating IP version unavailable.
	CodeFloatingIPVersionUnavailable ErrorCode = "02075"
	// CodeAuthPermissionDenied is 01204: permission denied.
	// The service also returns it for authentication errors.
	CodeAuthPermissionDenied ErrorCode = "01204"
)

// CodeOf returns the error code of the [*APIError] in err's chain, or "" when there is none:
//
//	switch compute.CodeOf(err) {
//	case compute.CodeTerminationProtected:
//	case compute.CodeInstanceNotFound:
//	}
func CodeOf(err error) ErrorCode {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code
	}
	return ""
}
