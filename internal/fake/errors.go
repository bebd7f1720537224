package fake

import (
	"fmt"
	"net/http"
)

// The error codes the fake sends, from the API's table.
const (
	codeAuthPermissionDenied           = "01204"
	codeInvalidRoute                   = "02001"
	codeMalformedRequest               = "02002"
	codeMissingParameters              = "02003"
	codeBadRequest                     = "02004"
	codeInvalidSSHKey                  = "02005"
	codeInvalidImage                   = "02006"
	codeInstanceNotFound               = "02008"
	codeNotAllowed                     = "02009"
	codeMaxQuotaReached                = "02010"
	codeSnapshotQuotaReached           = "02012"
	codeDeleteRequiresActive           = "02013"
	codeTokenNotProvided               = "02014"
	codeSnapshotNotFound               = "02015"
	codeSnapshotInUse                  = "02016"
	codeWeakPassword                   = "02018"
	codeInstanceConfigNotAllowed       = "02020"
	codeVolumeNotFound                 = "02021"
	codeAttachedVolumeNotDeletable     = "02022"
	codeUpdateRequiresActive           = "02023"
	codeSecurityGroupNotFound          = "02025"
	codeSecurityGroupUsedByInstances   = "02027"
	codeInvalidRules                   = "02028"
	codeInstanceAlreadyStarted         = "02029"
	codeSecurityGroupDetachFailed      = "02031"
	codeVolumeAttachFailed             = "02032"
	codeVolumeDetachFailed             = "02033"
	codeImageIncompatible              = "02035"
	codeSnapshotRequiresActive         = "02037"
	codeTerminationProtected           = "02038"
	codeInstanceCannotStart            = "02039"
	codePermissionDenied               = "02043"
	codeVolumeLocked                   = "02046"
	codeSSHKeyNotFound                 = "02047"
	codeSSHKeyImproperlyFormatted      = "02048"
	codeStaticPublicIPQuotaReached     = "02049"
	codeRegionsMismatch                = "02051"
	codeInvalidPlacementOption         = "02052"
	codeProvidedPrivateKey             = "02053"
	codeVolumeTypeUnavailable          = "02054"
	codeFloatingIPNotFound             = "02055"
	codeVolumeAlreadyAttached          = "02056"
	codeInsufficientDiskSize           = "02063"
	codeFloatingIPInUse                = "02064"
	codeReservationNotFound            = "02067"
	codeFilesystemResizeInvalid        = "02068"
	codeDeleteRequiresRunningOrStopped = "02069"
	codeFloatingIPVersionUnavailable   = "02075"
)

// Error is a refusal: the status and the API's {code, message} body.
type Error struct {
	status     int
	code       string
	message    string
	retryAfter string
}

// Error is the refusal as text: status, code and message.
func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func fail(status int, code, format string, args ...any) *Error {
	return &Error{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// The status each kind of refusal gets. The API does not give the status per code; it lists 400,
// 401, 403, 404 and 429 among its statuses and no 409, so a refused state change is a 400.
func badRequest(code, format string, args ...any) *Error {
	return fail(http.StatusBadRequest, code, format, args...)
}

func notFound(code, format string, args ...any) *Error {
	return fail(http.StatusNotFound, code, format, args...)
}

// malformed is a body the fake cannot read: not JSON, an unknown key, a value of the wrong type.
func malformed(format string, args ...any) *Error {
	return badRequest(codeMalformedRequest, format, args...)
}

func missing(field string) *Error {
	return badRequest(codeMissingParameters, "%s is required", field)
}

// tooManyRequests is a 429. The API names no code for it; the fake sends 02009 ("not allowed"), a
// documented code, so that the body has the API's {code, message} shape.
func tooManyRequests(retryAfter string, format string, args ...any) *Error {
	e := fail(http.StatusTooManyRequests, codeNotAllowed, format, args...)
	e.retryAfter = retryAfter
	return e
}

// writeError writes the API's error body.
func writeError(w http.ResponseWriter, e *Error) {
	if e.retryAfter != "" {
		w.Header().Set("Retry-After", e.retryAfter)
	}
	body, _ := encode(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{e.code, e.message})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}
