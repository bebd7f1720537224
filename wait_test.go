package compute

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of wait.go, the poller behind every WaitForStatus: most through the instance's waiter, those
// that differ by resource across every waiter. A resource's own statuses and fields are in its file
// (the floating IP's address, the security group's missing status, WaitForDeletion's 404).

func TestInstanceWaitSucceedsAfterPolls(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("creating", "creating", "starting", "active")
		c, rec := newTestClient(t, srv.handle)
		var seen []InstanceStatus
		inst, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive,
			OnUpdate(func(i *Instance) { seen = append(seen, i.Status) }))
		require.NoError(t, err)
		require.NotNil(t, inst)
		assert.Equal(t, InstanceStatusActive, inst.Status)
		assert.Equal(t, "i-1", inst.ID)
		assert.Equal(t, 4, rec.count())
		for _, r := range rec.all() {
			assert.Equal(t, "GET", r.Method)
			assert.Equal(t, "/compute/v1/instances/i-1", r.Path)
		}
		assert.Equal(t, []InstanceStatus{"creating", "creating", "starting", "active"}, seen)
	})
}

func TestInstanceWaitFirstPollAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("active")
		c, rec := newTestClient(t, srv.handle)
		_, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive)
		require.NoError(t, err)
		assert.Equal(t, 1, rec.count())
		assert.Equal(t, []time.Duration{0}, srv.times())
	})
}

// With equal poll bounds the backoff has no room for jitter, so the poll times are exact.
func TestInstanceWaitPollInterval(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("starting", "starting", "active")
		c, _ := newTestClient(t, srv.handle)
		_, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive,
			WithPollInterval(2*time.Second, 2*time.Second))
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{0, 2 * time.Second, 4 * time.Second}, srv.times())
	})
}

func TestInstanceWaitFailureStatus(t *testing.T) {
	t.Parallel()
	for _, status := range []InstanceStatus{InstanceStatusError, InstanceStatusDeleting} {
		t.Run(string(status), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newStatusServer(string(status))
				c, rec := newTestClient(t, srv.handle)
				inst, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive)
				require.Error(t, err)
				assert.Equal(t, 1, rec.count())
				assert.ErrorIs(t, err, ErrFailureStatus)
				var werr *WaitError
				require.ErrorAs(t, err, &werr)
				assert.Equal(t, string(status), werr.LastStatus)
				assert.Equal(t, "instance", werr.Resource)
				assert.Equal(t, "i-1", werr.ID)
				assert.Equal(t, "active", werr.Target)
				assert.Equal(t, 1, werr.Polls)
				require.NotNil(t, inst, "the failed instance is returned with the error")
				assert.Equal(t, status, inst.Status)
			})
		})
	}
}

// A failure status that is itself the target ends the wait in success.
func TestInstanceWaitForFailureStatusAsTarget(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("active", "deleting")
		c, rec := newTestClient(t, srv.handle)
		inst, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusDeleting)
		require.NoError(t, err)
		assert.Equal(t, InstanceStatusDeleting, inst.Status)
		assert.Equal(t, 2, rec.count())
	})
}

func TestInstanceWaitForbiddenEndsAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("403")
		c, rec := newTestClient(t, srv.handle)
		inst, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive)
		require.Error(t, err)
		assert.Nil(t, inst)
		assert.ErrorIs(t, err, ErrForbidden)
		assert.Equal(t, 1, rec.count())
	})
}

func TestInstanceWaitDeadline(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("starting")
		c, rec := newTestClient(t, srv.handle)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		inst, err := c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		require.Error(t, err)
		assert.Nil(t, inst)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		var werr *WaitError
		require.ErrorAs(t, err, &werr)
		assert.Equal(t, "starting", werr.LastStatus)
		assert.Contains(t, err.Error(), "starting")
		assert.Equal(t, rec.count(), werr.Polls)
		assert.Greater(t, werr.Polls, 2)
		assert.Equal(t, 30*time.Second, time.Since(start), "the wait ends with the context, not later")
	})
}

func TestInstanceWaitUnknownStatusKeepsWaiting(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("migrating", "migrating", "shutoff", "active")
		c, rec := newTestClient(t, srv.handle)
		inst, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive)
		require.NoError(t, err)
		assert.Equal(t, InstanceStatusActive, inst.Status)
		assert.Equal(t, 4, rec.count())
	})
}

// Without transport retries, a 503 reaches the poller, which polls through it.
func TestInstanceWaitPollsThroughServiceUnavailable(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newStatusServer("starting", "503", "503", "active")
		c, rec := newTestClient(t, srv.handle, WithoutRetries())
		inst, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive)
		require.NoError(t, err)
		assert.Equal(t, InstanceStatusActive, inst.Status)
		assert.Equal(t, 4, rec.count())
	})
}

func TestInstanceWaitBadOptions(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		opts   []WaitOption
		target InstanceStatus
		field  string
	}{
		"zero interval":       {[]WaitOption{WithPollInterval(0, time.Second)}, InstanceStatusActive, "poll_interval"},
		"min above max":       {[]WaitOption{WithPollInterval(5*time.Second, time.Second)}, InstanceStatusActive, "poll_interval"},
		"callback wrong type": {[]WaitOption{OnUpdate(func(*Snapshot) {})}, InstanceStatusActive, "on_update"},
		"empty target":        {nil, "", "status"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				c, rec := newTestClient(t, newStatusServer("active").handle)
				inst, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", tc.target, tc.opts...)
				assert.Nil(t, inst)
				requireInvalid(t, err, tc.field, rec)
			})
		})
	}
}

// A context that has already ended sends nothing the service could act on, and says why.
func TestInstanceWaitCanceledContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, newStatusServer("active").handle)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		require.Error(t, err)
		assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	})
}

// An response the SDK cannot use (here one without the instance) is no reason to keep polling: the
// wait ends at once with that error instead of running to the deadline.
func TestInstanceWaitEndsAtOnceOnAnUnusableResponse(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, 200, `{}`) })
		start := time.Now()
		_, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive)
		require.ErrorContains(t, err, `no "instance" object`)
		assert.Equal(t, 1, rec.count())
		assert.Zero(t, time.Since(start))
	})
}

// A wait that ends while the last poll failed says what the failure was.
func TestInstanceWaitDeadlineKeepsTheLastPollError(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, newStatusServer("starting", "503").handle, WithoutRetries())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		var werr *WaitError
		require.ErrorAs(t, err, &werr)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, "starting", werr.LastStatus)
		assert.ErrorIs(t, werr.LastErr, ErrServer)
		assert.Contains(t, err.Error(), "last poll failed")
	})
}

// WithMaxWait changes the bound; a context with a deadline is used as it is.
func TestWaitMaxWaitOption(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": "i-1", "status": "creating"}})
		})
		start := time.Now()
		_, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive, WithMaxWait(10*time.Minute))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 10*time.Minute, time.Since(start).Round(time.Minute))

		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
		defer cancel()
		start = time.Now()
		_, err = c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotContains(t, err.Error(), "default maximum")
		assert.Equal(t, 3*time.Hour, time.Since(start).Round(time.Minute), "the caller's deadline, not the default")

		_, err = c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive, WithMaxWait(0))
		require.ErrorIs(t, err, ErrInvalidRequest)
	})
}

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
