package compute

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// familyOperations are the operations of the extended contract, for the shared failure cases of
// TestEveryOperationThroughTheSharedFailureCases: each is called once with valid input and once
// with input it must refuse before sending, naming the JSON field.
func familyOperations() []opCase {
	badPage := &ListOptions{PerPage: 101}
	return []opCase{
		{"SSHKeys.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SSHKeys.Create(ctx, &SSHKeyCreateRequest{Name: "laptop", Value: "ssh-ed25519 AAAA"}))
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
				return noErr(c.Snapshots.Clone(ctx, "s-1", &SnapshotCloneRequest{Name: "copy", Region: "r2"}))
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

// Every create of the extended contract is a POST sent once: a response that is lost (the
// connection closes after the request), a 5xx, or a 201 whose body cannot be read all leave the
// outcome unknown, and nothing is sent again. The attach and detach forms of the instance update
// follow the same rule, since a repeat is not harmless ("already attached").
func TestFamilyCreatesAreNeverResent(t *testing.T) {
	t.Parallel()
	creates := map[string]func(context.Context, *Client) error{}
	for _, op := range familyOperations() {
		if !op.idempotent {
			creates[op.name] = op.call
		}
	}
	require.Len(t, creates, 9)
	faults := map[string]http.HandlerFunc{
		"connection closed after the request": func(w http.ResponseWriter, r *http.Request) { hangUp(w) },
		"503":                                 withStatus(http.StatusServiceUnavailable),
		"201 cut off":                         func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusCreated, `{"volume": {"id": "v-`) },
		"201 without the key":                 func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusCreated, `{}`) },
	}
	for name, call := range creates {
		for fault, serve := range faults {
			t.Run(name+"/"+fault, func(t *testing.T) {
				t.Parallel()
				c, rec := newTestClient(t, serve, WithRetry(RetryPolicy{MaxRetries: 3, MinWait: 1, MaxWait: 1}))
				err := call(context.Background(), c)
				require.ErrorIs(t, err, ErrOutcomeUnknown)
				assert.Equal(t, 1, rec.count(), "a POST that may have been processed is never re-sent")
				reqs := rec.all()
				assert.Contains(t, []string{http.MethodPost, http.MethodPatch}, reqs[0].Method)
			})
		}
	}
}
