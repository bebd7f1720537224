package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Wire tests of the operations the extended contract adds. Every request and response body is a
// literal file under testdata/, written from compute-api-extended.md.

func TestSSHKeysGolden(t *testing.T) {
	t.Parallel()
	const id = "9b2e4f6a-1c3d-4e5f-8a7b-0c1d2e3f4a5b"
	const value = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm2b0m6XfL1cJ8g0QkQ5h1rT2yJ8eYk0pS3nV4wX5zA alice@laptop"
	runGoldenCases(t, []goldenCase{
		{
			name: "ssh_key_list", method: "GET", path: "/compute/v1/ssh-keys", query: "page=1&per_page=20",
			status: http.StatusOK, respFile: "ssh_key_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SSHKeys.List(ctx, &ListOptions{Page: 1, PerPage: 20})
			},
			check: checkPage[SSHKey]("ssh_keys", 2, 1, 20),
		},
		{
			// The response is the key itself, not {"ssh_key": {...}}.
			name: "ssh_key_create", method: "POST", path: "/compute/v1/ssh-keys",
			reqFile: "ssh_key_create_request.json", status: http.StatusCreated, respFile: "ssh_key_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SSHKeys.Create(ctx, &SSHKeyCreateRequest{Name: "laptop", Value: value})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[SSHKey]("", true)(t, result, respBody)
				k := result.(*SSHKey)
				assert.Equal(t, value, k.Value, "the key's value comes back byte for byte")
				assert.Equal(t, 256, k.Size)
				assert.Equal(t, time.Date(2025, 5, 6, 9, 0, 0, 0, time.UTC), k.CreatedAt)
			},
		},
		{
			name: "ssh_key_get", method: "GET", path: "/compute/v1/ssh-keys/" + id,
			status: http.StatusOK, respFile: "ssh_key_response.json",
			call:  func(ctx context.Context, c *Client) (any, error) { return c.SSHKeys.Get(ctx, id) },
			check: checkOne[SSHKey]("", true),
		},
		{
			name: "ssh_key_update", method: "PATCH", path: "/compute/v1/ssh-keys/" + id,
			reqFile: "ssh_key_update_request.json", status: http.StatusOK, respFile: "ssh_key_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SSHKeys.Update(ctx, id, &SSHKeyUpdateRequest{Name: "laptop-2025"})
			},
			check: checkOne[SSHKey]("", true),
		},
		{
			name: "ssh_key_delete", method: "DELETE", path: "/compute/v1/ssh-keys/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.SSHKeys.Delete(ctx, id) },
		},
	})
}

func TestVolumesGolden(t *testing.T) {
	t.Parallel()
	const id = "5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d0e"
	runGoldenCases(t, []goldenCase{
		{
			name: "volume_list", method: "GET", path: "/compute/v1/volumes", query: "page=1&per_page=20",
			status: http.StatusOK, respFile: "volume_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.List(ctx, &ListOptions{Page: 1, PerPage: 20})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkPage[Volume]("volumes", 2, 1, 20)(t, result, respBody)
				p := result.(*Page[Volume])
				assert.Equal(t, requireFullyMapped[Volume](t, envelopeItem(t, respBody, "volumes")), p.Items[0])
				assert.Equal(t, VolumeStatusPendingDelete, p.Items[1].Status)
				assert.Equal(t, VolumeTypeHDD, p.Items[1].Type)
			},
		},
		{
			name: "volume_create", method: "POST", path: "/compute/v1/volumes",
			reqFile: "volume_create_request.json", status: http.StatusCreated, respFile: "volume_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.Create(ctx, &VolumeCreateRequest{
					Name: "data-1", Description: "Postgres data", Region: RegionNORDNOKRS1, Size: 200, Type: VolumeTypeSSD,
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Volume]("volume", true)(t, result, respBody)
				v := result.(*Volume)
				assert.Equal(t, VolumeStatusCreating, v.Status)
				assert.Equal(t, []Ref{}, v.Instances)
				assert.False(t, v.Available(), "a creating volume is not attachable yet")
			},
		},
		{
			// Optional fields left out are not sent.
			name: "volume_create_minimal", method: "POST", path: "/compute/v1/volumes",
			reqFile: "volume_create_minimal_request.json", status: http.StatusCreated, respFile: "volume_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.Create(ctx, &VolumeCreateRequest{Name: "scratch", Region: RegionNORDNOKRS1, Size: 1})
			},
		},
		{
			name: "volume_get", method: "GET", path: "/compute/v1/volumes/" + id,
			status: http.StatusOK, respFile: "volume_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Volumes.Get(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Volume]("volume", true)(t, result, respBody)
				v := result.(*Volume)
				assert.Equal(t, []Ref{{ID: "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", Name: "db-1"}}, v.Instances)
				assert.False(t, v.Available(), "an attached volume is not available")
			},
		},
		{
			// Description: Ptr("") is sent, to clear it.
			name: "volume_update", method: "PATCH", path: "/compute/v1/volumes/" + id,
			reqFile: "volume_update_request.json", status: http.StatusOK, respFile: "volume_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.Update(ctx, id, &VolumeUpdateRequest{Name: Ptr("data-1-big"), Description: Ptr(""), Size: Ptr(500)})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Volume]("volume", true)(t, result, respBody)
				assert.True(t, result.(*Volume).Available(), "created and unattached is the contract's available")
			},
		},
		{
			name: "volume_delete", method: "DELETE", path: "/compute/v1/volumes/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Volumes.Delete(ctx, id) },
		},
	})
}

func TestFilesystemsGolden(t *testing.T) {
	t.Parallel()
	const id = "f0e1d2c3-b4a5-4967-8877-665544332211"
	runGoldenCases(t, []goldenCase{
		{
			name: "filesystem_list", method: "GET", path: "/compute/v1/filesystems", query: "page=2&per_page=10",
			status: http.StatusOK, respFile: "filesystem_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Filesystems.List(ctx, &ListOptions{Page: 2, PerPage: 10})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkPage[Filesystem]("filesystems", 1, 2, 10)(t, result, respBody)
				assert.Equal(t, requireFullyMapped[Filesystem](t, envelopeItem(t, respBody, "filesystems")), result.(*Page[Filesystem]).Items[0])
			},
		},
		{
			// The mount fields are null until the filesystem is created.
			name: "filesystem_create", method: "POST", path: "/compute/v1/filesystems",
			reqFile: "filesystem_create_request.json", status: http.StatusCreated, respFile: "filesystem_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Filesystems.Create(ctx, &FilesystemCreateRequest{
					Name: "shared-models", Description: "Model weights for the training nodes", Region: RegionNACAFTS1,
					Size: 1024, Type: FilesystemTypeVast,
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Filesystem]("filesystem", true, "MountBasePath", "MountEndpointRange")(t, result, respBody)
				f := result.(*Filesystem)
				assert.Equal(t, FilesystemStatusCreating, f.Status)
				assert.Empty(t, f.MountBasePath)
				assert.Nil(t, f.MountEndpointRange)
			},
		},
		{
			name: "filesystem_get", method: "GET", path: "/compute/v1/filesystems/" + id,
			status: http.StatusOK, respFile: "filesystem_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Filesystems.Get(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Filesystem]("filesystem", true)(t, result, respBody)
				f := result.(*Filesystem)
				assert.Equal(t, "/shared-models", f.MountBasePath)
				assert.Equal(t, []string{"10.10.0.10", "10.10.0.25"}, f.MountEndpointRange)
			},
		},
		{
			name: "filesystem_update", method: "PATCH", path: "/compute/v1/filesystems/" + id,
			reqFile: "filesystem_update_request.json", status: http.StatusOK, respFile: "filesystem_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Filesystems.Update(ctx, id, &FilesystemUpdateRequest{Size: Ptr(2048)})
			},
			check: checkOne[Filesystem]("filesystem", true),
		},
		{
			// The contract does not state the status of this delete; 204 and 200 both succeed.
			name: "filesystem_delete", method: "DELETE", path: "/compute/v1/filesystems/" + id, status: http.StatusOK,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Filesystems.Delete(ctx, id) },
		},
		{
			name: "filesystem_delete_204", method: "DELETE", path: "/compute/v1/filesystems/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Filesystems.Delete(ctx, id) },
		},
	})
}

func TestSnapshotsCollectionGolden(t *testing.T) {
	t.Parallel()
	const id = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
	runGoldenCases(t, []goldenCase{
		{
			name: "snapshots_list", method: "GET", path: "/compute/v1/snapshots", query: "page=1&per_page=50",
			status: http.StatusOK, respFile: "snapshots_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.List(ctx, &ListOptions{Page: 1, PerPage: 50})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkPage[Snapshot]("snapshots", 2, 1, 50)(t, result, respBody)
				p := result.(*Page[Snapshot])
				assert.Equal(t, "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e", p.Items[0].SourceSnapshotID)
				assert.Equal(t, SnapshotStatusError, p.Items[1].Status)
				assert.Empty(t, p.Items[1].SourceInstanceID, "an imported snapshot has no source instance")
			},
		},
		{
			name: "snapshot_import", method: "POST", path: "/compute/v1/snapshots",
			reqFile: "snapshot_import_request.json", status: http.StatusCreated, respFile: "snapshot_import_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Import(ctx, &SnapshotImportRequest{
					Name: "debian-custom", Region: RegionEUWNLAMS1, Size: 20,
					URL: "https://images.example.com/debian-custom.raw.zst", OSType: OSTypeLinux,
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Snapshot]("snapshot", false)(t, result, respBody)
				s := result.(*Snapshot)
				assert.Equal(t, SnapshotStatusCreating, s.Status)
				assert.Equal(t, int64(20), s.Size)
			},
		},
		{
			name: "snapshot_get", method: "GET", path: "/compute/v1/snapshots/" + id,
			status: http.StatusOK, respFile: "snapshot_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Snapshots.Get(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				// Every field but the seed's resource_id, which the service no longer sends (D3).
				checkOne[Snapshot]("snapshot", false)(t, result, respBody)
				s := result.(*Snapshot)
				assert.Equal(t, OSTypeWindows, s.OSType)
				assert.Equal(t, "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", s.SourceInstanceID)
				assert.Equal(t, time.Date(2025, 5, 3, 12, 4, 10, 250_000_000, time.UTC), s.UpdatedAt)
			},
		},
		{
			name: "snapshot_update", method: "PATCH", path: "/compute/v1/snapshots/" + id,
			reqFile: "snapshot_update_request.json", status: http.StatusOK, respFile: "snapshot_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Update(ctx, id, &SnapshotUpdateRequest{Name: "web-1-golden"})
			},
			check: checkOne[Snapshot]("snapshot", false),
		},
		{
			name: "snapshot_delete", method: "DELETE", path: "/compute/v1/snapshots/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Snapshots.Delete(ctx, id) },
		},
		{
			name: "snapshot_clone", method: "POST", path: "/compute/v1/snapshots/" + id + "/clone",
			reqFile: "snapshot_clone_request.json", status: http.StatusCreated, respFile: "snapshot_clone_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Clone(ctx, id, &SnapshotCloneRequest{Name: "web-1-golden-ams", Region: RegionEUWNLAMS1})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Snapshot]("snapshot", false)(t, result, respBody)
				assert.Equal(t, id, result.(*Snapshot).SourceSnapshotID)
			},
		},
	})
}

func TestInstanceExtensionsGolden(t *testing.T) {
	t.Parallel()
	const id = "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f"
	const path = "/compute/v1/instances/" + id
	const volumeID = "5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d0e"
	update := func(name, reqFile string, call func(context.Context, *Client) (any, error)) goldenCase {
		return goldenCase{
			name: name, method: "PATCH", path: path, reqFile: reqFile,
			status: http.StatusOK, respFile: "instance_update_response.json", call: call, check: checkInstance,
		}
	}
	runGoldenCases(t, []goldenCase{
		{
			name: "instance_create_billing", method: "POST", path: "/compute/v1/instances",
			reqFile: "instance_create_billing_request.json", status: http.StatusCreated, respFile: "instance_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.Create(ctx, &InstanceCreateRequest{
					Name: "train-1", Hostname: "train-1", Type: "n3-H100x8", Region: RegionNACAMNZ1, Image: "ubuntu-24.04",
					SSHKeys:     []string{"9b2e4f6a-1c3d-4e5f-8a7b-0c1d2e3f4a5b"},
					BillingType: BillingTypeReserved, DestroyOnShutdown: true, PublicIPv6: true,
					ReservationID: "rsv-8f7e6d5c", ReuseLongTermSubscription: "sub-2025-0042",
				})
			},
			check: checkInstance,
		},
		update("instance_attach_volume", "instance_update_attach_volume_request.json",
			func(ctx context.Context, c *Client) (any, error) { return c.Instances.AttachVolume(ctx, id, volumeID) }),
		update("instance_detach_volume", "instance_update_detach_volume_request.json",
			func(ctx context.Context, c *Client) (any, error) { return c.Instances.DetachVolume(ctx, id, volumeID) }),
		update("instance_attach_security_group", "instance_update_attach_security_group_request.json",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.AttachSecurityGroup(ctx, id, "sg-3f9a2c")
			}),
		update("instance_detach_security_group", "instance_update_detach_security_group_request.json",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.DetachSecurityGroup(ctx, id, "sg-3f9a2c")
			}),
		update("instance_update_reservation", "instance_update_reservation_request.json",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.Update(ctx, id, &InstanceUpdateRequest{ReservationID: Ptr("rsv-8f7e6d5c")})
			}),
		{
			name: "instance_user_metadata", method: "GET", path: path + "/user-metadata",
			status: http.StatusOK, respFile: "instance_user_metadata_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Instances.UserMetadata(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				m, ok := result.(UserMetadata)
				require.True(t, ok, "result is %T", result)
				var want map[string]any
				require.NoError(t, json.Unmarshal(respBody, &want))
				require.Len(t, m, len(want))
				for k, v := range want {
					var got any
					require.NoError(t, json.Unmarshal(m[k], &got), k)
					assert.Equal(t, v, got, k)
				}
				assert.JSONEq(t, `72`, string(m["ttl_hours"]))
			},
		},
	})
}

func TestAccountReadsGolden(t *testing.T) {
	t.Parallel()
	runGoldenCases(t, []goldenCase{
		{
			name: "quota_list", method: "GET", path: "/compute/v1/quotas",
			status: http.StatusOK, respFile: "quota_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Quotas.List(ctx) },
			check: func(t *testing.T, result any, respBody []byte) {
				q, ok := result.([]Quota)
				require.True(t, ok, "result is %T", result)
				var env map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(respBody, &env))
				require.Equal(t, strictDecode[[]Quota](t, env["quotas"]), q)
				require.Equal(t, requireFullyMapped[Quota](t, envelopeItem(t, respBody, "quotas")), q[0])
				assert.Equal(t, QuotaFlavor{FlavorName: "n3-A100x8", ProductName: "GPU instance", Unit: "instance", Used: 1}, q[0].Flavors[1])
				assert.Equal(t, "volume_storage", q[1].Key)
			},
		},
		{
			name: "reservation_list", method: "GET", path: "/compute/v1/reservations",
			status: http.StatusOK, respFile: "reservation_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Reservations.List(ctx) },
			check: func(t *testing.T, result any, respBody []byte) {
				r, ok := result.([]Reservation)
				require.True(t, ok, "result is %T", result)
				require.Len(t, r, 1)
				assert.Equal(t, requireFullyMapped[Reservation](t, envelopeItem(t, respBody, "reservations")), r[0])
				assert.Equal(t, ReservationQuota{Capacity: 4, Used: 1}, r[0].Quota)
				assert.JSONEq(t, `["training", "q3"]`, string(r[0].Metadata["tags"]))
			},
		},
		{
			name: "availability", method: "GET", path: "/compute/v1/availability/NA-CA-PRG-1/instances", query: "placement=NONE",
			status: http.StatusOK, respFile: "availability_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Availability.Instances(ctx, RegionNACAPRG1, &AvailabilityOptions{Placement: "NONE"})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Availability]("availability", true)(t, result, respBody)
				a := result.(*Availability)
				require.Len(t, a.InstanceTypes, 3)
				assert.Equal(t, InstanceTypeAvailability{Type: "n3-RTX-A6000x1", Available: true, Count: Ptr(12.0)}, a.InstanceTypes[0])
				assert.Equal(t, Ptr(0.5), a.InstanceTypes[1].Count, "count is a JSON number, not an integer")
				assert.Nil(t, a.InstanceTypes[2].Count, "an absent count is nil")
			},
		},
		{
			name: "availability_no_placement", method: "GET", path: "/compute/v1/availability/NA-CA-PRG-1/instances",
			status: http.StatusOK, respFile: "availability_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Availability.Instances(ctx, RegionNACAPRG1, nil)
			},
		},
	})
}
