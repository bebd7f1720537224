package compute

import "context"

// The operation table: every endpoint of the contract, declared once. GET, PUT, DELETE and PATCH are
// idempotent here (every PATCH variant of this API sets absolute values); POST never is.
var (
	opCreateSecurityGroup = operation{method: "POST", path: "/compute/v1/security-groups"}
	opUpdateSecurityGroup = operation{method: "PUT", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true}
	opListSecurityGroups  = operation{method: "GET", path: "/compute/v1/security-groups", idempotent: true}
	opGetSecurityGroup    = operation{method: "GET", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true}
	opDeleteSecurityGroup = operation{method: "DELETE", path: "/compute/v1/security-groups/{security_group_id}", idempotent: true}

	opCreateFloatingIP = operation{method: "POST", path: "/compute/v1/floating-ips"}
	opListFloatingIPs  = operation{method: "GET", path: "/compute/v1/floating-ips", idempotent: true}
	opGetFloatingIP    = operation{method: "GET", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true}
	opUpdateFloatingIP = operation{method: "PATCH", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true}
	opDeleteFloatingIP = operation{method: "DELETE", path: "/compute/v1/floating-ips/{floating_ip_id}", idempotent: true}

	opCreateInstance        = operation{method: "POST", path: "/compute/v1/instances"}
	opListInstances         = operation{method: "GET", path: "/compute/v1/instances", idempotent: true}
	opGetInstance           = operation{method: "GET", path: "/compute/v1/instances/{instance_id}", idempotent: true}
	opDeleteInstance        = operation{method: "DELETE", path: "/compute/v1/instances/{instance_id}", idempotent: true}
	opUpdateInstance        = operation{method: "PATCH", path: "/compute/v1/instances/{instance_id}", idempotent: true}
	opCreateSnapshot        = operation{method: "POST", path: "/compute/v1/instances/{instance_id}/snapshots"}
	opListSnapshots         = operation{method: "GET", path: "/compute/v1/instances/{instance_id}/snapshots", idempotent: true}
	opListInstanceActions   = operation{method: "GET", path: "/compute/v1/instances/{instance_id}/actions", idempotent: true}
	opPerformInstanceAction = operation{method: "POST", path: "/compute/v1/instances/{instance_id}/actions"}

	opListImages = operation{method: "GET", path: "/compute/v1/images", idempotent: true}

	opOpenAPI = operation{method: "GET", path: "/compute/v1/openapi.yaml", idempotent: true,
		accept: "application/yaml, application/json;q=0.9, */*;q=0.8", maxBody: 8 << 20}
)

// OpenAPI returns the service's machine-readable description, the bytes of
// GET /compute/v1/openapi.yaml. It is the one request that asks for YAML rather than JSON.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	return c.do(ctx, request{op: opOpenAPI})
}
