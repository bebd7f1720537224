package compute

// InstancesService manages instances (virtual machines): create, read, update, delete, actions and
// waiting. Reach it as Client.Instances.
type InstancesService struct{ c *Client }

// SnapshotsService creates and lists the snapshots of an instance. Reach it as Client.Snapshots.
type SnapshotsService struct{ c *Client }

// SecurityGroupsService manages security groups, sets of firewall rules. Reach it as
// Client.SecurityGroups.
type SecurityGroupsService struct{ c *Client }

// FloatingIPsService manages floating IPs. Reach it as Client.FloatingIPs.
type FloatingIPsService struct{ c *Client }

// ImagesService lists the images instances boot from. Reach it as Client.Images.
type ImagesService struct{ c *Client }

// Ref is a reference to another resource as the service shows it inside a resource: {id, name}.
type Ref struct {
	// ID is the referenced resource's ID.
	ID string `json:"id"`
	// Name is its human-readable name.
	Name string `json:"name"`
}

// Ptr returns a pointer to v, for the optional fields of update requests:
// &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)}.
func Ptr[T any](v T) *T { return &v }
