package compute

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of operation.go: every operation of the table, through the SDK method that sends it, meets
// the shared failure cases as its idempotent flag says. (Its doc comment and its README row: doc_test.go.)

// opCase is one public operation, called with valid input (call) and with input it must refuse
// before sending (invalid, naming field).
type opCase struct {
	name       string
	idempotent bool
	call       func(context.Context, *Client) error
	invalid    func(context.Context, *Client) error
	field      string
}

func allOperations() []opCase {
	inst := &InstanceCreateRequest{Name: "web", Hostname: "web", Type: "t1", Region: "r1", Image: "ubuntu-24.04", SSHKeys: []string{"k1"}}
	badPage := &ListOptions{PerPage: 101}
	return append([]opCase{
		{"Instances.Create", false,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Create(ctx, inst)) },
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.Create(ctx, &InstanceCreateRequest{Name: "web", Hostname: "web", Type: "t1", Region: "r1", SSHKeys: []string{"k"}}))
			}, "image"},
		{"Instances.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Get(ctx, "i-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Get(ctx, "")) }, "instance_id"},
		{"Instances.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.List(ctx, badPage)) }, "per_page"},
		{"Instances.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.Instances.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.Instances.All(ctx, badPage)) }, "per_page"},
		{"Instances.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.Update(ctx, "i-1", &InstanceUpdateRequest{Name: Ptr("web-2")}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.Update(ctx, "i-1", &InstanceUpdateRequest{DiskSize: Ptr(40)}))
			}, "disk_size"},
		{"Instances.Delete", true,
			func(ctx context.Context, c *Client) error { return c.Instances.Delete(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Delete(ctx, "") }, "instance_id"},
		{"Instances.Actions", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Actions(ctx, "i-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Actions(ctx, "")) }, "instance_id"},
		{"Instances.PerformAction", false,
			func(ctx context.Context, c *Client) error { return c.Instances.PerformAction(ctx, "i-1", ActionReset) },
			func(ctx context.Context, c *Client) error { return c.Instances.PerformAction(ctx, "i-1", "reboot") }, "action"},
		{"Instances.Start", false,
			func(ctx context.Context, c *Client) error { return c.Instances.Start(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Start(ctx, "") }, "instance_id"},
		{"Instances.Stop", false,
			func(ctx context.Context, c *Client) error { return c.Instances.Stop(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Stop(ctx, "") }, "instance_id"},
		{"Instances.Reset", false,
			func(ctx context.Context, c *Client) error { return c.Instances.Reset(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Reset(ctx, "") }, "instance_id"},
		{"Instances.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.WaitForStatus(ctx, "", InstanceStatusActive))
			}, "instance_id"},
		{"Snapshots.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Create(ctx, "i-1", &SnapshotCreateRequest{Name: "nightly"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Create(ctx, "i-1", &SnapshotCreateRequest{}))
			}, "name"},
		{"Snapshots.ListByInstance", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.ListByInstance(ctx, "i-1", nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.ListByInstance(ctx, "", nil)) }, "instance_id"},
		{"Snapshots.AllByInstance", true,
			func(ctx context.Context, c *Client) error {
				return firstErr(c.Snapshots.AllByInstance(ctx, "i-1", nil))
			},
			func(ctx context.Context, c *Client) error {
				return firstErr(c.Snapshots.AllByInstance(ctx, "i-1", badPage))
			}, "per_page"},
		{"SecurityGroups.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Create(ctx, &SecurityGroupCreateRequest{Name: "web", Region: "r1"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Create(ctx, &SecurityGroupCreateRequest{Name: "default", Region: "r1"}))
			}, "name"},
		{"SecurityGroups.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.Get(ctx, "sg-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.Get(ctx, "")) }, "security_group_id"},
		{"SecurityGroups.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.List(ctx, badPage)) }, "per_page"},
		{"SecurityGroups.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.SecurityGroups.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.SecurityGroups.All(ctx, badPage)) }, "per_page"},
		{"SecurityGroups.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Update(ctx, "sg-1", &SecurityGroupUpdateRequest{Name: "web"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Update(ctx, "sg-1", &SecurityGroupUpdateRequest{Name: "web",
					Rules: []SecurityGroupRule{{Protocol: "gre", Direction: DirectionIngress}}}))
			}, "rules[0].protocol"},
		{"SecurityGroups.Delete", true,
			func(ctx context.Context, c *Client) error { return c.SecurityGroups.Delete(ctx, "sg-1") },
			func(ctx context.Context, c *Client) error { return c.SecurityGroups.Delete(ctx, "") }, "security_group_id"},
		{"SecurityGroups.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.WaitForStatus(ctx, "sg-1", SecurityGroupStatusCreated))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.WaitForStatus(ctx, "", SecurityGroupStatusCreated))
			}, "security_group_id"},
		{"FloatingIPs.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Create(ctx, &FloatingIPCreateRequest{Name: "ip", Region: "r1"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Create(ctx, &FloatingIPCreateRequest{Name: "ip", Region: "r1", Version: "ipv5"}))
			}, "version"},
		{"FloatingIPs.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.Get(ctx, "f-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.Get(ctx, "")) }, "floating_ip_id"},
		{"FloatingIPs.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.List(ctx, badPage)) }, "per_page"},
		{"FloatingIPs.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.FloatingIPs.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.FloatingIPs.All(ctx, badPage)) }, "per_page"},
		{"FloatingIPs.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Update(ctx, "f-1", &FloatingIPUpdateRequest{Description: Ptr("")}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Update(ctx, "f-1", &FloatingIPUpdateRequest{}))
			}, "request"},
		{"FloatingIPs.Delete", true,
			func(ctx context.Context, c *Client) error { return c.FloatingIPs.Delete(ctx, "f-1") },
			func(ctx context.Context, c *Client) error { return c.FloatingIPs.Delete(ctx, "") }, "floating_ip_id"},
		{"FloatingIPs.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.WaitForStatus(ctx, "f-1", FloatingIPStatusCreated))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.WaitForStatus(ctx, "", FloatingIPStatusCreated))
			}, "floating_ip_id"},
		{"Images.List", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Images.List(ctx, &ImageListOptions{Type: ImageTypeBaseOS}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Images.List(ctx, &ImageListOptions{ListOptions: ListOptions{Page: -1}}))
			}, "page"},
		{"Images.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.Images.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error {
				return firstErr(c.Images.All(ctx, &ImageListOptions{ListOptions: *badPage}))
			}, "per_page"},
		{"OpenAPI", true,
			func(ctx context.Context, c *Client) error { return noErr(c.OpenAPI(ctx)) },
			nil, ""},
	}, familyOperations()...)
}

// TestEveryOperationThroughTheSharedFailureCases walks every public operation through: refused input
// (no request), a 404, a 429 then success, a non-JSON 500, and a context cancelled before the call.
func TestEveryOperationThroughTheSharedFailureCases(t *testing.T) {
	t.Parallel()
	for _, op := range allOperations() {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			t.Run("validation error without a request", func(t *testing.T) {
				if op.invalid == nil {
					t.Skip("the operation takes no input")
				}
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, 200, universalResponse) })
				err := op.invalid(context.Background(), c)
				var ve *ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, op.field, ve.Field)
				assert.ErrorIs(t, err, ErrInvalidRequest)
				assert.Zero(t, rec.count(), "no request may be sent")
			})
			t.Run("404 is ErrNotFound", func(t *testing.T) {
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					replyJSON(w, 404, map[string]string{"code": "02008", "message": "Instance not found"})
				})
				err := op.call(context.Background(), c)
				assert.ErrorIs(t, err, ErrNotFound)
				assert.ErrorIs(t, err, CodeInstanceNotFound)
				assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a 404 is a known outcome")
				requireNoToken(t, err.Error())
				assert.Equal(t, 1, rec.count())
			})
			t.Run("429 then success", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					c, rec := newTestClient(t, sequence(serveJSON([]byte(universalResponse)), rateLimited("3")), WithRetry(DefaultRetryPolicy()))
					// A fake-time deadline turns a waiter that never matches into a failure, not a hang.
					ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
					defer cancel()
					start := time.Now()
					require.NoError(t, op.call(ctx, c))
					assert.Equal(t, 2, rec.count())
					assert.Equal(t, 3*time.Second, time.Since(start))
				})
			})
			t.Run("non-JSON 500", func(t *testing.T) {
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					replyRaw(w, 500, "<html>Internal Server Error</html>")
				})
				err := op.call(context.Background(), c)
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, 500, apiErr.StatusCode)
				assert.Equal(t, "<html>Internal Server Error</html>", apiErr.Message)
				assert.ErrorIs(t, err, ErrServer)
				assert.Equal(t, !op.idempotent, errors.Is(err, ErrOutcomeUnknown), "only a POST's 5xx leaves the outcome unknown")
				want := 1
				if op.idempotent {
					want = 5
				}
				assert.Equal(t, want, rec.count(), "a 500 is retried like a 502-504 for an idempotent operation, never for a POST")
				requireNoToken(t, err.Error())
			})
			t.Run("cancelled context", func(t *testing.T) {
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, 200, universalResponse) })
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				err := op.call(ctx, c)
				assert.ErrorIs(t, err, context.Canceled)
				assert.NotErrorIs(t, err, ErrOutcomeUnknown, "nothing was sent")
				assert.Zero(t, rec.count())
			})
		})
	}
}

// familyOperations are the operations on the rest of the compute family (SSH keys, volumes,
// filesystems, the snapshots collection, quotas, ...), for the shared failure cases of
// TestEveryOperationThroughTheSharedFailureCases: each is called once with valid input and once
// with input it must refuse before sending, naming the JSON field.
func familyOperations() []opCase {
	badPage := &ListOptions{PerPage: 101}
	return []opCase{
		{"SSHKeys.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SSHKeys.Create(ctx, &SSHKeyCreateRequest{Name: "laptop", Value: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm2b0m6XfL1cJ8g0QkQ5h1rT2yJ8eYk0pS3nV4wX5zA"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SSHKeys.Create(ctx, &SSHKeyCreateRequest{Name: "laptop"}))
			}, "value"},
		{"SSHKeys.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.SSHKeys.Get(ctx, "k-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.SSHKeys.Get(ctx, "")) }, "ssh_key_id"},
		{"SSHKeys.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.SSHKeys.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.SSHKeys.List(ctx, badPage)) }, "per_page"},
		{"SSHKeys.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.SSHKeys.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.SSHKeys.All(ctx, badPage)) }, "per_page"},
		{"SSHKeys.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SSHKeys.Update(ctx, "k-1", &SSHKeyUpdateRequest{Name: "ci"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SSHKeys.Update(ctx, "k-1", &SSHKeyUpdateRequest{}))
			}, "name"},
		{"SSHKeys.Delete", true,
			func(ctx context.Context, c *Client) error { return c.SSHKeys.Delete(ctx, "k-1") },
			func(ctx context.Context, c *Client) error { return c.SSHKeys.Delete(ctx, "") }, "ssh_key_id"},

		{"Volumes.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Volumes.Create(ctx, &VolumeCreateRequest{Name: "data", Region: "r1", Size: 10}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Volumes.Create(ctx, &VolumeCreateRequest{Name: "data", Region: "r1"}))
			}, "size"},
		{"Volumes.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Volumes.Get(ctx, "v-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Volumes.Get(ctx, "")) }, "volume_id"},
		{"Volumes.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Volumes.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.Volumes.List(ctx, badPage)) }, "per_page"},
		{"Volumes.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.Volumes.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.Volumes.All(ctx, badPage)) }, "per_page"},
		{"Volumes.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Volumes.Update(ctx, "v-1", &VolumeUpdateRequest{Size: Ptr(20)}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Volumes.Update(ctx, "v-1", &VolumeUpdateRequest{Name: Ptr(" ")}))
			}, "name"},
		{"Volumes.Delete", true,
			func(ctx context.Context, c *Client) error { return c.Volumes.Delete(ctx, "v-1") },
			func(ctx context.Context, c *Client) error { return c.Volumes.Delete(ctx, "") }, "volume_id"},
		{"Volumes.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Volumes.WaitForStatus(ctx, "v-1", VolumeStatusCreated))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Volumes.WaitForStatus(ctx, "", VolumeStatusCreated))
			}, "volume_id"},

		{"Filesystems.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Filesystems.Create(ctx, &FilesystemCreateRequest{Name: "shared", Region: "r1", Size: 10}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Filesystems.Create(ctx, &FilesystemCreateRequest{Name: "shared", Region: "r1", Size: 10, Type: "nfs"}))
			}, "type"},
		{"Filesystems.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Filesystems.Get(ctx, "fs-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Filesystems.Get(ctx, "")) }, "filesystem_id"},
		{"Filesystems.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Filesystems.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.Filesystems.List(ctx, badPage)) }, "per_page"},
		{"Filesystems.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.Filesystems.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.Filesystems.All(ctx, badPage)) }, "per_page"},
		{"Filesystems.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Filesystems.Update(ctx, "fs-1", &FilesystemUpdateRequest{Description: Ptr("")}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Filesystems.Update(ctx, "fs-1", &FilesystemUpdateRequest{}))
			}, "request"},
		{"Filesystems.Delete", true,
			func(ctx context.Context, c *Client) error { return c.Filesystems.Delete(ctx, "fs-1") },
			func(ctx context.Context, c *Client) error { return c.Filesystems.Delete(ctx, "") }, "filesystem_id"},
		{"Filesystems.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Filesystems.WaitForStatus(ctx, "fs-1", FilesystemStatusCreated))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Filesystems.WaitForStatus(ctx, "", FilesystemStatusCreated))
			}, "filesystem_id"},

		{"Snapshots.Import", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Import(ctx, &SnapshotImportRequest{Name: "img", Region: "r1", Size: 20, URL: "https://x/img.raw"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Import(ctx, &SnapshotImportRequest{Name: "img", Region: "r1", Size: 20}))
			}, "url"},
		{"Snapshots.Clone", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Clone(ctx, "s-0", &SnapshotCloneRequest{Name: "copy", Region: "r2"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Clone(ctx, "s-1", &SnapshotCloneRequest{Name: "copy"}))
			}, "region"},
		{"Snapshots.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.Get(ctx, "s-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.Get(ctx, "")) }, "snapshot_id"},
		{"Snapshots.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.List(ctx, badPage)) }, "per_page"},
		{"Snapshots.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.Snapshots.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.Snapshots.All(ctx, badPage)) }, "per_page"},
		{"Snapshots.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Update(ctx, "s-1", &SnapshotUpdateRequest{Name: "golden"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Update(ctx, "s-1", &SnapshotUpdateRequest{}))
			}, "name"},
		{"Snapshots.Delete", true,
			func(ctx context.Context, c *Client) error { return c.Snapshots.Delete(ctx, "s-1") },
			func(ctx context.Context, c *Client) error { return c.Snapshots.Delete(ctx, "") }, "snapshot_id"},
		{"Snapshots.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.WaitForStatus(ctx, "s-1", SnapshotStatusCreated))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.WaitForStatus(ctx, "", SnapshotStatusCreated))
			}, "snapshot_id"},

		{"Instances.UserMetadata", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.UserMetadata(ctx, "i-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.UserMetadata(ctx, "")) }, "instance_id"},
		{"Instances.AttachVolume", false,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.AttachVolume(ctx, "i-1", "v-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.AttachVolume(ctx, "i-1", "")) }, "volumes.attach"},
		{"Instances.DetachVolume", false,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.DetachVolume(ctx, "i-1", "v-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.DetachVolume(ctx, "i-1", " ")) }, "volumes.detach"},
		{"Instances.AttachSecurityGroup", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.AttachSecurityGroup(ctx, "i-1", "sg-1"))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.AttachSecurityGroup(ctx, "i-1", ""))
			}, "security_groups.attach"},
		{"Instances.DetachSecurityGroup", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.DetachSecurityGroup(ctx, "i-1", "sg-1"))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.DetachSecurityGroup(ctx, "", "sg-1"))
			}, "instance_id"},

		{"Quotas.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Quotas.List(ctx)) },
			nil, ""},
		{"Reservations.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Reservations.List(ctx)) },
			nil, ""},
		{"Availability.Instances", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Availability.Instances(ctx, "r1", &AvailabilityOptions{Placement: "NONE"}))
			},
			func(ctx context.Context, c *Client) error { return noErr(c.Availability.Instances(ctx, "", nil)) }, "region"},
	}
}
