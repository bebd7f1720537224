package compute

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every waiter that can meet "error" ends on it with ErrFailureStatus, returning the resource as
// last read; on the way there it polls through the transitional status.
func TestWaitersEndOnError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// key is the response's envelope key.
		key  string
		wait func(context.Context, *Client) (any, error)
	}{
		{"volume", "volume", func(ctx context.Context, c *Client) (any, error) {
			return c.Volumes.WaitForStatus(ctx, "v-1", VolumeStatusCreated)
		}},
		{"filesystem", "filesystem", func(ctx context.Context, c *Client) (any, error) {
			return c.Filesystems.WaitForStatus(ctx, "fs-1", FilesystemStatusCreated)
		}},
		{"snapshot", "snapshot", func(ctx context.Context, c *Client) (any, error) {
			return c.Snapshots.WaitForStatus(ctx, "s-1", SnapshotStatusCreated)
		}},
		{"security group", "security_group", func(ctx context.Context, c *Client) (any, error) {
			return c.SecurityGroups.WaitForStatus(ctx, "sg-1", SecurityGroupStatusCreated)
		}},
		{"floating IP", "floating_ip", func(ctx context.Context, c *Client) (any, error) {
			return c.FloatingIPs.WaitForStatus(ctx, "f-1", FloatingIPStatusCreated)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var polls atomic.Int32
				c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					status := "creating"
					if polls.Add(1) > 2 {
						status = "error"
					}
					replyJSON(w, http.StatusOK, map[string]any{tc.key: map[string]any{"id": "x-1", "status": status}})
				})
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				res, err := tc.wait(ctx, c)
				require.ErrorIs(t, err, ErrFailureStatus)
				var werr *WaitError
				require.ErrorAs(t, err, &werr)
				assert.Equal(t, "error", werr.LastStatus)
				assert.Equal(t, 3, werr.Polls)
				assert.Equal(t, tc.name, werr.Resource)
				assert.NotNil(t, res, "the failed resource is returned")
			})
		})
	}
}

// A wait for the failure status itself succeeds, and a wait for created ends on deleting.
func TestVolumeWaitTargets(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, serveJSON([]byte(`{"volume": {"id": "v-1", "status": "error"}}`)))
	v, err := c.Volumes.WaitForStatus(context.Background(), "v-1", VolumeStatusError)
	require.NoError(t, err)
	assert.Equal(t, VolumeStatusError, v.Status)

	c, _ = newTestClient(t, serveJSON([]byte(`{"volume": {"id": "v-1", "status": "deleting"}}`)))
	_, err = c.Volumes.WaitForStatus(context.Background(), "v-1", VolumeStatusCreated)
	require.ErrorIs(t, err, ErrFailureStatus)
}

// Each resource's not-found code is a typed constant that errors.Is matches, beside ErrNotFound.
func TestFamilyNotFoundCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code ErrorCode
		call func(context.Context, *Client) error
	}{
		{CodeSSHKeyNotFound, func(ctx context.Context, c *Client) error { return noErr(c.SSHKeys.Get(ctx, "k-1")) }},
		{CodeVolumeNotFound, func(ctx context.Context, c *Client) error { return noErr(c.Volumes.Get(ctx, "v-1")) }},
		{CodeSnapshotNotFound, func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.Get(ctx, "s-1")) }},
		{CodeSnapshotNotFound, func(ctx context.Context, c *Client) error {
			return noErr(c.Snapshots.Clone(ctx, "s-1", &SnapshotCloneRequest{Name: "c", Region: "r"}))
		}},
		{CodeInstanceNotFound, func(ctx context.Context, c *Client) error { return noErr(c.Instances.UserMetadata(ctx, "i-1")) }},
	}
	for _, tc := range cases {
		t.Run(string(tc.code), func(t *testing.T) {
			t.Parallel()
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				replyJSON(w, http.StatusNotFound, map[string]string{"code": string(tc.code), "message": "not found"})
			})
			err := tc.call(context.Background(), c)
			assert.ErrorIs(t, err, tc.code)
			assert.ErrorIs(t, err, ErrNotFound)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a 404 is a known outcome, even for a POST")
		})
	}
	// The relation rules refuse with their own codes.
	for _, code := range []ErrorCode{CodeAttachedVolumeNotDeletable, CodeVolumeInUse} {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusConflict, map[string]string{"code": string(code), "message": "attached"})
		})
		assert.ErrorIs(t, c.Volumes.Delete(context.Background(), "v-1"), code)
	}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusConflict, map[string]string{"code": "02016", "message": "in use"})
	})
	assert.ErrorIs(t, c.Snapshots.Delete(context.Background(), "s-1"), CodeSnapshotInUse)
}

// Values the SDK has no constant for decode and re-encode unchanged.
func TestFamilyUnknownEnumsRoundTrip(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, serveJSON([]byte(`{"volume": {"id": "v-1", "status": "migrating", "type": "nvme"}}`)))
	v, err := c.Volumes.Get(context.Background(), "v-1")
	require.NoError(t, err)
	assert.Equal(t, VolumeStatus("migrating"), v.Status)
	assert.Equal(t, VolumeType("nvme"), v.Type)

	c, _ = newTestClient(t, serveJSON([]byte(`{"filesystem": {"id": "fs-1", "status": "resizing", "type": "lustre"}}`)))
	f, err := c.Filesystems.Get(context.Background(), "fs-1")
	require.NoError(t, err)
	assert.Equal(t, FilesystemStatus("resizing"), f.Status)
	assert.Equal(t, FilesystemType("lustre"), f.Type)
}

// Validation names the JSON field and sends nothing.
func TestFamilyValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		v     validator
		field string
	}{
		"ssh key private":       {&SSHKeyCreateRequest{Name: "k", Value: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl"}, "value"},
		"ssh key no name":       {&SSHKeyCreateRequest{Value: "ssh-ed25519 AAAA"}, "name"},
		"volume bad type":       {&VolumeCreateRequest{Name: "v", Region: "r", Size: 1, Type: "nvme"}, "type"},
		"volume no region":      {&VolumeCreateRequest{Name: "v", Size: 1}, "region"},
		"volume shrink to zero": {&VolumeUpdateRequest{Size: Ptr(0)}, "size"},
		"volume empty update":   {&VolumeUpdateRequest{}, "request"},
		"filesystem no size":    {&FilesystemCreateRequest{Name: "f", Region: "r"}, "size"},
		"import bad os":         {&SnapshotImportRequest{Name: "s", Region: "r", Size: 1, URL: "https://x", OSType: "beos"}, "os_type"},
		"import no size":        {&SnapshotImportRequest{Name: "s", Region: "r", URL: "https://x"}, "size"},
		"clone no name":         {&SnapshotCloneRequest{Region: "r"}, "name"},
		"billing type":          {&InstanceCreateRequest{Name: "n", Hostname: "h", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"k"}, BillingType: "yearly"}, "billing_type"},
		"update reservation":    {&InstanceUpdateRequest{ReservationID: Ptr("")}, "reservation_id"},
		"attach both":           {&attachRequest{Volumes: &attachment{Attach: "a", Detach: "b"}}, "volumes"},
		"attach two keys":       {&attachRequest{Volumes: &attachment{Attach: "a"}, SecurityGroups: &attachment{Attach: "b"}}, "request"},
	}
	for name, tc := range cases {
		err := tc.v.Validate()
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, tc.field, ve.Field, name)
	}
	for _, b := range []BillingType{BillingTypeOnDemand, BillingTypePrepaidMonthly, BillingTypePrepaid3Month,
		BillingTypePrepaid6Month, BillingTypePrepaid12Month, BillingTypeReserved} {
		req := &InstanceCreateRequest{Name: "n", Hostname: "h", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"k"}, BillingType: b}
		assert.NoError(t, req.Validate(), b)
	}
}

// A waiter refuses an empty or unsafe ID as input, naming it as its path does, before anything
// else: even when the context has already ended, and without a request.
func TestWaitersRefuseABadIDFirst(t *testing.T) {
	t.Parallel()
	cases := []struct {
		field string
		wait  func(context.Context, *Client, string) error
	}{
		{"instance_id", func(ctx context.Context, c *Client, id string) error {
			return noErr(c.Instances.WaitForStatus(ctx, id, InstanceStatusActive))
		}},
		{"instance_id", func(ctx context.Context, c *Client, id string) error {
			return c.Instances.WaitForDeletion(ctx, id)
		}},
		{"volume_id", func(ctx context.Context, c *Client, id string) error {
			return noErr(c.Volumes.WaitForStatus(ctx, id, VolumeStatusCreated))
		}},
		{"filesystem_id", func(ctx context.Context, c *Client, id string) error {
			return noErr(c.Filesystems.WaitForStatus(ctx, id, FilesystemStatusCreated))
		}},
		{"snapshot_id", func(ctx context.Context, c *Client, id string) error {
			return noErr(c.Snapshots.WaitForStatus(ctx, id, SnapshotStatusCreated))
		}},
		{"security_group_id", func(ctx context.Context, c *Client, id string) error {
			return noErr(c.SecurityGroups.WaitForStatus(ctx, id, SecurityGroupStatusCreated))
		}},
		{"floating_ip_id", func(ctx context.Context, c *Client, id string) error {
			return noErr(c.FloatingIPs.WaitForStatus(ctx, id, FloatingIPStatusCreated))
		}},
	}
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range cases {
		for _, id := range []string{"", " ", "a/b", ".."} {
			for _, ctx := range []context.Context{context.Background(), ended} {
				var ve *ValidationError
				require.ErrorAs(t, tc.wait(ctx, c, id), &ve, "%s %q", tc.field, id)
				assert.Equal(t, tc.field, ve.Field, "%q", id)
			}
		}
	}
	assert.Zero(t, rec.count(), "no request is sent")
}
