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

func TestNilContextIsRefusedNotAPanic(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, newStatusServer("active").handle)
	var nilCtx context.Context
	_, err := c.Instances.WaitForStatus(nilCtx, "i-1", InstanceStatusActive)
	requireInvalid(t, err, "ctx", rec)
	_, err = c.Instances.Get(nilCtx, "i-1")
	requireInvalid(t, err, "ctx", rec)
	yielded := 0
	for _, err := range c.Instances.All(nilCtx, nil) {
		requireInvalid(t, err, "ctx", rec)
		yielded++
	}
	assert.Equal(t, 1, yielded, "the walk yields the refusal once, then ends")
}

func TestInstanceWaitForDeletion(t *testing.T) {
	t.Parallel()
	t.Run("deleting, a 503, then 404 is success", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := newStatusServer("deleting", "503", "deleting", "404")
			c, rec := newTestClient(t, srv.handle)
			var seen []InstanceStatus
			err := c.Instances.WaitForDeletion(boundedCtx(t), "i-1",
				OnUpdate(func(i *Instance) { seen = append(seen, i.Status) }))
			require.NoError(t, err)
			assert.Equal(t, 4, rec.count())
			assert.Equal(t, []InstanceStatus{"deleting", "deleting"}, seen, "the 404 is not a poll result")
		})
	})
	t.Run("a 404 that is not 02008 ends it with that error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				replyJSON(w, http.StatusNotFound, map[string]string{"code": "02001", "message": "Invalid route"})
			})
			err := c.Instances.WaitForDeletion(boundedCtx(t), "i-1")
			require.ErrorIs(t, err, CodeInvalidRoute)
			assert.Equal(t, 1, rec.count())
		})
	})
	t.Run("a 404 without a code is success", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusNotFound, "") })
			require.NoError(t, c.Instances.WaitForDeletion(boundedCtx(t), "i-1"))
		})
	})
	t.Run("a 403 ends it at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, rec := newTestClient(t, newStatusServer("deleting", "403").handle)
			err := c.Instances.WaitForDeletion(boundedCtx(t), "i-1")
			require.ErrorIs(t, err, ErrForbidden)
			assert.Equal(t, 2, rec.count())
		})
	})
	t.Run("the deadline names the last status", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := newTestClient(t, newStatusServer("deleting").handle)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := c.Instances.WaitForDeletion(ctx, "i-1")
			var we *WaitError
			require.ErrorAs(t, err, &we)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, "deleting", we.LastStatus)
			assert.Equal(t, "deleted", we.Target)
		})
	})
	t.Run("an empty ID is refused without a request", func(t *testing.T) {
		c, rec := newTestClient(t, newStatusServer("404").handle)
		var ve *ValidationError
		require.ErrorAs(t, c.Instances.WaitForDeletion(context.Background(), " "), &ve)
		assert.Equal(t, "instance_id", ve.Field)
		assert.Zero(t, rec.count())
	})
}
