package redis_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fleet on the bubble's clock: processes limiters at 10 per second on one fake budget
// (fakeredis_test.go), each with its own connection, as if in its own process, each with callers
// goroutines calling Wait. The bubble's clock starts on a whole second, so the recheck instants
// (the default period, 1 s) are the whole seconds of the run.

const fleetRate, fleetInterval = 10, time.Second / 10

// fleetGrant is one grant of a fleet's run: when, after the start, and to which process.
type fleetGrant struct {
	at      time.Duration
	process int
}

func (g fleetGrant) String() string { return fmt.Sprintf("%s (process %d)", g.at, g.process) }

// fleet is a run's limiters and connections.
type fleet struct {
	limiters []*ratelimit.Limiter
	conns    []*fakeRedis
}

// newFleet builds processes limiters on b, with opts(i) for the i-th. Call it inside the bubble.
func newFleet(t *testing.T, b *budget, processes int, opts func(i int) []ratelimit.Option) *fleet {
	f := &fleet{}
	for i := range processes {
		conn := b.fake()
		o := []ratelimit.Option{ratelimit.WithRate(fleetRate)}
		if opts != nil {
			o = append(o, opts(i)...)
		}
		l, err := ratelimit.New(conn, testToken, o...)
		require.NoError(t, err)
		f.limiters = append(f.limiters, l)
		f.conns = append(f.conns, conn)
	}
	return f
}

// run runs callers goroutines per limiter until run has passed since start, calling at (after
// start) each of events, and returns the grants in order.
func (f *fleet) run(t *testing.T, start time.Time, callers int, run time.Duration, events map[time.Duration]func()) []fleetGrant {
	for at, fn := range events {
		time.AfterFunc(time.Until(start.Add(at)), fn)
	}
	ctx, cancel := context.WithDeadline(t.Context(), start.Add(run))
	defer cancel()
	var mu sync.Mutex
	var grants []fleetGrant
	var wg sync.WaitGroup
	for i, l := range f.limiters {
		for range callers {
			wg.Go(func() {
				for {
					if err := wait(ctx, l); err != nil {
						assert.ErrorIs(t, err, context.DeadlineExceeded)
						return
					}
					mu.Lock()
					grants = append(grants, fleetGrant{time.Since(start), i})
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	slices.SortStableFunc(grants, func(a, b fleetGrant) int { return int(a.at - b.at) })
	return grants
}

// closeGrants returns the grants that come less than an interval after the one before.
func closeGrants(grants []fleetGrant) []string {
	var close []string
	for i := 1; i < len(grants); i++ {
		if grants[i].at-grants[i-1].at < fleetInterval {
			close = append(close, fmt.Sprintf("%s after %s", grants[i], grants[i-1]))
		}
	}
	return close
}

// between returns the grants from a to b (after the start).
func between(grants []fleetGrant, a, b time.Duration) []fleetGrant {
	var out []fleetGrant
	for _, g := range grants {
		if g.at >= a && g.at < b {
			out = append(out, g)
		}
	}
	return out
}

// TestTheFallbacksOfAFleetNeverFireTogether: 8 processes of 4 callers share a budget on Redis,
// which is killed 2.05 s in. On their default fallbacks, each process sends in its own slots: no
// two requests of the fleet, from the last ones Redis granted to the end, less than an interval
// apart, and every process keeps its share, about a slot in 8 (0.88 s), less the slot before each
// recheck instant.
func TestTheFallbacksOfAFleetNeverFireTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const processes, kill, run = 8, 2050 * time.Millisecond, 8 * time.Second
		b := newBudget()
		f := newFleet(t, b, processes, nil)
		grants := f.run(t, time.Now(), 4, run, map[time.Duration]func(){kill: b.kill})

		require.NotEmpty(t, between(grants, 0, kill), "Redis granted before it was killed")
		assert.Empty(t, closeGrants(grants), "requests of the fleet less than an interval apart")
		outage := between(grants, kill, run)
		perProcess := make([]int, processes)
		for _, g := range outage {
			perProcess[g.process]++
		}
		// 5.95 s of slots of 110 ms, one in 8 for each process: 6 or 7, less those in the
		// slot before the 6 recheck instants and in the guard after the failure.
		for i, n := range perProcess {
			assert.GreaterOrEqual(t, n, 5, "process %d's share of the outage: %v", i, perProcess)
		}
		assert.GreaterOrEqual(t, len(outage), 45, "the fleet's slots are used: %v", perProcess)
	})
}

// TestAFleetSwitchesWithoutCloseRequests: the same fleet, Redis killed about 2 s in (at ten
// points of an interval, whatever grants Redis reserved before) and restarted empty at 5.03 s:
// across both switches (Redis's last grants, the fallback's slots, the first grants of the
// restarted Redis at the recheck instant, 6 s) no two requests of the fleet go out less than an
// interval apart, and once back the fleet takes the whole rate from Redis.
func TestAFleetSwitchesWithoutCloseRequests(t *testing.T) {
	for kill := 2000 * time.Millisecond; kill < 2100*time.Millisecond; kill += 10 * time.Millisecond {
		t.Run(fmt.Sprint("killed at ", kill), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const restart, back, run = 5030 * time.Millisecond, 6 * time.Second, 9 * time.Second
				b := newBudget()
				f := newFleet(t, b, 8, nil)
				start := time.Now()
				grants := f.run(t, start, 4, run, map[time.Duration]func(){kill: b.kill, restart: b.restart})

				assert.Empty(t, closeGrants(grants), "requests of the fleet less than an interval apart")
				require.NotEmpty(t, between(grants, 0, kill), "Redis granted before it was killed")
				require.NotEmpty(t, between(grants, kill, restart), "the fallbacks granted during the outage")
				assert.Empty(t, between(grants, back-110*time.Millisecond, back), "nothing in the slot before the recheck")
				var redis []time.Duration
				for _, at := range b.Grants() {
					if d := at.Sub(start); d >= restart {
						redis = append(redis, d)
					}
				}
				require.NotEmpty(t, redis)
				assert.Equal(t, back, redis[0], "the restarted Redis's first grant is at the recheck instant")
				assert.Len(t, between(grants, back, run), len(redis), "every grant from then on is Redis's")
				assert.GreaterOrEqual(t, len(redis), 29, "at the rate, 3 s")
			})
		})
	}
}

// TestTheFallbackWaitsForRedissLastGrant: Redis dies just after it reserved a grant for one
// process (due a quarter interval later), and another process, idle until then, sees the failure
// first: its first fallback grant comes an interval (and the margin) after the reserved one, not
// in the next slot it owns. Redis dies at eight grants in turn, each a different point of the
// grid.
func TestTheFallbackWaitsForRedissLastGrant(t *testing.T) {
	for after := 10; after < 18; after++ {
		t.Run(fmt.Sprint("killed after grant ", after), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := newBudget()
				b.killAfter = after
				f := newFleet(t, b, 2, nil)
				busy, idle := f.limiters[0], f.limiters[1]
				start := time.Now()
				ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
				defer cancel()
				var wg sync.WaitGroup
				wg.Go(func() { // the busy process: 2 callers until the end
					grantTimes(ctx, t, []*ratelimit.Limiter{busy}, 2)
				})
				time.Sleep(50 * time.Millisecond)
				require.NoError(t, wait(ctx, idle), "the idle process learns the fleet from Redis")
				<-b.killed
				require.NoError(t, wait(ctx, idle), "then sees Redis fail first, and falls back")
				got := time.Since(start)
				due := b.Grants()[after-1].Sub(start)
				assert.GreaterOrEqual(t, got-due, fleetInterval, "the idle process's first fallback grant at %s, Redis's last at %s", got, due)
				wg.Wait() // the busy callers end at the deadline
			})
		})
	}
}

// TestCallersQueuedOnTheFallbackGoBackToRedis: 8 processes of 8 callers each, on the default
// fallback and on compute.NewLimiter at an eighth of the rate; Redis is killed 2.05 s in and
// restarted empty 3 s later. At the first recheck instant after the restart, 6 s, every process
// asks Redis, and the callers that were queued on the fallback are granted by Redis, at the
// rate: the fallback grants nothing from then on.
func TestCallersQueuedOnTheFallbackGoBackToRedis(t *testing.T) {
	for name, custom := range map[string]bool{"the default fallback": false, "compute.NewLimiter": true} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const processes, kill, restart, back, run = 8, 2050 * time.Millisecond, 5030 * time.Millisecond, 6 * time.Second, 9 * time.Second
				b := newBudget()
				var fallbacks []*recordingLimiter
				f := newFleet(t, b, processes, func(int) []ratelimit.Option {
					if !custom {
						return nil
					}
					inner, err := compute.NewLimiter(fleetRate/processes, 1)
					require.NoError(t, err)
					fallbacks = append(fallbacks, &recordingLimiter{inner: inner})
					return []ratelimit.Option{ratelimit.WithFallback(fallbacks[len(fallbacks)-1])}
				})
				start := time.Now()
				grants := f.run(t, start, 8, run, map[time.Duration]func(){kill: b.kill, restart: b.restart})

				for i, conn := range f.conns {
					var first time.Duration = -1
					for _, c := range conn.Calls("wait") {
						if d := c.At.Sub(start); d >= restart {
							first = d
							break
						}
					}
					assert.Equal(t, back, first, "process %d asks the restarted Redis at the recheck instant", i)
				}
				var redis int
				for _, at := range b.Grants() {
					if at.Sub(start) >= restart {
						redis++
					}
				}
				assert.Len(t, between(grants, back, run), redis, "every grant from the recheck on is Redis's")
				assert.GreaterOrEqual(t, redis, 29, "at the rate, 3 s")
				require.NotEmpty(t, between(grants, kill, restart), "the fallbacks granted during the outage")
				for i, fb := range fallbacks {
					require.NotEmpty(t, fb.Grants(), "process %d's fallback granted", i)
					for _, at := range fb.Grants() {
						assert.Less(t, at.Sub(start), back, "process %d's fallback granted after Redis came back", i)
					}
				}
			})
		})
	}
}
