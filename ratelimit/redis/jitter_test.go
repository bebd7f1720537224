package redis_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lateTransport sends one request in 4 late, after the limiter let it go: a loaded machine, or a
// jittery network, delivers it late, and it lands less than an interval before the next one.
type lateTransport struct {
	base http.RoundTripper
	late time.Duration
	n    atomic.Int64
}

func (t *lateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.n.Add(1)%4 == 2 {
		time.Sleep(t.late)
	}
	return t.base.RoundTrip(r)
}

// TestTheFleetLearnsTheJitterItMeets: two processes share a budget in Redis (the real scripts, on
// the bubble's clock) against the fake enforcing 10 requests a second with no burst, and one
// request in 4 of each leaves 40 ms late (more than the quarter interval, 25 ms, that the pacing
// from responses waits for a late response). The 429s after the first widen the fleet's spacing
// until the late requests fit: a few come at first, each pausing the fleet for its Retry-After,
// and then none, however long the run.
func TestTheFleetLearnsTheJitterItMeets(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const run = time.Minute
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithRateLimit(fleetRate, 1))
		t.Cleanup(srv.Close)
		inst, err := srv.Client().Instances.Create(context.Background(), &compute.InstanceCreateRequest{
			Name: "jitter-1", Hostname: "jitter-1", Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12",
			SSHKeys: []string{"key-ci"}})
		require.NoError(t, err)
		time.Sleep(time.Second)
		srv.ResetRequests()
		f := newFleet(t, newBubbleBudget(t, addr), 2, nil)
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), run)
		defer cancel()
		var ok atomic.Int64
		var wg sync.WaitGroup
		for _, l := range f.limiters {
			c, err := compute.NewClient(srv.Token, compute.WithBaseURL(srv.URL), compute.WithLimiter(l),
				compute.WithHTTPClient(&http.Client{Transport: &lateTransport{base: srv.HTTPClient().Transport, late: 40 * time.Millisecond}}))
			require.NoError(t, err)
			for range 4 {
				wg.Go(func() {
					for ctx.Err() == nil {
						_, err := c.Instances.Get(ctx, inst.ID)
						switch {
						case err == nil:
							ok.Add(1)
						case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
							return
						case !errors.Is(err, compute.ErrRateLimited):
							assert.NoError(t, err)
							return
						}
					}
				})
			}
		}
		wg.Wait()
		var refused, late int
		for _, r := range srv.Requests() {
			if r.Status == http.StatusTooManyRequests {
				refused++
				if r.Time.Sub(start) >= run/2 {
					late++
				}
			}
		}
		// Without the widening: 44 429s, 21 of them in the second half, and 157 served.
		assert.Zero(t, late, "429s in the second half of the run; %d in all, %d served", refused, ok.Load())
		assert.LessOrEqual(t, refused, 6, "429s; served %d", ok.Load())
		assert.GreaterOrEqual(t, ok.Load(), int64(0.7*fleetRate*run.Seconds()), "served; %d refused", refused)
	})
}
