package compute

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/compute-sdk/compute-go/internal/latesend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestARequestWrittenLateDelaysTheNext: one request in 4 is written 60 ms after the limiter let
// it go (a busy process: its goroutine waits for a CPU, or for a connection), and a strict server
// refuses any request arriving less than 100 ms after the one before. With no burst the next
// request goes an interval after the late one was written, so the server refuses none; counting
// from the turn instead, the first late request draws a 429, which turns the pacing from responses
// on, and the allowance for late responses runs out within seconds: more 429s follow.
func TestARequestWrittenLateDelaysTheNext(t *testing.T) {
	ok, refused := strictServerRun(t, 1, 0, 0, writingLate(latesend.Every(4, 2, 60*time.Millisecond)))
	t.Logf("served %d, refused %d", ok, refused)
	assert.Zero(t, refused, "refusals; served %d", ok)
	// Each late request costs its lateness once: 4 requests in 460 ms.
	assert.GreaterOrEqual(t, ok, int(0.85*600), "served; refused %d", refused)
}

// writingLate holds the client's requests back by late(n) between their turn and their write.
func writingLate(late func(n int64) time.Duration) Option {
	return func(c *config) error {
		hc := *c.httpClient
		hc.Transport = &latesend.Transport{Inner: hc.Transport, Late: late}
		c.httpClient = &hc
		return nil
	}
}

// TestTheNextRequestWaitsForTheLastOneToBeWritten: once the pacing from responses is on, an
// attempt that the limiter let go but that is not written yet holds the next one (up to a
// second), which then goes an interval and the margin after that write, less the fastest round
// trip; an attempt that ends with no word of a write (a transport without the trace hooks) holds
// nobody.
func TestTheNextRequestWaitsForTheLastOneToBeWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		ctx := context.Background()
		g.Throttled(ctx, time.Second) // the first 429 turns the pacing from responses on
		// One attempt written at once, answered 2 ms later: the fastest round trip.
		n0 := &writeNote{}
		done, err := g.Wait(withWriteNote(ctx, n0))
		require.NoError(t, err)
		n0.fire(time.Now(), true, false)
		time.Sleep(2 * time.Millisecond)
		done()
		time.Sleep(time.Second)

		n1 := &writeNote{}
		done, err = g.Wait(withWriteNote(ctx, n1))
		require.NoError(t, err)
		go func() {
			time.Sleep(300 * time.Millisecond) // written late
			n1.fire(time.Now(), true, false)
			time.Sleep(2 * time.Millisecond)
			done()
		}()
		took := waitTook(t, g)
		assert.Equal(t, 300*time.Millisecond+2*time.Millisecond+g.spaced()-2*time.Millisecond, took,
			"the next attempt waited for the write, then an interval and the margin after it less the round trip")

		// A transport that never says when it wrote: the attempt's end frees the next one, and the
		// gate still waits for writes it is told of.
		time.Sleep(time.Second)
		n2 := &writeNote{}
		done, err = g.Wait(withWriteNote(ctx, n2))
		require.NoError(t, err)
		go func() {
			time.Sleep(2 * time.Millisecond)
			done()
			n2.fire(time.Time{}, false, false)
		}()
		assert.Equal(t, g.spaced(), waitTook(t, g), "an attempt with no word of its write, answered at once")

		// A write that never comes holds the next attempt a second at most.
		time.Sleep(time.Second)
		_, err = g.Wait(withWriteNote(ctx, &writeNote{}))
		require.NoError(t, err)
		took = waitTook(t, g)
		assert.GreaterOrEqual(t, took, writeWaitMax)
		assert.Less(t, took, writeWaitMax+2*g.interval())
	})
}

// TestWithNoBurstTheScheduleCountsFromTheLastWrite: before any 429, a limiter with a burst of one
// lets the next request go an interval and the margin after the last one was written; with a burst
// of two, the schedule alone paces (a late write takes nothing from the burst).
func TestWithNoBurstTheScheduleCountsFromTheLastWrite(t *testing.T) {
	for _, burst := range []int{1, 2} {
		synctest.Test(t, func(t *testing.T) {
			g := newGate(10, burst)
			ctx := context.Background()
			n0 := &writeNote{}
			_, err := g.Wait(withWriteNote(ctx, n0))
			require.NoError(t, err)
			n0.fire(time.Now(), true, false) // the client tells when it writes
			time.Sleep(time.Second)

			n1 := &writeNote{}
			_, err = g.Wait(withWriteNote(ctx, n1))
			require.NoError(t, err)
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() {
				time.Sleep(30 * time.Millisecond)
				n1.fire(time.Now(), true, false)
			})
			took := waitTook(t, g)
			if burst == 1 {
				assert.Equal(t, 30*time.Millisecond+g.spaced(), took, "an interval and the margin after the late write")
			} else {
				assert.Zero(t, took, "the burst's second request")
			}
		})
	}
}

// TestARequestOnANewConnectionHoldsTheNextUntilItsResponse: the service reads a request written
// on a new connection only once it has accepted the connection, which on a busy machine is many
// milliseconds after the write, so an interval after the write may be less than one after the
// service counted it. With no burst the next request then waits for the response and an
// interval and the margin after it, at most PacingHoldLate of an interval past its due time; after
// a request on a reused connection, an interval and the margin after the write suffice. This holds
// before any 429 (a fresh process's first requests) as after it.
func TestARequestOnANewConnectionHoldsTheNextUntilItsResponse(t *testing.T) {
	for _, armed := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			g := newGate(10, 1)
			ctx := context.Background()
			if armed {
				g.Throttled(ctx, time.Second)
				time.Sleep(time.Second)
			}
			interval, spaced := g.interval(), g.spaced()
			// sent lets an attempt go, written at once (on a new connection or not) and answered
			// after rtt (never, for rtt < 0); it returns how long the next attempt waited.
			sent := func(fresh bool, rtt time.Duration) time.Duration {
				time.Sleep(time.Second)
				n := &writeNote{}
				done, err := g.Wait(withWriteNote(ctx, n))
				require.NoError(t, err)
				n.fire(time.Now(), true, fresh)
				var wg sync.WaitGroup
				defer wg.Wait()
				if rtt >= 0 {
					wg.Go(func() {
						time.Sleep(rtt)
						done()
					})
				}
				return waitTook(t, g)
			}
			assert.Equal(t, 30*time.Millisecond+spaced, sent(true, 30*time.Millisecond),
				"an interval and the margin after the response to the request on a new connection")
			most := interval + time.Duration(PacingHoldLate*float64(interval))
			assert.Equal(t, most, sent(true, 150*time.Millisecond), "a later response: PacingHoldLate past its due time")
			assert.Equal(t, most, sent(true, -1), "no response: PacingHoldLate past its due time")
			if !armed {
				assert.Equal(t, spaced, sent(false, 30*time.Millisecond),
					"on a reused connection: an interval and the margin after the write")
			}
		})
	}
}

// TestTheTransportTellsWhetherARequestWentOnANewConnection: the first request of a client opens
// a connection; the next, sent after the first was answered, reuses it.
func TestTheTransportTellsWhetherARequestWentOnANewConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var fresh []bool
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusOK, map[string]any{"instance": map[string]any{"id": "a", "status": "active"}})
		}, WithLimiter(limiterFunc(func(ctx context.Context) (func(), error) {
			writeNoteOf(ctx).on(func(_ time.Time, traced, f bool) {
				mu.Lock()
				defer mu.Unlock()
				if traced {
					fresh = append(fresh, f)
				}
			})
			return nil, nil
		})))
		for range 2 {
			_, err := c.Instances.Get(context.Background(), "a")
			require.NoError(t, err)
		}
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, []bool{true, false}, fresh)
	})
}

// TestOnWrittenTellsALimiterOfAnotherPackageWhenAndOnWhichConnection: a limiter that is not the
// package's own learns through OnWritten when each request was written, after its grant, and
// whether on a new connection; a context that is not a client's attempt, or no function, gets no
// word.
func TestOnWrittenTellsALimiterOfAnotherPackageWhenAndOnWhichConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var fresh []bool
		var grants, writes []time.Time
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusOK, map[string]any{"instance": map[string]any{"id": "a", "status": "active"}})
		}, WithLimiter(limiterFunc(func(ctx context.Context) (func(), error) {
			mu.Lock()
			grants = append(grants, time.Now())
			mu.Unlock()
			require.True(t, OnWritten(ctx, func(at time.Time, newConn bool) {
				mu.Lock()
				defer mu.Unlock()
				writes, fresh = append(writes, at), append(fresh, newConn)
			}))
			return nil, nil
		})))
		for range 2 {
			_, err := c.Instances.Get(context.Background(), "a")
			require.NoError(t, err)
			time.Sleep(time.Second)
		}
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, []bool{true, false}, fresh, "a new connection, then the same")
		require.Len(t, writes, 2)
		for i := range writes {
			assert.False(t, writes[i].Before(grants[i]), "written after its grant")
		}
		assert.False(t, OnWritten(context.Background(), func(time.Time, bool) {}), "not a client's attempt")
		assert.False(t, OnWritten(withWriteNote(context.Background(), &writeNote{}), nil), "no function")
	})
}

// TestTheFirstRequestWrittenLateDelaysTheSecond: a process's first request is the one most often
// written late (a new connection, goroutines waiting for a CPU at start). Before any request has
// said whether the client tells its writes, the second waits for the first's word, then goes an
// interval and the margin after the write (on a reused connection) or the response (on a new
// one). A client that never tells (no trace hooks) waits for nothing after the first attempt's
// end: the schedule alone paces, an interval after the grant.
func TestTheFirstRequestWrittenLateDelaysTheSecond(t *testing.T) {
	interval, spaced := 100300*time.Microsecond, newGate(10, 1).spaced()
	for _, c := range []struct {
		name          string
		traced, fresh bool
		want          time.Duration
	}{
		{"written late on a reused connection", true, false, 40*time.Millisecond + spaced},
		{"written late on a new connection, answered 5 ms later", true, true, 45*time.Millisecond + spaced},
		{"no word of the write", false, false, interval},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate(10, 1)
				ctx := context.Background()
				n0 := &writeNote{}
				done, err := g.Wait(withWriteNote(ctx, n0))
				require.NoError(t, err)
				var wg sync.WaitGroup
				defer wg.Wait()
				wg.Go(func() {
					time.Sleep(40 * time.Millisecond)
					if c.traced {
						n0.fire(time.Now(), true, c.fresh)
						time.Sleep(5 * time.Millisecond)
						done()
					} else {
						done()
						n0.fire(time.Time{}, false, false)
					}
				})
				assert.InDelta(t, float64(c.want), float64(waitTook(t, g)), float64(time.Microsecond))
				if !c.traced {
					// The third waits for no word: the schedule alone paces.
					n1 := &writeNote{}
					_, err := g.Wait(withWriteNote(ctx, n1))
					require.NoError(t, err)
					assert.InDelta(t, float64(interval), float64(waitTook(t, g)), float64(time.Microsecond))
				}
			})
		})
	}
}
