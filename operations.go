package compute

import "context"

// The operation table: every endpoint of the contract, declared once. GET, PUT, DELETE and PATCH are
// idempotent here (every PATCH variant of this API sets absolute values); POST never is.
var (
	opCreateSecurityGroup = operation{method: "POST", path: "/compute/v1/security-groups"}
	opUpdateSecurityGroup = operation{method: "PUT", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true}
	opListSecurityGroups  = operation{method: "GET", path: "/compute/v1/security-groups", idempotent: true}
	opGetSecurityGroup    = operation{method: "GET", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true}
	opDeleteSecurityGroup = operation{method: "DELETE", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true, notFound: CodeSecurityGroupNotFound}

	opCreateFloatingIP = operation{method: "POST", path: "/compute/v1/floating-ips"}
	opListFloatingIPs  = operation{method: "GET", path: "/compute/v1/floating-ips", idempotent: true}
	opGetFloatingIP    = operation{method: "GET", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true}
	opUpdateFloatingIP = operation{method: "PATCH", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true}
	opDeleteFloatingIP = operation{method: "DELETE", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true, notFound: CodeFloatingIPNotFound}

	opCreateInstance        = operation{method: "POST", path: "/compute/v1/instances"}
	opListInstances         = operation{method: "GET", path: "/compute/v1/instances", idempotent: true}
	opGetInstance           = operation{method: "GET", path: "/compute/v1/instances/{instance_id}", idempotent: true}
	opDeleteInstance        = operation{method: "DELETE", path: "/compute/v1/instances/{instance_id}", idempotent: true, notFound: CodeInstanceNotFound}
	opUpdateInstance        = operation{method: "PATCH", path: "/compute/v1/instances/{instance_id}", idempotent: true}
	opCreateSnapshot        = operation{method: "POST", path: "/compute/v1/instances/{instance_id}/snapshots"}
	opListSnapshots         = operation{method: "GET", path: "/compute/v1/instances/{instance_id}/snapshots", idempotent: true}
	opListInstanceActions   = operation{method: "GET", path: "/compute/v1/instances/{instance_id}/actions", idempotent: true}
	opPerformInstanceAction = operation{method: "POST", path: "/compute/v1/instances/{instance_id}/actions"}

	opListImages = operation{method: "GET", path: "/compute/v1/images", idempotent: true}

	// The rest of the compute family, from the extended contract.

	opGetUserMetadata = operation{method: "GET", path: "/compute/v1/instances/{instance_id}/user-metadata", idempotent: true}
	// opAttachInstance is the instance PATCH in its attach and detach forms ({"volumes": {"attach":
	// id}}): unlike the other PATCH variants it changes the current state relatively, so a resent
	// attach could meet "already attached" (02056) after the first one worked. It is never re-sent.
	opAttachInstance = operation{method: "PATCH", path: "/compute/v1/instances/{instance_id}"}

	opListSSHKeys  = operation{method: "GET", path: "/compute/v1/ssh-keys", idempotent: true}
	opCreateSSHKey = operation{method: "POST", path: "/compute/v1/ssh-keys"}
	opGetSSHKey    = operation{method: "GET", path: "/compute/v1/ssh-keys/{ssh_key_id}", idempotent: true}
	opUpdateSSHKey = operation{method: "PATCH", path: "/compute/v1/ssh-keys/{ssh_key_id}", idempotent: true}
	opDeleteSSHKey = operation{method: "DELETE", path: "/compute/v1/ssh-keys/{ssh_key_id}", idempotent: true, notFound: CodeSSHKeyNotFound}

	opListVolumes  = operation{method: "GET", path: "/compute/v1/volumes", idempotent: true}
	opCreateVolume = operation{method: "POST", path: "/compute/v1/volumes"}
	opGetVolume    = operation{method: "GET", path: "/compute/v1/volumes/{volume_id}", idempotent: true}
	opUpdateVolume = operation{method: "PATCH", path: "/compute/v1/volumes/{volume_id}", idempotent: true}
	opDeleteVolume = operation{method: "DELETE", path: "/compute/v1/volumes/{volume_id}", idempotent: true, notFound: CodeVolumeNotFound}

	opListFilesystems  = operation{method: "GET", path: "/compute/v1/filesystems", idempotent: true}
	opCreateFilesystem = operation{method: "POST", path: "/compute/v1/filesystems"}
	opGetFilesystem    = operation{method: "GET", path: "/compute/v1/filesystems/{filesystem_id}", idempotent: true}
	opUpdateFilesystem = operation{method: "PATCH", path: "/compute/v1/filesystems/{filesystem_id}", idempotent: true}
	// The contract names no "filesystem not found" code: any JSON 404 but an invalid route's counts.
	opDeleteFilesystem = operation{method: "DELETE", path: "/compute/v1/filesystems/{filesystem_id}", idempotent: true}

	opListAllSnapshots = operation{method: "GET", path: "/compute/v1/snapshots", idempotent: true}
	opImportSnapshot   = operation{method: "POST", path: "/compute/v1/snapshots"}
	opGetSnapshot      = operation{method: "GET", path: "/compute/v1/snapshots/{snapshot_id}", idempotent: true}
	opUpdateSnapshot   = operation{method: "PATCH", path: "/compute/v1/snapshots/{snapshot_id}", idempotent: true}
	opDeleteSnapshot   = operation{method: "DELETE", path: "/compute/v1/snapshots/{snapshot_id}", idempotent: true, notFound: CodeSnapshotNotFound}
	opCloneSnapshot    = operation{method: "POST", path: "/compute/v1/snapshots/{snapshot_id}/clone"}

	opListQuotas       = operation{method: "GET", path: "/compute/v1/quotas", idempotent: true}
	opListReservations = operation{method: "GET", path: "/compute/v1/reservations", idempotent: true}
	opGetAvailability  = operation{method: "GET", path: "/compute/v1/availability/{region}/instances", idempotent: true}

	opOpenAPI = operation{method: "GET", path: "/compute/v1/openapi.yaml", idempotent: true,
		accept: "application/yaml, application/json;q=0.9, */*;q=0.8", maxBody: 8 << 20}
)

// OpenAPI returns the service's machine-readable description, the bytes of
// GET /compute/v1/openapi.yaml. It is the one request that asks for YAML rather than JSON.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	return c.do(ctx, request{op: opOpenAPI})
}
