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
	"github.com/compute-sdk/compute-go/internal/latesend"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheFleetLearnsTheJitterItMeets: two processes share a budget in Redis (the real scripts, on
// the bubble's clock) against the fake enforcing 10 requests a second with no burst, and one
// request in 4 of each leaves 40 ms late: more than the quarter interval, 25 ms, that the pacing
// from responses waits for a late response, so often that the allowance for waiting longer runs
// out; the network holds them up, so the processes cannot tell from their writes. The 429s after
// the first widen the fleet's spacing until the late requests fit: a few come at first, each
// pausing the fleet for its Retry-After, and then none, however long the run.
func TestTheFleetLearnsTheJitterItMeets(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const run = time.Minute
		srv, id := strictServer(t)
		f := newFleet(t, newBubbleBudget(t, addr), 2, nil)
		start := time.Now()
		ok, refused := strictRunUnseen(t, srv, id, f.limiters, run, 40*time.Millisecond, 4, true)
		var late int
		for _, at := range refused {
			if at.Sub(start) >= run/2 {
				late++
			}
		}
		// Without the widening: 35 429s, 19 of them in the second half, and 237 served.
		assert.Zero(t, late, "429s in the second half of the run; %d in all, %d served", len(refused), ok)
		assert.LessOrEqual(t, len(refused), 6, "429s; served %d", ok)
		assert.GreaterOrEqual(t, ok, int64(0.7*fleetRate*run.Seconds()), "served; %d refused", len(refused))
	})
}

// TestTheFleetPacesLateRequests: the same fleet, each process sending some requests 60 ms late,
// paced from responses from the first request (WithResponsePacing) or not. No 429 comes, and each
// late request costs the fleet its lateness once. Without the option the fleet counts from each
// write, and no 429 turns the pacing from responses on.
//   - "a late response": one request in 80 of each process leaves late, as a loaded machine's
//     scheduler holds a process or the service now and then (past the quarter interval the pacing
//     from responses waited for at most). Each late request's response holds the next grant until
//     an interval after it, whichever process takes it. Before the allowance for late responses:
//     503 served and 6 refused.
//   - "a late write": one request in 4 of each process is written late (the goroutine waits for a
//     CPU before it writes), so often that the allowance for late responses would run out within
//     seconds. Each process reports how late its request was written with its response, and Redis
//     counts the next turn's hold from the write (counting from the turn instead: 7 refused and
//     395 served).
func TestTheFleetPacesLateRequests(t *testing.T) {
	for _, c := range []struct {
		name   string
		every  int64
		served float64 // the least share of the rate served
	}{
		{"a late response", 80, 0.95},
		{"a late write", 4, 0.8},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, paced := range []bool{false, true} {
				name := "from the first 429"
				if paced {
					name = "from the first request"
				}
				t.Run(name, func(t *testing.T) { // a prefix of its own: the bubble's clock starts alike
					bubble(t, func(t *testing.T, addr string) {
						const run = time.Minute
						srv, id := strictServer(t)
						var opts func(int) []ratelimit.Option
						if paced {
							opts = func(int) []ratelimit.Option { return []ratelimit.Option{ratelimit.WithResponsePacing()} }
						}
						f := newFleet(t, newBubbleBudget(t, addr), 2, opts)
						ok, refused := strictRun(t, srv, id, f.limiters, run, 60*time.Millisecond, c.every)
						assert.Empty(t, refused, "429s; served %d", ok)
						assert.GreaterOrEqual(t, ok, int64(c.served*fleetRate*run.Seconds()), "served; %d refused", len(refused))
					})
				})
			}
		})
	}
}

// TestAFleetsFirstRequestWrittenLateDrawsNo429: two processes start at once against a service that
// allows no burst, and the first's first request is written 40 ms past its turn (a process that
// waits for a CPU as it starts). Before any 429 the next grant counts from that write, so no 429
// comes at all: counting from the turn, the second process's first request would reach the
// service 60 ms after the late one.
func TestAFleetsFirstRequestWrittenLateDrawsNo429(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const run = 5 * time.Second
		srv, id := strictServer(t)
		f := newFleet(t, newBubbleBudget(t, addr), 2, nil)
		ok, refused := strictRunLate(t, srv, id, f.limiters, run, 2, false, func(i int) func(int64) time.Duration {
			return func(n int64) time.Duration {
				if i == 0 && n == 1 {
					return 40 * time.Millisecond
				}
				return 0
			}
		})
		assert.Empty(t, refused, "429s; served %d", ok)
		assert.GreaterOrEqual(t, ok, int64(0.9*fleetRate*run.Seconds()), "served")
	})
}

// TestALoneProcessOnItsFallbackWaitsForALateResponse: one process, Redis down from the start, its
// fallback pacing it alone, one request in 40 leaving 60 ms late: its own pacing from responses
// waits for each late response as compute.NewLimiter does, and no 429 comes but the first.
func TestALoneProcessOnItsFallbackWaitsForALateResponse(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const run = time.Minute
		srv, id := strictServer(t)
		b := newBubbleBudget(t, addr)
		b.kill()
		f := newFleet(t, b, 1, nil)
		ok, refused := strictRun(t, srv, id, f.limiters, run, 60*time.Millisecond, 40)
		assert.Len(t, refused, 1, "429s; served %d", ok)
		assert.GreaterOrEqual(t, ok, int64(0.95*fleetRate*run.Seconds()), "served; %d refused", len(refused))
	})
}

// strictServer starts the fake enforcing the fleet's rate with no burst, with one instance to read.
func strictServer(t *testing.T) (*computetest.Server, string) {
	srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithRateLimit(fleetRate, 1))
	t.Cleanup(srv.Close)
	inst, err := srv.Client().Instances.Create(context.Background(), &compute.InstanceCreateRequest{
		Name: "jitter-1", Hostname: "jitter-1", Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12",
		SSHKeys: []string{"key-ci"}})
	require.NoError(t, err)
	time.Sleep(time.Second)
	srv.ResetRequests()
	return srv, inst.ID
}

// strictRun reads instance id through each limiter, 4 callers a limiter, for run, one request in
// every of each limiter leaving late after its grant (those of two limiters half of every apart,
// so that the first late request arms the pacing from responses alone); it returns the reads served and when the
// server refused a request.
func strictRun(t *testing.T, srv *computetest.Server, id string, limiters []*ratelimit.Limiter, run time.Duration,
	late time.Duration, every int64) (ok int64, refused []time.Time) {
	return strictRunUnseen(t, srv, id, limiters, run, late, every, false)
}

// strictRunUnseen is strictRun with the late requests' lateness unseen by the client when unseen.
func strictRunUnseen(t *testing.T, srv *computetest.Server, id string, limiters []*ratelimit.Limiter, run time.Duration,
	late time.Duration, every int64, unseen bool) (ok int64, refused []time.Time) {
	return strictRunLate(t, srv, id, limiters, run, 4, unseen, func(i int) func(int64) time.Duration {
		// One request in every of each limiter late, the processes' late requests apart.
		return latesend.Every(every, ((every/2-int64(i)*every/2)%every+every)%every, late)
	})
}

// strictRunLate reads instance id through each limiter, callers goroutines a limiter, for run, the
// nth request of limiter i leaving lates(i)(n) late after its grant (unseen by the client when
// unseen); it returns the reads served and when the server refused a request.
func strictRunLate(t *testing.T, srv *computetest.Server, id string, limiters []*ratelimit.Limiter, run time.Duration,
	callers int, unseen bool, lates func(i int) func(int64) time.Duration) (ok int64, refused []time.Time) {
	ctx, cancel := context.WithTimeout(t.Context(), run)
	defer cancel()
	var served atomic.Int64
	var wg sync.WaitGroup
	for i, l := range limiters {
		lt := &latesend.Transport{Inner: srv.HTTPClient().Transport, Unseen: unseen, Late: lates(i)}
		c, err := compute.NewClient(srv.Token, compute.WithBaseURL(srv.URL), compute.WithLimiter(l),
			compute.WithHTTPClient(&http.Client{Transport: lt}))
		require.NoError(t, err)
		for range callers {
			wg.Go(func() {
				for ctx.Err() == nil {
					_, err := c.Instances.Get(ctx, id)
					switch {
					case err == nil:
						served.Add(1)
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
	for _, r := range srv.Requests() {
		if r.Status == http.StatusTooManyRequests {
			refused = append(refused, r.Time)
		}
	}
	t.Logf("served %d, refused %d", served.Load(), len(refused))
	return served.Load(), refused
}
