package compute

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"path"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitFor waits for g to let an attempt go and returns the attempt's done.
func waitFor(t *testing.T, g *gate) func() {
	t.Helper()
	done, err := g.Wait(context.Background())
	if !assert.NoError(t, err) || done == nil { // assert: callers may be other goroutines
		return func() {}
	}
	return done
}

// waitTook is how long g.Wait blocked.
func waitTook(t *testing.T, g *gate) time.Duration {
	t.Helper()
	start := time.Now()
	waitFor(t, g)
	return time.Since(start)
}

func TestGatePacesUnderTheTargetByTheHeadroom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		assert.Zero(t, waitTook(t, g))
		// 0.3% under 10 per second: an interval of 100.3 ms, never 100 ms. With no burst each
		// request goes that interval and the margin after the last one: 101.8 ms apart.
		interval := 100300 * time.Microsecond
		assert.Equal(t, interval, g.interval().Round(100*time.Microsecond))
		spaced := time.Duration(float64(interval) * (1 + spacingMargin))
		for range 20 {
			assert.Equal(t, spaced.Round(100*time.Microsecond), waitTook(t, g).Round(100*time.Microsecond))
		}
	})
}

// TestTheFirst429OnlyArmsThePacingFromResponses: the first 429 does not hold the other callers
// (its own request waits its Retry-After in the retry policy); every later one pauses them all for
// its Retry-After, however short or long.
func TestTheFirst429OnlyArmsThePacingFromResponses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		waitFor(t, g)()
		g.Throttled(context.Background(), time.Second)
		assert.Equal(t, g.spaced(), waitTook(t, g), "an interval and the margin, not the Retry-After")

		g.Throttled(context.Background(), time.Second)
		assert.Equal(t, time.Second, waitTook(t, g).Round(time.Millisecond), "a later 429: everyone waits its Retry-After")
		time.Sleep(2 * time.Second)
		g.Throttled(context.Background(), 3*time.Second)
		g.Throttled(context.Background(), time.Second)
		assert.Equal(t, 3*time.Second, waitTook(t, g).Round(time.Millisecond), "a shorter pause never shortens a longer one")
	})
}

func TestWithoutRateLimitA429PausesForTheWholeRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(0, 1)
		assert.Zero(t, waitTook(t, g))
		g.Throttled(context.Background(), time.Second)
		assert.Equal(t, time.Second, waitTook(t, g), "no pacing to blame: the service's wait holds")
	})
}

// TestAShortDeadlineFailsAtOnceDuringAPause: a caller whose deadline ends before a pause does fails
// at once with ErrRateLimited, even while another caller waits the pause out holding the turn.
func TestAShortDeadlineFailsAtOnceDuringAPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		waitFor(t, g)()
		g.Throttled(context.Background(), time.Millisecond) // arms
		g.Throttled(context.Background(), 30*time.Second)   // pauses
		first := make(chan time.Time)
		go func() {
			waitFor(t, g)
			first <- time.Now()
		}()
		synctest.Wait() // the first caller sleeps out the pause
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := g.Wait(ctx)
		require.ErrorIs(t, err, ErrRateLimited)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Zero(t, time.Since(start), "at once, not at its deadline")
		assert.Equal(t, 30*time.Second, (<-first).Sub(start).Round(time.Millisecond))
	})
}

// TestCallersTakeTurnsOnTheSchedule: many callers, each busy after its grant, are granted at least an
// interval apart, and the limiter is what paces them.
func TestCallersTakeTurnsOnTheSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		var mu sync.Mutex
		var grants []time.Time
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 5 {
					waitFor(t, g)
					mu.Lock()
					grants = append(grants, time.Now())
					mu.Unlock()
					time.Sleep(250 * time.Millisecond) // the request, then the caller's own work
				}
			})
		}
		wg.Wait()
		require.Len(t, grants, 40)
		interval := 100300 * time.Microsecond
		for i := 1; i < len(grants); i++ {
			assert.GreaterOrEqual(t, grants[i].Sub(grants[i-1]), interval-time.Microsecond, "grants %d and %d", i-1, i)
		}
		assert.Less(t, grants[39].Sub(grants[0]), 40*interval, "the limiter is the bottleneck")
	})
}

// TestStrictServerSeesFewRefusals drives 16 goroutines on one client for a minute against a server
// that refuses any request less than 100 ms after the one it last served (10 per second, no
// burst), with some requests reaching it late (as a busy machine or a network would make them): a
// late request makes the next one look early to the server, by more than the headroom and the
// margin. The client is refused once: that 429 arms the pacing from responses, and no late request
// makes the next one early after that: each late response holds the next request until an interval
// and the margin after it, past the quarter interval while the waits that long take under their
// share of the time (a request 60 ms late now and then, as a loaded machine's scheduler makes them).
func TestStrictServerSeesFewRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every int           // one request in every
		late  time.Duration // is this late
		share float64       // the least share of the rate served
	}{
		{"3 ms late, one in 50", 50, 3 * time.Millisecond, 0.965}, // past the margin: refused once
		{"20 ms late, one in 10", 10, 20 * time.Millisecond, 0.935},
		{"24 ms late, one in 4", 4, 24 * time.Millisecond, 0.905}, // each costs its delay once
		{"60 ms late, one in 40", 40, 60 * time.Millisecond, 0.955},
		{"90 ms late, one in 100", 100, 90 * time.Millisecond, 0.965},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, refused := strictServerRun(t, tc.every, tc.late, 0)
			t.Logf("served %d, refused %d", ok, refused)
			assert.GreaterOrEqual(t, float64(ok), tc.share*600, "served %d, refused %d", ok, refused)
			assert.Equal(t, 1, refused)
		})
	}
}

// TestTheSpacingLearnsTheJitterItMeets: requests reach the strict server later than the quarter
// interval the pacing from responses waits for at most (40 ms late, one in 4, as on a loaded
// machine): each makes the next one early. The 429s after the first widen the spacing until the
// late requests fit, and then few come, however long the run.
func TestTheSpacingLearnsTheJitterItMeets(t *testing.T) {
	ok, refused := strictServerRun(t, 4, 40*time.Millisecond, 0)
	assert.LessOrEqual(t, refused, 8, "served %d", ok)
	assert.GreaterOrEqual(t, float64(ok), 0.70*600, "refused %d", refused) // 138 served and 46 refused, each pausing a second, without the widening
}

// TestSlowResponsesCostLittle: the strict server counts every request when it arrives, but one
// response in 2 comes 150 ms later (a slow endpoint). Waiting for each of them until an interval
// after it would lose a third of the rate; the waits past the quarter interval take their share of
// the time and no more, so the client keeps most of the rate, with no refusal but the first.
func TestSlowResponsesCostLittle(t *testing.T) {
	ok, refused := strictServerRun(t, 2, 0, 150*time.Millisecond)
	t.Logf("served %d, refused %d", ok, refused)
	assert.Equal(t, 1, refused)
	assert.GreaterOrEqual(t, float64(ok), 0.85*600, "served") // 399 if every late response held the next one
}

// TestTheMarginCoversJitterInWhenTheServerReads: the strict server reads each request a random
// 0 to 1 ms after it arrived, and answers it (served or refused) 1 ms after it arrived whatever
// that delay, so the round trip the client sees is always the same and tells nothing of when
// within it the server counted the request. Request 2 reaches it 30 ms late, so the next is
// refused: that arms the pacing from responses. From then on each request goes an interval and
// the margin after the response to the one before, less the round trip: after the write of the
// one before, which the server may have read up to 1 ms later than it reads this one. With an
// interval alone (and its 0.3 ms headroom) about one request in four would be refused, until a
// second 429 widened the spacing; the margin covers the jitter, and none is refused but the first.
func TestTheMarginCoversJitterInWhenTheServerReads(t *testing.T) {
	jitter := func(k int) time.Duration { // a random delay for the kth request, the same for each call
		return time.Duration(rand.New(rand.NewPCG(uint64(k), 1)).Int64N(int64(time.Millisecond) + 1))
	}
	read := func(k int) time.Duration {
		if k == 2 {
			return 30 * time.Millisecond
		}
		return jitter(k)
	}
	answer := func(k int, _ bool) time.Duration { return max(0, time.Millisecond-read(k)) }
	ok, refused := strictServe(t, read, answer)
	t.Logf("served %d, refused %d", ok, refused)
	assert.Equal(t, 1, refused, "refusals, the one that arms the pacing from responses included; served %d", ok)
	assert.GreaterOrEqual(t, float64(ok), 0.965*600, "served; refused %d", refused)
}

// strictServerRun is one run of TestStrictServerSeesFewRefusals: how many requests the server
// served and refused in a minute. One request in every reaches the server late, or, with slow,
// has its response that much later than the others (the server counted it when it arrived). opts
// are the client's further options.
func strictServerRun(t *testing.T, every int, late, slow time.Duration, opts ...Option) (ok, refused int) {
	isLate := func(k int) bool { return k%every == every/2 }
	read := func(k int) time.Duration {
		switch {
		case isLate(k):
			return late
		case k == 6 && slow > 0: // late, so that the next is refused: that arms the pacing from responses (on
			// a reused connection: after one on a new connection, the next waits for the response)
			return 30 * time.Millisecond
		}
		return 0
	}
	answer := func(k int, served bool) time.Duration {
		if served && isLate(k) {
			return slow
		}
		return 0
	}
	return strictServe(t, read, answer, opts...)
}

// strictServe drives 16 goroutines on one client for a minute against a server that refuses any
// request it reads less than 100 ms after the one it last served (10 per second, no burst): how
// many it served and refused. The server reads the kth request to reach it read(k) after it
// arrived, and answers it answer(k, served) after it read it. opts are the client's further
// options.
func strictServe(t *testing.T, read func(k int) time.Duration, answer func(k int, served bool) time.Duration,
	opts ...Option) (ok, refused int) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var last time.Time
		n := 0
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			n++
			k := n
			mu.Unlock()
			time.Sleep(read(k))
			mu.Lock()
			now := time.Now()
			if !last.IsZero() && now.Sub(last) < 100*time.Millisecond {
				refused++
				mu.Unlock()
				time.Sleep(answer(k, false))
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			last = now
			ok++
			mu.Unlock()
			time.Sleep(answer(k, true))
			w.WriteHeader(http.StatusNoContent)
		}, append([]Option{WithRateLimit(10, 1), WithRetry(RetryPolicy{MaxRetries: 10})}, opts...)...)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				// A wait that would outlast the deadline fails at once: stop there.
				for !errors.Is(testCall(ctx, c, opGetInstance, []string{"i"}, nil), context.DeadlineExceeded) {
				}
			})
		}
		wg.Wait()
	})
	return ok, refused
}

// TestPacingFromResponses: once a 429 armed it, the next attempt goes an interval and the margin
// after the previous attempt's response, less the shortest round trip, but at most a quarter of an
// interval past its due time; for a later response, up to an interval past its due time while the
// waits past the quarter interval have taken under PacingHoldShare of the time (a slow endpoint,
// or lost responses, then hold the next attempt about a quarter interval again). Only the last
// attempt's response counts.
func TestPacingFromResponses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		interval, spaced := g.interval(), g.spaced()
		done := waitFor(t, g)
		time.Sleep(2 * time.Millisecond)
		done() // the shortest round trip: 2 ms
		g.Throttled(context.Background(), time.Second)
		time.Sleep(time.Second)

		done = waitFor(t, g)
		time.Sleep(20 * time.Millisecond) // a response 20 ms after the attempt left
		done()
		took, done := waitDone(t, g)
		assert.Equal(t, spaced-2*time.Millisecond, took,
			"an interval and the margin after the response less the shortest round trip, not after the grant")

		time.Sleep(60 * time.Millisecond) // a late response, as for a request that reached the service late
		done()
		took, _ = waitDone(t, g) // its response never comes
		assert.Equal(t, spaced-2*time.Millisecond, took,
			"an interval and the margin after the late response too: 34 ms past the quarter interval")

		// The next waits for the lost response what is left of the allowance (75 ms less 34 ms, and
		// the share of the time since), then a quarter interval past its due time and the share.
		assert.Equal(t, 168*time.Millisecond, waitTook(t, g).Round(time.Millisecond))
		assert.Equal(t, 127*time.Millisecond, waitTook(t, g).Round(time.Millisecond))

		// After a minute without late responses, the allowance is whole again. A response to an
		// attempt that is not the last one let go anchors nothing.
		time.Sleep(time.Minute)
		stale := waitFor(t, g)
		took, latest := waitDone(t, g)
		assert.Equal(t, interval+interval, took.Round(time.Microsecond), "an interval past its due time at most")
		time.Sleep(time.Millisecond)
		stale()
		assert.Equal(t, 126*time.Millisecond, waitTook(t, g).Round(time.Millisecond), "still held for the last one's response")
		latest()
	})
}

// waitDone is how long g.Wait blocked, and the attempt's done.
func waitDone(t *testing.T, g *gate) (time.Duration, func()) {
	t.Helper()
	start := time.Now()
	done := waitFor(t, g)
	return time.Since(start), done
}

// TestAWaitForAResponseDoesNotFailEarly: a caller whose deadline comes before the end of the hold
// for the previous response is not refused at once, since the response usually ends the hold
// early; it goes an interval and the margin after the response.
func TestAWaitForAResponseDoesNotFailEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		done := waitFor(t, g)
		time.Sleep(time.Millisecond)
		done() // the shortest round trip: 1 ms
		g.Throttled(context.Background(), time.Millisecond)
		time.Sleep(time.Second)

		done = waitFor(t, g)
		go func() {
			time.Sleep(5 * time.Millisecond)
			done()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 110*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := g.Wait(ctx)
		require.NoError(t, err, "the hold (125 ms) is longer than the deadline, but the response comes at 5 ms")
		assert.Equal(t, 5*time.Millisecond+g.spaced()-time.Millisecond, time.Since(start))
	})
}

// TestPacingFromResponsesIsOffUntilA429: without a 429 the response does not pace: with no burst
// and no word of the write, the next attempt is due an interval and the margin after the grant,
// however late the response.
func TestPacingFromResponsesIsOffUntilA429(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		done := waitFor(t, g)
		time.Sleep(30 * time.Millisecond)
		done()
		assert.Equal(t, g.spaced()-30*time.Millisecond, waitTook(t, g), "an interval and the margin after the grant")
	})
}

// countingLimiter lets every attempt go at once and counts the waits and the dones called.
type countingLimiter struct{ waits, dones atomic.Int64 }

func (l *countingLimiter) Wait(context.Context) (func(), error) {
	l.waits.Add(1)
	return func() { l.dones.Add(1) }, nil
}

func (l *countingLimiter) Throttled(context.Context, time.Duration) {}

// TestTheClientReportsEachResponseToItsLimiter: the client calls an attempt's done once its
// response arrived, whatever its status, and not for an attempt that got no response.
func TestTheClientReportsEachResponseToItsLimiter(t *testing.T) {
	lim := &countingLimiter{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch path.Base(r.URL.Path) {
		case "abort":
			panic(http.ErrAbortHandler) // the connection closes without a response
		case "missing":
			w.WriteHeader(http.StatusNotFound)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}, WithLimiter(lim), WithoutRetries())
	ctx := context.Background()
	get := func(which string) error {
		return testCall(ctx, c, opGetInstance, []string{which}, nil)
	}
	require.NoError(t, get("ok"))
	require.NoError(t, get("ok"))
	assert.Equal(t, int64(2), lim.dones.Load())
	require.Error(t, get("missing"))
	assert.Equal(t, int64(3), lim.dones.Load(), "a 404 is a response")
	require.Error(t, get("abort"))
	assert.Equal(t, int64(4), lim.waits.Load())
	assert.Equal(t, int64(3), lim.dones.Load(), "no response, no done")
}

// TestThePacingFromResponsesLastsAndTheWideningNarrowsBack: once a 429 turned it on, the pacing
// from responses stays on (an hour later, a grant still waits for the last response), and no number
// of 429s slows the schedule for good: an hour later it runs at the rate less its headroom again.
func TestThePacingFromResponsesLastsAndTheWideningNarrowsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		waitFor(t, g)()
		for range 50 {
			g.Throttled(context.Background(), time.Millisecond)
			time.Sleep(time.Second)
		}
		time.Sleep(time.Hour)
		waitFor(t, g) // no response to it ever comes
		assert.Equal(t, 2*100300*time.Microsecond, waitTook(t, g).Round(time.Microsecond), "still held for the last response, up to an interval past its due time")
		assert.InDelta(t, 10/(1+PacingHeadroom), float64(g.schedule.Limit()), 1e-9, "narrowed back to the headroom")
	})
}

// TestEachLater429WidensTheSpacing: the first 429 only arms; each later one widens the schedule's
// spacing by PacingWiden of an interval, up to PacingWidenMax, and the widening narrows back by
// PacingWiden for each PacingNarrow without a 429. With no burst, two grants in a row are that
// spacing and the margin apart.
func TestEachLater429WidensTheSpacing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		spacing := func() time.Duration { // between two grants in a row; no response is reported
			waitFor(t, g)
			return waitTook(t, g).Round(time.Millisecond)
		}
		widened := func(by float64) time.Duration { // the spacing widened by so many intervals, and the margin
			interval := float64(time.Second) / 10 * (1 + PacingHeadroom + by)
			return time.Duration(interval * (1 + spacingMargin)).Round(time.Millisecond)
		}
		waitFor(t, g)
		g.Throttled(context.Background(), time.Millisecond)
		assert.Equal(t, widened(0), spacing(), "the first 429 only arms")
		g.Throttled(context.Background(), time.Millisecond)
		assert.Equal(t, widened(0.05), spacing(), "a second one widens by 5 percent of an interval")
		g.Throttled(context.Background(), time.Millisecond)
		assert.Equal(t, widened(0.10), spacing(), "a third by 5 percent more")
		for range 20 {
			g.Throttled(context.Background(), time.Millisecond)
		}
		assert.Equal(t, widened(0.5), spacing(), "at most by half an interval")
		time.Sleep(PacingNarrow - 300*time.Millisecond) // since the last 429, with the grants above
		assert.Equal(t, widened(0.45), spacing(), "narrowed by 5 percent after PacingNarrow without a 429")
		time.Sleep(10 * PacingNarrow)
		assert.Equal(t, widened(0), spacing(), "and back to the headroom")
	})
}

// TestANilContextIsRefusedWithoutAPanic: the gate's Wait refuses a nil context with a
// *ValidationError naming ctx, and Throttled ignores a call with one; neither panics, and the gate
// goes on pacing as before.
func TestANilContextIsRefusedWithoutAPanic(t *testing.T) {
	for name, rps := range map[string]float64{"paced": 10, "off": 0} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate(rps, 1)
				var nilCtx context.Context
				var err error
				require.NotPanics(t, func() { _, err = g.Wait(nilCtx) })
				var verr *ValidationError
				require.ErrorAs(t, err, &verr)
				assert.Equal(t, "ctx", verr.Field)
				require.NotPanics(t, func() {
					g.Throttled(nilCtx, time.Second)
					g.Throttled(nilCtx, time.Second)
				})
				assert.Zero(t, waitTook(t, g), "the 429s of a nil context are ignored: no pause")
			})
		})
	}
}

// TestPaceFromResponsesPacesFromTheFirstRequest: a request answered 60 ms after its write (the
// service read it late, on a busy machine) holds the next one until an interval and the margin
// after that response, less the fastest round trip, from the first requests on with
// PaceFromResponses; without it, before any 429, the next one goes an interval and the margin
// after the write. With it, the first 429 pauses every caller for its Retry-After; without it, it
// only turns the pacing from responses on.
func TestPaceFromResponsesPacesFromTheFirstRequest(t *testing.T) {
	for _, paced := range []bool{false, true} {
		name := "from the first 429"
		if paced {
			name = "from the first request"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var opts []LimiterOption
				if paced {
					opts = append(opts, nil, PaceFromResponses())
				}
				l, err := NewLimiter(10, 1, opts...)
				require.NoError(t, err)
				g := l.(*gate)
				ctx := context.Background()
				// sent lets an attempt go, written at once on a reused connection and answered after
				// rtt; it returns how long the next attempt waited.
				sent := func(rtt time.Duration) time.Duration {
					time.Sleep(time.Second)
					n := &writeNote{}
					done, err := g.Wait(withWriteNote(ctx, n))
					require.NoError(t, err)
					n.fire(time.Now(), true, false)
					var wg sync.WaitGroup
					defer wg.Wait()
					wg.Go(func() {
						time.Sleep(rtt)
						done()
					})
					return waitTook(t, g)
				}
				sent(2 * time.Millisecond) // the fastest round trip
				took := sent(60 * time.Millisecond)
				if paced {
					assert.Equal(t, 60*time.Millisecond+g.spaced()-2*time.Millisecond, took,
						"an interval and the margin after the response, less the fastest round trip")
				} else {
					assert.Equal(t, g.spaced(), took, "an interval and the margin after the write")
				}
				time.Sleep(time.Second)
				g.Throttled(ctx, time.Second)
				if paced {
					assert.Equal(t, time.Second, waitTook(t, g), "the first 429 pauses")
				} else {
					assert.Zero(t, waitTook(t, g), "the first 429 only turns the pacing from responses on")
				}
			})
		})
	}
}
