package compute

import (
	"net/http"
	"slices"
	"strings"
)

// operation is one endpoint of the contract, declared once in the table below.
type operation struct {
	// name is the SDK method that sends it ("Instances.Get"), for errors, logs and traces.
	name   string
	method string
	// path is a template whose {name} segments are filled, in order, with IDs.
	path string
	// idempotent operations are retried after a 5xx or a network error; the others never are, once
	// they may have reached the service.
	idempotent bool
	// accept overrides the Accept header (application/json by default).
	accept string
	// maxBody overrides the bound of a success response's body (maxResponseBody by default).
	maxBody int64
	// notFound is the code of a 404 that says the resource does not exist (see gone).
	notFound ErrorCode
	// discard is set for an operation whose success body the SDK does not read (a delete, an action).
	discard bool
	// copies is set for an operation whose response is a new resource, never the one its path names.
	copies bool
	// unknownRoute is set for a raw request to a route outside the table: no 404 proves its
	// resource gone, as the SDK does not know the kind's not-found code.
	unknownRoute bool
}

// gone reports whether e, the response to a DELETE, says that the resource does not exist
// ([operation.missing]).
func (op operation) gone(e *APIError) bool {
	return op.method == http.MethodDelete && op.missing(e)
}

// missing reports whether e, the response to a request on the resource op acts on, says that the
// resource does not exist: a 404 with the kind's not-found code. A kind without one (filesystems)
// is missing on a 404 in the service's own error shape whose code says nothing else: five digits
// (the service's codes; one it added later counts, as the service says to read an unknown code by
// its status), and none of notGone. A proxy's or a gateway's page proves nothing, even in JSON
// ({"code":"NotFound"}): its code is not the service's.
func (op operation) missing(e *APIError) bool {
	if e.StatusCode != http.StatusNotFound || op.unknownRoute {
		return false
	}
	if op.notFound != "" {
		return e.Code == op.notFound
	}
	return serviceCode(e.Code) && !slices.Contains(notGone, e.Code)
}

// notGone are the codes whose 404 says something other than "this resource does not exist": an
// invalid route, the account or the credential, and another kind's not-found.
var notGone = []ErrorCode{
	CodeInvalidRoute,
	CodeAuthTokenNotProvided, CodeAccountSuspended, CodeAccountBanned, CodeAccountDisabled,
	CodePermissionDenied, CodeAuthPermissionDenied, CodePublicAPIDisabled, CodeAccountNotVerified,
	CodeInstanceNotFound, CodeSnapshotNotFound, CodeVolumeNotFound, CodeSecurityGroupNotFound,
	CodeSSHKeyNotFound, CodeFloatingIPNotFound, CodeReservationNotFound, CodeBareMetalClusterNotFound,
}

// serviceCode reports whether c has the form of the service's codes: five ASCII digits.
func serviceCode(c ErrorCode) bool {
	if len(c) != 5 {
		return false
	}
	for i := range len(c) {
		if c[i] < '0' || c[i] > '9' {
			return false
		}
	}
	return true
}

// call describes a call of op to host, for observers.
func (op operation) call(host string) Call {
	return Call{Operation: op.name, Method: op.method, Path: op.path, Host: host}
}

// maxResponseBody bounds the body of a success response, decompressed: a page of 100 instances is
// well under it.
const maxResponseBody = 1 << 20

// names reports whether a success response of op is the resource its path's last ID names.
func (op operation) names() bool {
	return strings.HasSuffix(op.path, "}") && op.method != http.MethodPost && op.method != http.MethodDelete
}

// bodyLimit is how many bytes of op's success response are read at most.
func (op operation) bodyLimit() int64 {
	if op.maxBody > 0 {
		return op.maxBody
	}
	return maxResponseBody
}

// operations is the operation table in the order declared, for tests to range over.
var operations []operation

func register(op operation) operation {
	operations = append(operations, op)
	return op
}

// The operation table. GET, PUT, DELETE and PATCH are idempotent (every PATCH of this API but the
// attach and detach sets absolute values); POST never is.
var (
	opCreateSecurityGroup = register(operation{name: "SecurityGroups.Create", method: "POST", path: "/compute/v1/security-groups"})
	opUpdateSecurityGroup = register(operation{name: "SecurityGroups.Update", method: "PUT", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true})
	opListSecurityGroups  = register(operation{name: "SecurityGroups.List", method: "GET", path: "/compute/v1/security-groups", idempotent: true})
	opGetSecurityGroup    = register(operation{name: "SecurityGroups.Get", method: "GET", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true})
	opDeleteSecurityGroup = register(operation{name: "SecurityGroups.Delete", method: "DELETE", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true, notFound: CodeSecurityGroupNotFound, discard: true})

	opCreateFloatingIP = register(operation{name: "FloatingIPs.Create", method: "POST", path: "/compute/v1/floating-ips"})
	opListFloatingIPs  = register(operation{name: "FloatingIPs.List", method: "GET", path: "/compute/v1/floating-ips", idempotent: true})
	opGetFloatingIP    = register(operation{name: "FloatingIPs.Get", method: "GET", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true})
	opUpdateFloatingIP = register(operation{name: "FloatingIPs.Update", method: "PATCH", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true})
	opDeleteFloatingIP = register(operation{name: "FloatingIPs.Delete", method: "DELETE", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true, notFound: CodeFloatingIPNotFound, discard: true})

	opCreateInstance        = register(operation{name: "Instances.Create", method: "POST", path: "/compute/v1/instances"})
	opListInstances         = register(operation{name: "Instances.List", method: "GET", path: "/compute/v1/instances", idempotent: true})
	opGetInstance           = register(operation{name: "Instances.Get", method: "GET", path: "/compute/v1/instances/{instance_id}", idempotent: true})
	opDeleteInstance        = register(operation{name: "Instances.Delete", method: "DELETE", path: "/compute/v1/instances/{instance_id}", idempotent: true, notFound: CodeInstanceNotFound, discard: true})
	opUpdateInstance        = register(operation{name: "Instances.Update", method: "PATCH", path: "/compute/v1/instances/{instance_id}", idempotent: true})
	opCreateSnapshot        = register(operation{name: "Snapshots.Create", method: "POST", path: "/compute/v1/instances/{instance_id}/snapshots"})
	opListSnapshots         = register(operation{name: "Snapshots.ListByInstance", method: "GET", path: "/compute/v1/instances/{instance_id}/snapshots", idempotent: true})
	opListInstanceActions   = register(operation{name: "Instances.Actions", method: "GET", path: "/compute/v1/instances/{instance_id}/actions", idempotent: true})
	opPerformInstanceAction = register(operation{name: "Instances.PerformAction", method: "POST", path: "/compute/v1/instances/{instance_id}/actions", discard: true})

	opListImages = register(operation{name: "Images.List", method: "GET", path: "/compute/v1/images", idempotent: true})

	opGetUserMetadata = register(operation{name: "Instances.UserMetadata", method: "GET", path: "/compute/v1/instances/{instance_id}/user-metadata", idempotent: true})
	// The attach and detach forms of the instance PATCH change the state relatively: a resent
	// attach could meet "already attached" (02056) after the first one worked.
	opAttachInstance = register(operation{name: "Instances.Attach", method: "PATCH", path: "/compute/v1/instances/{instance_id}"})

	opListSSHKeys  = register(operation{name: "SSHKeys.List", method: "GET", path: "/compute/v1/ssh-keys", idempotent: true})
	opCreateSSHKey = register(operation{name: "SSHKeys.Create", method: "POST", path: "/compute/v1/ssh-keys"})
	opGetSSHKey    = register(operation{name: "SSHKeys.Get", method: "GET", path: "/compute/v1/ssh-keys/{ssh_key_id}", idempotent: true})
	opUpdateSSHKey = register(operation{name: "SSHKeys.Update", method: "PATCH", path: "/compute/v1/ssh-keys/{ssh_key_id}", idempotent: true})
	opDeleteSSHKey = register(operation{name: "SSHKeys.Delete", method: "DELETE", path: "/compute/v1/ssh-keys/{ssh_key_id}", idempotent: true, notFound: CodeSSHKeyNotFound, discard: true})

	opListVolumes  = register(operation{name: "Volumes.List", method: "GET", path: "/compute/v1/volumes", idempotent: true})
	opCreateVolume = register(operation{name: "Volumes.Create", method: "POST", path: "/compute/v1/volumes"})
	opGetVolume    = register(operation{name: "Volumes.Get", method: "GET", path: "/compute/v1/volumes/{volume_id}", idempotent: true})
	opUpdateVolume = register(operation{name: "Volumes.Update", method: "PATCH", path: "/compute/v1/volumes/{volume_id}", idempotent: true})
	opDeleteVolume = register(operation{name: "Volumes.Delete", method: "DELETE", path: "/compute/v1/volumes/{volume_id}", idempotent: true, notFound: CodeVolumeNotFound, discard: true})

	opListFilesystems  = register(operation{name: "Filesystems.List", method: "GET", path: "/compute/v1/filesystems", idempotent: true})
	opCreateFilesystem = register(operation{name: "Filesystems.Create", method: "POST", path: "/compute/v1/filesystems"})
	opGetFilesystem    = register(operation{name: "Filesystems.Get", method: "GET", path: "/compute/v1/filesystems/{filesystem_id}", idempotent: true})
	opUpdateFilesystem = register(operation{name: "Filesystems.Update", method: "PATCH", path: "/compute/v1/filesystems/{filesystem_id}", idempotent: true})
	// The service names no "filesystem not found" code: see operation.missing.
	opDeleteFilesystem = register(operation{name: "Filesystems.Delete", method: "DELETE", path: "/compute/v1/filesystems/{filesystem_id}", idempotent: true, discard: true})

	opListAllSnapshots = register(operation{name: "Snapshots.List", method: "GET", path: "/compute/v1/snapshots", idempotent: true})
	opImportSnapshot   = register(operation{name: "Snapshots.Import", method: "POST", path: "/compute/v1/snapshots"})
	opGetSnapshot      = register(operation{name: "Snapshots.Get", method: "GET", path: "/compute/v1/snapshots/{snapshot_id}", idempotent: true})
	opUpdateSnapshot   = register(operation{name: "Snapshots.Update", method: "PATCH", path: "/compute/v1/snapshots/{snapshot_id}", idempotent: true})
	opDeleteSnapshot   = register(operation{name: "Snapshots.Delete", method: "DELETE", path: "/compute/v1/snapshots/{snapshot_id}", idempotent: true, notFound: CodeSnapshotNotFound, discard: true})
	opCloneSnapshot    = register(operation{name: "Snapshots.Clone", method: "POST", path: "/compute/v1/snapshots/{snapshot_id}/clone", copies: true})

	opListQuotas       = register(operation{name: "Quotas.List", method: "GET", path: "/compute/v1/quotas", idempotent: true})
	opListReservations = register(operation{name: "Reservations.List", method: "GET", path: "/compute/v1/reservations", idempotent: true})
	opGetAvailability  = register(operation{name: "Availability.Instances", method: "GET", path: "/compute/v1/availability/{region}/instances", idempotent: true})

	opOpenAPI = register(operation{name: "OpenAPI", method: "GET", path: "/compute/v1/openapi.yaml", idempotent: true,
		accept: "application/yaml, application/json;q=0.9, */*;q=0.8", maxBody: 8 << 20})
)
