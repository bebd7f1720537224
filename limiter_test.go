package compute

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitTook is how long g.Wait blocked.
func waitTook(t *testing.T, g *gate) time.Duration {
	t.Helper()
	start := time.Now()
	require.NoError(t, g.Wait(context.Background()))
	return time.Since(start)
}

func TestGatePacesUnderTheTargetByTheHeadroom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		assert.Zero(t, waitTook(t, g))
		// 0.3% under 10 per second: 100.3 ms apart, never 100 ms.
		for range 20 {
			assert.Equal(t, 100300*time.Microsecond, waitTook(t, g).Round(100*time.Microsecond))
		}
	})
}

func TestA429RaisesTheHeadroomWhichDecays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		require.NoError(t, g.Wait(context.Background()))
		g.Throttled(context.Background(), time.Second)
		assert.InDelta(t, 10/1.033, float64(g.limiter.Limit()), 1e-9, "3 points more headroom")
		g.Throttled(context.Background(), time.Second)
		assert.InDelta(t, 10/1.033, float64(g.limiter.Limit()), 1e-9, "the 429s of one moment count once")
		time.Sleep(raiseEvery)
		g.Throttled(context.Background(), time.Second)
		g.mu.Lock()
		h := g.headroomAt(time.Now())
		g.mu.Unlock()
		assert.InDelta(t, 0.063, h, 1e-3, "a 429 a second later raises it again")

		time.Sleep(headroomHalfLife)
		require.NoError(t, g.Wait(context.Background()))
		assert.InDelta(t, 10/(1+minHeadroom+0.03), float64(g.limiter.Limit()), 0.01, "the extra headroom halves")
		time.Sleep(20 * headroomHalfLife)
		require.NoError(t, g.Wait(context.Background()))
		assert.InDelta(t, 10/(1+minHeadroom), float64(g.limiter.Limit()), 0.01, "and is gone after a while")
	})
}

func TestAPacingErrorPausesTheOthersOneInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		require.NoError(t, g.Wait(context.Background()))
		g.Throttled(context.Background(), time.Second)
		// One interval at the lowered pace (103.3 ms), not the second the refused request waits.
		assert.Equal(t, 103300*time.Microsecond, waitTook(t, g).Round(100*time.Microsecond))

		// A second 429 within the first's Retry-After: the budget is spent, everyone waits it out.
		g.Throttled(context.Background(), time.Second)
		assert.Equal(t, time.Second, waitTook(t, g).Round(time.Millisecond))

		// Once the Retry-After is over, a 429 is lone again.
		time.Sleep(2 * time.Second)
		g.Throttled(context.Background(), time.Second)
		assert.Less(t, waitTook(t, g), 200*time.Millisecond)

		// A longer Retry-After is not a pacing error: it is honoured at once.
		time.Sleep(2 * time.Second)
		g.Throttled(context.Background(), 3*time.Second)
		assert.Equal(t, 3*time.Second, waitTook(t, g).Round(time.Millisecond))
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

// TestCallersTakeTurnsAndEachWaitsFromTheLastGrant: a caller that comes late takes the token at
// once, and the next one is due an interval after that grant, not after a schedule made earlier.
func TestCallersTakeTurnsAndEachWaitsFromTheLastGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		interval := time.Duration(float64(time.Second) / float64(g.limiter.Limit()))
		var mu sync.Mutex
		var grants []time.Time
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 5 {
					require.NoError(t, g.Wait(context.Background()))
					mu.Lock()
					grants = append(grants, time.Now())
					mu.Unlock()
					time.Sleep(250 * time.Millisecond) // the request, then the caller's own work
				}
			})
		}
		wg.Wait()
		require.Len(t, grants, 40)
		for i := 1; i < len(grants); i++ {
			assert.GreaterOrEqual(t, grants[i].Sub(grants[i-1]), interval-time.Microsecond, "grants %d and %d", i-1, i)
		}
		// 40 grants, 8 callers busy 250 ms after each: the limiter is the bottleneck.
		assert.Less(t, grants[39].Sub(grants[0]), 40*interval)
	})
}

// TestStrictServerSeesFewRefusals drives 16 goroutines on one client against a server that refuses
// any request less than 100 ms after the one it last served (10 per second, no burst), with one
// request in 50 reaching it 1.5 ms late (as a busy machine or a network would make it). Within a
// minute the client keeps at least 0.95 of the rate and is refused once: the first late request
// makes the next one early by more than the 0.3% headroom, and the raised headroom covers the rest.
func TestStrictServerSeesFewRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var last time.Time
		var n, ok, refused int
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			n++
			late := n%50 == 10
			mu.Unlock()
			if late {
				time.Sleep(1500 * time.Microsecond)
			}
			mu.Lock()
			defer mu.Unlock()
			now := time.Now()
			if !last.IsZero() && now.Sub(last) < 100*time.Millisecond {
				refused++
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			last = now
			ok++
			w.WriteHeader(http.StatusNoContent)
		}, WithRateLimit(10, 1), WithRetry(RetryPolicy{MaxRetries: 10}))
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
		mu.Lock()
		defer mu.Unlock()
		assert.GreaterOrEqual(t, float64(ok), 0.95*600, "served %d, refused %d", ok, refused)
		assert.Equal(t, 1, refused)
	})
}
