package compute

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of retry.go: which attempts are sent again and after how long (classify, Retry-After, the
// backoff's jitter), through the client and as pure functions, and the pause a 429 puts on the
// client's limiter. TestFaultMatrix (fault_matrix_test.go) is the end-to-end spec of the same policy.

func TestGETRetriedThroughTwo503s(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		busy := func(w http.ResponseWriter, r *http.Request) {
			replyRaw(w, http.StatusServiceUnavailable, "<html>busy</html>")
		}
		c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": "i-1"}})
		}, busy, busy), defaultRetry())
		out, err := c.Instances.Get(context.Background(), "i-1")
		require.NoError(t, err)
		assert.Equal(t, "i-1", out.ID)
		assert.Equal(t, 3, rec.count())
	})
}

func TestIdempotentMethodsRetryOn5xxAndPOSTDoesNot(t *testing.T) {
	for _, tc := range []struct {
		op        operation
		ids       []string
		body      any
		status    int
		attempts  int
		ambiguous bool
	}{
		{opGetInstance, []string{"i"}, nil, 502, 3, false},
		{opUpdateSecurityGroup, []string{"sg"}, createBody, 503, 3, false},
		{opUpdateInstance, []string{"i"}, createBody, 504, 3, false},
		{opDeleteFloatingIP, []string{"f"}, nil, 503, 3, false},
		{opGetInstance, []string{"i"}, nil, 500, 3, false},
		{opCreateInstance, nil, createBody, 502, 1, true},
		{opCreateSnapshot, []string{"i"}, createBody, 504, 1, true},
		{opPerformInstanceAction, []string{"i"}, map[string]string{"action": "start"}, 503, 1, true},
		{opCreateFloatingIP, nil, createBody, 500, 1, true},
	} {
		t.Run(tc.op.method+" "+tc.op.path+" "+http.StatusText(tc.status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, rec := newTestClient(t, sequence(withStatus(http.StatusNoContent), withStatus(tc.status), withStatus(tc.status)), defaultRetry())
				err := testCall(context.Background(), c, tc.op, tc.ids, tc.body)
				assert.Equal(t, tc.attempts, rec.count())
				if tc.attempts == 3 {
					require.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.Equal(t, tc.ambiguous, errors.Is(err, ErrOutcomeUnknown))
			})
		})
	}
}

func Test429HonoursRetryAfterForPOST(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var times []time.Time
		var mu sync.Mutex
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			times = append(times, time.Now())
			first := len(times) == 1
			mu.Unlock()
			if first {
				w.Header().Set("Retry-After", "2")
				replyJSON(w, http.StatusTooManyRequests, map[string]string{"message": "slow down"})
				return
			}
			replyJSON(w, http.StatusCreated, map[string]any{"instance": map[string]string{"id": "i-1"}})
		}, defaultRetry())
		require.NoError(t, testCall(context.Background(), c, opCreateInstance, nil, createBody))
		require.Equal(t, 2, rec.count(), "a 429 was not processed, so even a POST is retried")
		assert.Equal(t, 2*time.Second, times[1].Sub(times[0]))
		assert.JSONEq(t, `{"name":"web-1"}`, string(rec.all()[1].Body), "the retry re-sends the same body")
	})
}

func TestRetryAfterHTTPDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c, _ := newTestClient(t, sequence(withStatus(http.StatusNoContent),
			rateLimited(start.Add(7*time.Second).UTC().Format(http.TimeFormat))), defaultRetry())
		require.NoError(t, testCall(context.Background(), c, opDeleteInstance, []string{"i"}, nil))
		// HTTP dates have one-second resolution.
		assert.InDelta(t, 7, time.Since(start).Seconds(), 1)
	})
}

func TestRetryAfterIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c, _ := newTestClient(t, sequence(withStatus(http.StatusNoContent), rateLimited("3600")), defaultRetry())
		require.NoError(t, testCall(context.Background(), c, opDeleteInstance, []string{"i"}, nil))
		assert.Equal(t, DefaultRetryPolicy().MaxWait, time.Since(start))
	})
}

func Test429FailsAtOnceWhenTheDeadlineIsShorterThanTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "10")
			w.WriteHeader(http.StatusTooManyRequests)
		}, defaultRetry())
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		err := testCall(ctx, c, opGetInstance, []string{"i"}, nil)
		assert.Zero(t, time.Since(start), "no sleeping into a certain timeout")
		assert.Equal(t, 1, rec.count())
		assert.ErrorIs(t, err, ErrRateLimited)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 10*time.Second, apiErr.RetryAfter)
	})
}

func TestExhaustedRetriesGiveTheTypedError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-Id", "req-42")
			replyJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "02004", "message": "try later"})
		}, defaultRetry())
		err := testCall(context.Background(), c, opListInstances, nil, nil)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 5, apiErr.Attempts)
		assert.Equal(t, 5, rec.count())
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.Equal(t, CodeBadRequest, apiErr.Code)
		assert.Equal(t, "req-42", apiErr.RequestID)
		assert.NotContains(t, err.Error(), "giving up")
		// Four jittered waits, each within [MinWait, MinWait·2^(n+1)]: 250ms..(500+1000+2000+4000)ms.
		elapsed := time.Since(start)
		assert.GreaterOrEqual(t, elapsed, 4*250*time.Millisecond)
		assert.LessOrEqual(t, elapsed, 7500*time.Millisecond)
	})
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, 2*time.Second, parseRetryAfter("2", now))
	assert.Equal(t, 90*time.Second, parseRetryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now))
	assert.Zero(t, parseRetryAfter("", now))
	assert.Zero(t, parseRetryAfter("-3", now))
	assert.Zero(t, parseRetryAfter("soon", now))
	assert.Zero(t, parseRetryAfter(now.Add(-time.Hour).Format(http.TimeFormat), now))
	assert.Equal(t, 24*time.Hour, parseRetryAfter("99999999999", now))
	assert.Equal(t, 24*time.Hour, parseRetryAfter(now.Add(48*time.Hour).Format(http.TimeFormat), now), "a date is capped like seconds")
}

func TestGETNetworkErrorIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, sequence(serveJSON([]byte(`{}`)), func(w http.ResponseWriter, r *http.Request) { hangUp(w) }), defaultRetry())
		require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
		assert.Equal(t, 2, rec.count())
	})
}

func Test429PausesTheWholeClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		seen := map[string][]time.Time{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.URL.Path] = append(seen[r.URL.Path], time.Now())
			first := r.URL.Path == "/compute/v1/instances/a" && len(seen[r.URL.Path]) == 1
			mu.Unlock()
			if first {
				w.Header().Set("Retry-After", "5")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}, defaultRetry())
		start := time.Now()
		var wg sync.WaitGroup
		wg.Go(func() { assert.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"a"}, nil)) })
		wg.Go(func() {
			time.Sleep(time.Second) // after the 429 has been seen
			assert.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"b"}, nil))
		})
		wg.Wait()
		require.Len(t, seen["/compute/v1/instances/b"], 1)
		assert.GreaterOrEqual(t, seen["/compute/v1/instances/b"][0].Sub(start), 5*time.Second,
			"another goroutine's request waits out the 429 too")
	})
}

// TestA429PausesCallersAlreadyQueuedInTheLimiter: with eight goroutines queued behind the limiter,
// a 429 after the first (which only turns the pacing from responses on) must hold every one of
// them, not only those that arrive after it.
func TestA429PausesCallersAlreadyQueuedInTheLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var times []time.Duration
		start := time.Now()
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			times = append(times, time.Since(start))
			refused := len(times) <= 2
			mu.Unlock()
			if refused {
				w.Header().Set("Retry-After", "5")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}, WithRateLimit(10, 1), defaultRetry())
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { assert.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil)) })
		}
		wg.Wait()
		require.Len(t, times, 10)
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		assert.Zero(t, times[0])
		for _, d := range times[2:] {
			assert.GreaterOrEqual(t, d, times[1]+5*time.Second, "an attempt was sent during the pause: %v", times)
		}
	})
}

// TestBackoffGrowsUntilItsCap pins the shape of the wait between retries without a Retry-After:
// full jitter over [MinWait, MinWait·2^(n+1)], capped at MaxWait. Each retry's range must reach
// past the previous retry's whole range (the wait grows), stay within its own bounds, and stop
// growing at MaxWait. With 2000 draws per retry, a range that does not grow fails with a
// probability of 1 - 2^-2000. With the default policy's bounds, every retry number up to 63 stays
// within them too.
func TestBackoffGrowsUntilItsCap(t *testing.T) {
	t.Parallel()
	const minWait, maxWait, draws = 100 * time.Millisecond, 2 * time.Second, 2000
	prevUpper := time.Duration(0)
	for n := range 8 {
		upper := min(maxWait, minWait<<(n+1))
		var longest time.Duration
		for range draws {
			w := jitter(minWait, maxWait, n)
			require.GreaterOrEqual(t, w, minWait, "retry %d", n)
			require.LessOrEqual(t, w, upper, "retry %d", n)
			longest = max(longest, w)
		}
		if upper > prevUpper {
			assert.Greater(t, longest, prevUpper, "retry %d waits longer than retry %d could", n, n-1)
		} else {
			assert.Equal(t, maxWait, upper, "retry %d: the range stops growing only at MaxWait", n)
		}
		prevUpper = upper
	}
	assert.Equal(t, minWait, jitter(minWait, minWait, 5), "no room: the wait is MinWait")
	assert.LessOrEqual(t, jitter(minWait, maxWait, 62), maxWait, "a large retry number does not overflow")

	// The default policy's bounds (250 ms, 30 s), 50 draws for each retry number up to 63.
	defMin, defMax := DefaultRetryPolicy().MinWait, DefaultRetryPolicy().MaxWait
	require.Equal(t, 250*time.Millisecond, defMin)
	require.Equal(t, 30*time.Second, defMax)
	for n := range 64 {
		for range 50 {
			w := jitter(defMin, defMax, n)
			require.GreaterOrEqual(t, w, defMin, "retry %d", n)
			require.LessOrEqual(t, w, defMax, "retry %d", n)
			if n < 6 {
				require.LessOrEqual(t, w, defMin<<(n+1), "retry %d", n)
			}
		}
	}
}

// TestClassify is the retry policy itself, the pure function the fault matrix drives end to end:
// for each result of one attempt, whether it is retried and whether the service may have processed
// it, for the idempotent operations (GET, DELETE, an absolute PATCH) and for the writes that are
// not (a POST, the relative PATCH of an attach).
func TestClassify(t *testing.T) {
	t.Parallel()
	cutOff := fmt.Errorf("reading the response (status 200): %w", io.ErrUnexpectedEOF)
	reset := &net.OpError{Op: "read", Err: syscall.ECONNRESET}
	unwritten := &net.OpError{Op: "write", Err: syscall.ECONNRESET}
	badCert := &url.Error{Op: "Get", URL: "https://x", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}
	dial := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name    string
		status  int
		err     error
		written bool
		// idem and write are {retry, processed} for the idempotent operations and for the others.
		idem, write [2]bool
	}{
		{"200", 200, nil, true, [2]bool{false, false}, [2]bool{false, false}},
		{"400", 400, nil, true, [2]bool{false, false}, [2]bool{false, false}},
		{"404", 404, nil, true, [2]bool{false, false}, [2]bool{false, false}},
		{"409", 409, nil, true, [2]bool{false, false}, [2]bool{false, false}},
		{"422", 422, nil, true, [2]bool{false, false}, [2]bool{false, false}},
		{"429", 429, nil, true, [2]bool{true, false}, [2]bool{true, false}},
		{"500", 500, nil, true, [2]bool{true, true}, [2]bool{false, true}},
		{"501", 501, nil, true, [2]bool{false, true}, [2]bool{false, true}},
		{"502", 502, nil, true, [2]bool{true, true}, [2]bool{false, true}},
		{"503", 503, nil, true, [2]bool{true, true}, [2]bool{false, true}},
		{"504", 504, nil, true, [2]bool{true, true}, [2]bool{false, true}},
		{"success cut off", 0, cutOff, true, [2]bool{true, true}, [2]bool{false, true}},
		{"reset after written", 0, reset, true, [2]bool{true, true}, [2]bool{false, true}},
		{"reset before written", 0, unwritten, false, [2]bool{true, false}, [2]bool{true, false}},
		{"dial refused", 0, dial, false, [2]bool{true, false}, [2]bool{true, false}},
		{"bad certificate", 0, badCert, false, [2]bool{false, false}, [2]bool{false, false}},
		{"limiter wait ended", 0, &notSentError{context.Canceled}, false, [2]bool{false, false}, [2]bool{false, false}},
		{"success too large", 0, fmt.Errorf("%w (1 bytes)", errTooLarge), true, [2]bool{false, true}, [2]bool{false, true}},
		{"write redirected away", 0, &url.Error{Op: "Post", URL: "https://x", Err: errCrossOriginWrite}, true, [2]bool{false, true}, [2]bool{false, true}},
	} {
		for _, op := range []operation{opGetInstance, opDeleteInstance, opUpdateInstance, opCreateInstance, opAttachInstance} {
			want := tc.idem
			if !op.idempotent {
				want = tc.write
			}
			retry, processed := classify(op, tc.status, tc.err, tc.written)
			assert.Equal(t, want, [2]bool{retry, processed}, "%s, %s %s (idempotent %v)", tc.name, op.method, op.path, op.idempotent)
		}
	}
}

// ctxRecorder is a slog.Handler that notes, for each record, its message and whether its context
// carried the test's mark.
type ctxRecorder struct {
	mu      sync.Mutex
	records []string // "message: marked" or "message: unmarked"
}

type markKey struct{}

func (h *ctxRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *ctxRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *ctxRecorder) WithGroup(string) slog.Handler            { return h }
func (h *ctxRecorder) Handle(ctx context.Context, r slog.Record) error {
	mark := "unmarked"
	if ctx != nil && ctx.Value(markKey{}) != nil {
		mark = "marked"
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Message+": "+mark)
	return nil
}

// TestEveryLogLineCarriesItsContext: every line the SDK logs for a call (its attempts, its
// retries after a status and after a network error) goes to the handler with the call's context,
// so that a handler can add the trace or request values it holds.
func TestEveryLogLineCarriesItsContext(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	rec := &ctxRecorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("Connection", "close") // the next attempt dials again, so its hang-up is an error
			replyJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "02004", "message": "busy"})
		case 2:
			hangUp(w)
		default:
			echoInstance(t)(w, r)
		}
	}, WithLogger(slog.New(rec)), WithRetry(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	_, err := c.Instances.Get(context.WithValue(context.Background(), markKey{}, true), "i-1")
	require.NoError(t, err)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.Equal(t, []string{
		"compute: attempt: marked", "compute: retrying: marked",
		"compute: attempt failed: marked", "compute: retrying: marked",
		"compute: attempt: marked",
	}, rec.records)
}
