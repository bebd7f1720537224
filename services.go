package compute

// InstancesService manages instances (virtual machines). Reach it as Client.Instances.
type InstancesService struct {
	c     *Client
	polls *poller[Instance] // the waits in flight share their polling, and shared reads their walks
	finds *finder[Instance] // the CreateOnce lookups in flight share their walks
}

// SnapshotsService manages snapshots. Reach it as Client.Snapshots. The methods that take an
// instance ID (Create, ListByInstance, AllByInstance) work on one instance's snapshots; the others
// on the account's whole collection, /compute/v1/snapshots, whose create is Import (from a disk
// image at a URL) and whose copy is Clone.
type SnapshotsService struct {
	c     *Client
	polls *poller[Snapshot] // the waits in flight share their polling, and shared reads their walks
	finds *finder[Snapshot] // the CreateOnce lookups in flight share their walks
}

// SSHKeysService manages the SSH public keys that instances are created with. Reach it as
// Client.SSHKeys.
type SSHKeysService struct {
	c     *Client
	polls *poller[SSHKey] // the waits in flight share their polling, and shared reads their walks
	finds *finder[SSHKey] // the CreateOnce lookups in flight share their walks
}

// VolumesService manages block storage volumes. Reach it as Client.Volumes.
type VolumesService struct {
	c     *Client
	polls *poller[Volume] // the waits in flight share their polling, and shared reads their walks
	finds *finder[Volume] // the CreateOnce lookups in flight share their walks
}

// FilesystemsService manages shared filesystems. Reach it as Client.Filesystems.
type FilesystemsService struct {
	c     *Client
	polls *poller[Filesystem] // the waits in flight share their polling, and shared reads their walks
	finds *finder[Filesystem] // the CreateOnce lookups in flight share their walks
}

// QuotasService reads the account's quotas. Reach it as Client.Quotas.
type QuotasService struct{ c *Client }

// ReservationsService reads the account's reservations. Reach it as Client.Reservations.
type ReservationsService struct{ c *Client }

// AvailabilityService reports which instance types a region can create now. Reach it as
// Client.Availability.
type AvailabilityService struct{ c *Client }

// SecurityGroupsService manages security groups, sets of firewall rules. Reach it as
// Client.SecurityGroups.
type SecurityGroupsService struct {
	c     *Client
	polls *poller[SecurityGroup] // the waits in flight share their polling, and shared reads their walks
	finds *finder[SecurityGroup] // the CreateOnce lookups in flight share their walks
}

// FloatingIPsService manages floating IPs. Reach it as Client.FloatingIPs.
type FloatingIPsService struct {
	c     *Client
	polls *poller[FloatingIP] // the waits in flight share their polling, and shared reads their walks
	finds *finder[FloatingIP] // the CreateOnce lookups in flight share their walks
}

// ImagesService lists the images instances boot from. Reach it as Client.Images.
type ImagesService struct{ c *Client }

// Ref is a reference to another resource inside a resource.
type Ref struct {
	ID   string `json:"id"`   // the referenced resource's ID
	Name string `json:"name"` // its human-readable name
}

// Ptr returns a pointer to v, for the optional fields of update requests:
// &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)}.
func Ptr[T any](v T) *T { return &v }
