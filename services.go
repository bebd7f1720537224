package compute

// InstancesService manages instances (virtual machines): create, read, update, delete, actions and
// waiting. Reach it as Client.Instances.
type InstancesService struct {
	c     *Client
	polls *poller[Instance] // the waits in flight share their polling
}

// SnapshotsService manages snapshots. Reach it as Client.Snapshots.
//
// The methods that take an instance ID (Create, ListByInstance, AllByInstance) work on one
// instance's snapshots, under /compute/v1/instances/{instance_id}/snapshots; the others (List, All,
// Get, Update, Delete, Import, Clone, WaitForStatus) work on the account's whole collection,
// /compute/v1/snapshots. The names keep the two apart: Create always snapshots an instance, so the
// collection's own create, which makes a snapshot from a disk image at a URL, is Import, and a copy
// of a snapshot is Clone; List and All read every snapshot, whatever made it, while the
// per-instance reads say ByInstance.
type SnapshotsService struct {
	c     *Client
	polls *poller[Snapshot] // the waits in flight share their polling
}

// SSHKeysService manages the SSH public keys that instances are created with,
// /compute/v1/ssh-keys. Reach it as Client.SSHKeys.
type SSHKeysService struct {
	c     *Client
	polls *poller[SSHKey] // the waits in flight share their polling
}

// VolumesService manages block storage volumes, /compute/v1/volumes; attaching one to an instance
// is an instance update ([InstancesService.AttachVolume]). Reach it as Client.Volumes.
type VolumesService struct {
	c     *Client
	polls *poller[Volume] // the waits in flight share their polling
}

// FilesystemsService manages shared filesystems, /compute/v1/filesystems. Reach it as
// Client.Filesystems.
type FilesystemsService struct {
	c     *Client
	polls *poller[Filesystem] // the waits in flight share their polling
}

// QuotasService reads the account's quotas, GET /compute/v1/quotas. Reach it as Client.Quotas.
type QuotasService struct{ c *Client }

// ReservationsService reads the account's reservations, GET /compute/v1/reservations. Reach it as
// Client.Reservations.
type ReservationsService struct{ c *Client }

// AvailabilityService reports which instance types a region can create now,
// GET /compute/v1/availability/{region}/instances. Reach it as Client.Availability.
type AvailabilityService struct{ c *Client }

// SecurityGroupsService manages security groups, sets of firewall rules. Reach it as
// Client.SecurityGroups.
type SecurityGroupsService struct {
	c     *Client
	polls *poller[SecurityGroup] // the waits in flight share their polling
}

// FloatingIPsService manages floating IPs. Reach it as Client.FloatingIPs.
type FloatingIPsService struct {
	c     *Client
	polls *poller[FloatingIP] // the waits in flight share their polling
}

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
