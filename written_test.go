package compute

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/compute-sdk/compute-go/internal/memnet"
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
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var last time.Time
		ok, refused := 0, 0
		srv, hc, closeAll := memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		}))
		defer closeAll()
		var n atomic.Int64
		inner := hc.Transport
		late := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if n.Add(1)%4 == 2 {
				time.Sleep(60 * time.Millisecond) // before the transport writes it
			}
			return inner.RoundTrip(r)
		})
		c, err := NewClient(testToken, WithBaseURL(srv.URL), WithHTTPClient(&http.Client{Transport: late}),
			WithRateLimit(10, 1), WithRetry(RetryPolicy{MaxRetries: 10}))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for !errors.Is(testCall(ctx, c, opGetInstance, []string{"i"}, nil), context.DeadlineExceeded) {
				}
			})
		}
		wg.Wait()
		t.Logf("served %d, refused %d", ok, refused)
		assert.Zero(t, refused, "refusals; served %d", ok)
		// Each late request costs its lateness once: 4 requests in 460 ms.
		assert.GreaterOrEqual(t, ok, int(0.85*600), "served; refused %d", refused)
	})
}

// TestTheNextRequestWaitsForTheLastOneToBeWritten: once the pacing from responses is on, an
// attempt that the limiter let go but that is not written yet holds the next one (up to a
// second), which then goes an interval after that write, less the fastest round trip; an attempt
// that ends with no word of a write (a transport without the trace hooks) holds nobody.
func TestTheNextRequestWaitsForTheLastOneToBeWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(10, 1)
		ctx := context.Background()
		g.Throttled(ctx, time.Second) // the first 429 turns the pacing from responses on
		// One attempt written at once, answered 2 ms later: the fastest round trip.
		n0 := &writeNote{}
		done, err := g.Wait(withWriteNote(ctx, n0))
		require.NoError(t, err)
		n0.fire(time.Now(), true)
		time.Sleep(2 * time.Millisecond)
		done()
		time.Sleep(time.Second)

		n1 := &writeNote{}
		done, err = g.Wait(withWriteNote(ctx, n1))
		require.NoError(t, err)
		go func() {
			time.Sleep(300 * time.Millisecond) // written late
			n1.fire(time.Now(), true)
			time.Sleep(2 * time.Millisecond)
			done()
		}()
		took := waitTook(t, g)
		assert.Equal(t, 300*time.Millisecond+2*time.Millisecond+g.interval()-2*time.Millisecond, took,
			"the next attempt waited for the write, then an interval after it less the round trip")

		// A transport that never says when it wrote: the attempt's end frees the next one, and the
		// gate still waits for writes it is told of.
		time.Sleep(time.Second)
		n2 := &writeNote{}
		done, err = g.Wait(withWriteNote(ctx, n2))
		require.NoError(t, err)
		go func() {
			time.Sleep(2 * time.Millisecond)
			done()
			n2.fire(time.Time{}, false)
		}()
		assert.Equal(t, g.interval(), waitTook(t, g), "an attempt with no word of its write, answered at once")

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
// lets the next request go an interval after the last one was written; with a burst of two, the
// schedule alone paces (a late write takes nothing from the burst).
func TestWithNoBurstTheScheduleCountsFromTheLastWrite(t *testing.T) {
	for _, burst := range []int{1, 2} {
		synctest.Test(t, func(t *testing.T) {
			g := newGate(10, burst)
			ctx := context.Background()
			n0 := &writeNote{}
			_, err := g.Wait(withWriteNote(ctx, n0))
			require.NoError(t, err)
			n0.fire(time.Now(), true) // the client tells when it writes
			time.Sleep(time.Second)

			n1 := &writeNote{}
			_, err = g.Wait(withWriteNote(ctx, n1))
			require.NoError(t, err)
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() {
				time.Sleep(30 * time.Millisecond)
				n1.fire(time.Now(), true)
			})
			took := waitTook(t, g)
			if burst == 1 {
				assert.Equal(t, 30*time.Millisecond+g.interval(), took, "an interval after the late write")
			} else {
				assert.Zero(t, took, "the burst's second request")
			}
		})
	}
}
