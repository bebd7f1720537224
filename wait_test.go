package compute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
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

// A wait alone on a client with nothing else to send polls at its first interval, a second, for as
// long as it waits: each poll went out at once and delayed nobody.
func TestALoneWaitOnAnIdleClientPollsAtItsFirstInterval(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		statuses := slices.Repeat([]string{"creating"}, 20)
		srv := newStatusServer(append(statuses, "active")...)
		c, _ := newTestClient(t, srv.handle, WithRateLimit(10, 1))
		_, err := c.Instances.WaitForStatus(boundedCtx(t), "i-1", InstanceStatusActive)
		require.NoError(t, err)
		times := srv.times()
		require.Len(t, times, 21)
		for i, at := range times {
			assert.Equal(t, time.Duration(i)*time.Second, at, "poll %d", i)
		}
	})
}

// A wait alone while other callers keep the client's limiter full backs off, from 1-2 s to 15 s,
// as it would with nothing to tell it the rate has room.
func TestALoneWaitOnABusyClientBacksOff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var polls atomic.Int32
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/compute/v1/instances/i-1" {
				polls.Add(1)
			}
			replyJSON(w, http.StatusOK, map[string]any{"instance": map[string]any{"id": "i-1", "status": "creating"}})
		}, WithRateLimit(10, 1))
		stop := make(chan struct{})
		others := busyClient(c, 5, stop)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err := c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		close(stop)
		others.Wait()
		// Polls 1-2 s, 1-4 s, 1-8 s and then 1-15 s apart: about 17 in two minutes, never 120.
		assert.Less(t, int(polls.Load()), 40)
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
		c, rec := newTestClient(t, newStatusServer("active").handle)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		require.Error(t, err)
		assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
		assert.Zero(t, rec.count(), "nothing was sent")
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

// waiterCase is one resource's WaitForStatus, for the tests that hold for every waiter.
type waiterCase struct {
	// resource is the name a *WaitError gives it; key, its get response's envelope key.
	resource, key string
	id            string
	// settled is the status a new resource reaches, pending a status on the way there, and failures
	// the statuses that end a wait for another.
	settled, pending string
	failures         []string
	// wait waits for target and returns the status of the resource returned, nil for none.
	wait func(ctx context.Context, c *Client, id, target string) (*string, error)
}

// statusOf returns the status of a waiter's result, nil when it returned none.
func statusOf[T any, S ~string](res *T, err error, status func(*T) S) (*string, error) {
	if res == nil {
		return nil, err
	}
	s := string(status(res))
	return &s, err
}

func waiterCases() []waiterCase {
	return []waiterCase{
		{"instance", "instance", "i-1", "active", "starting", []string{"error", "deleting"},
			func(ctx context.Context, c *Client, id, target string) (*string, error) {
				i, err := c.Instances.WaitForStatus(ctx, id, InstanceStatus(target))
				return statusOf(i, err, func(i *Instance) InstanceStatus { return i.Status })
			}},
		{"volume", "volume", "v-1", "created", "creating", []string{"error", "pending_delete", "deleting"},
			func(ctx context.Context, c *Client, id, target string) (*string, error) {
				v, err := c.Volumes.WaitForStatus(ctx, id, VolumeStatus(target))
				return statusOf(v, err, func(v *Volume) VolumeStatus { return v.Status })
			}},
		{"filesystem", "filesystem", "fs-1", "created", "creating", []string{"error", "deleting"},
			func(ctx context.Context, c *Client, id, target string) (*string, error) {
				f, err := c.Filesystems.WaitForStatus(ctx, id, FilesystemStatus(target))
				return statusOf(f, err, func(f *Filesystem) FilesystemStatus { return f.Status })
			}},
		{"snapshot", "snapshot", "s-1", "created", "creating", []string{"error", "pending_delete", "deleting"},
			func(ctx context.Context, c *Client, id, target string) (*string, error) {
				s, err := c.Snapshots.WaitForStatus(ctx, id, SnapshotStatus(target))
				return statusOf(s, err, func(s *Snapshot) SnapshotStatus { return s.Status })
			}},
		{"security group", "security_group", "sg-1", "created", "creating", []string{"error", "deleting"},
			func(ctx context.Context, c *Client, id, target string) (*string, error) {
				g, err := c.SecurityGroups.WaitForStatus(ctx, id, SecurityGroupStatus(target))
				return statusOf(g, err, func(g *SecurityGroup) SecurityGroupStatus { return g.Status })
			}},
		{"floating IP", "floating_ip", "f-1", "created", "creating", []string{"error", "deleting"},
			func(ctx context.Context, c *Client, id, target string) (*string, error) {
				f, err := c.FloatingIPs.WaitForStatus(ctx, id, FloatingIPStatus(target))
				return statusOf(f, err, func(f *FloatingIP) FloatingIPStatus { return f.Status })
			}},
	}
}

// serve responds to the n-th get (from 1) with the resource in statuses[n-1], the last one repeated.
func (w waiterCase) serve(statuses ...string) http.HandlerFunc {
	var polls atomic.Int32
	return func(rw http.ResponseWriter, r *http.Request) {
		s := statuses[min(int(polls.Add(1)), len(statuses))-1]
		replyJSON(rw, http.StatusOK, map[string]any{w.key: map[string]any{"id": w.id, "status": s}})
	}
}

// Every waiter ends on each of its failure statuses, unless it is the target, with ErrFailureStatus:
// it returns the resource as last read and a *WaitError naming the resource, its ID, the target, the
// status and the polls; at once when the first poll shows it (no wait), and after polling through a
// transitional status when it comes later.
func TestWaitersEndOnAFailureStatus(t *testing.T) {
	t.Parallel()
	for _, w := range waiterCases() {
		for _, failure := range w.failures {
			for _, before := range []int{0, 2} {
				t.Run(fmt.Sprintf("%s/%s after %d polls", w.resource, failure, before), func(t *testing.T) {
					t.Parallel()
					synctest.Test(t, func(t *testing.T) {
						c, rec := newTestClient(t, w.serve(append(slices.Repeat([]string{w.pending}, before), failure)...))
						start := time.Now()
						status, err := w.wait(boundedCtx(t), c, w.id, w.settled)
						require.ErrorIs(t, err, ErrFailureStatus)
						var werr *WaitError
						require.ErrorAs(t, err, &werr)
						assert.Equal(t, w.resource, werr.Resource)
						assert.Equal(t, w.id, werr.ID)
						assert.Equal(t, w.settled, werr.Target)
						assert.Equal(t, failure, werr.LastStatus)
						assert.Equal(t, before+1, werr.Polls)
						require.NotNil(t, status, "the failed resource is returned with the error")
						assert.Equal(t, failure, *status)
						assert.Equal(t, before+1, rec.count())
						if before == 0 {
							assert.Zero(t, time.Since(start), "no wait after a failure status")
						}
					})
				})
			}
		}
	}
}

// A failure status that is itself the target ends the wait in success, whether the first poll shows
// it or comes after the settled status.
func TestWaitersSucceedOnAFailureStatusAsTarget(t *testing.T) {
	t.Parallel()
	for _, w := range waiterCases() {
		for _, failure := range w.failures {
			for _, statuses := range [][]string{{failure}, {w.settled, failure}} {
				t.Run(w.resource+"/"+strings.Join(statuses, ","), func(t *testing.T) {
					t.Parallel()
					synctest.Test(t, func(t *testing.T) {
						c, rec := newTestClient(t, w.serve(statuses...))
						status, err := w.wait(boundedCtx(t), c, w.id, failure)
						require.NoError(t, err)
						require.NotNil(t, status)
						assert.Equal(t, failure, *status)
						assert.Equal(t, len(statuses), rec.count())
					})
				})
			}
		}
	}
}

// A wait that its context ends returns no resource and a *WaitError that wraps the context's error,
// matches no failure status, and names the resource, the last status seen and the polls made; it
// ends when the context does, not later.
func TestWaitDeadlineNamesTheLastStatus(t *testing.T) {
	t.Parallel()
	for _, w := range waiterCases() {
		t.Run(w.resource, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				c, rec := newTestClient(t, w.serve(w.pending))
				// Between two polls (a second apart on an idle client), so that each poll sent
				// was answered.
				deadline := 30500 * time.Millisecond
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				start := time.Now()
				status, err := w.wait(ctx, c, w.id, w.settled)
				assert.Nil(t, status)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.NotErrorIs(t, err, ErrFailureStatus)
				var werr *WaitError
				require.ErrorAs(t, err, &werr)
				assert.Equal(t, w.resource, werr.Resource)
				assert.Equal(t, w.pending, werr.LastStatus)
				assert.Contains(t, err.Error(), `last status "`+w.pending+`"`)
				assert.Equal(t, rec.count(), werr.Polls)
				assert.Greater(t, werr.Polls, 2)
				assert.Equal(t, deadline, time.Since(start), "the wait ends with the context, not later")
			})
		})
	}
}

// TestAWaitPollsThroughARefusedOrResetConnection: a poll whose connection is refused or reset is
// not the wait's end: it polls again.
func TestAWaitPollsThroughARefusedOrResetConnection(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		n := 0
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			n++
			switch n {
			case 1:
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
			case 2:
				return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
			}
			body := `{"instance":{"id":"i-1","status":"active"}}`
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
		})
		c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}),
			WithoutRetries(), WithoutRateLimit())
		require.NoError(t, err)
		inst, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive)
		require.NoError(t, err)
		assert.Equal(t, InstanceStatusActive, inst.Status)
		assert.Equal(t, 3, n)
	})
}

// Every WaitOption is a DeleteOption, for the wait of DeleteAndWait.
var _ DeleteOption = WaitOption(nil)
