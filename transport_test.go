package compute

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPOSTAnswered503IsSentOnceAndOutcomeUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "02004", "message": "busy"})
		}, defaultRetry())
		err := testCall(context.Background(), c, opCreateInstance, nil, createBody)
		require.Error(t, err)
		assert.Equal(t, 1, rec.count(), "a POST that may have been processed must not be re-sent")
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.ErrorIs(t, err, ErrServer)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.Equal(t, 1, apiErr.Attempts)
	})
}

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

func TestCancelStopsBackoffWaitAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "20")
			w.WriteHeader(http.StatusServiceUnavailable)
		}, defaultRetry())
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		time.AfterFunc(time.Second, cancel)
		err := testCall(ctx, c, opGetInstance, []string{"i"}, nil)
		assert.Equal(t, time.Second, time.Since(start), "the 20 s wait must end with the context")
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 1, rec.count())
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

func TestJitterStaysInBounds(t *testing.T) {
	t.Parallel()
	minW, maxW := 250*time.Millisecond, 30*time.Second
	for n := 0; n < 64; n++ {
		for i := 0; i < 50; i++ {
			d := jitter(minW, maxW, n)
			require.GreaterOrEqual(t, d, minW)
			require.LessOrEqual(t, d, maxW)
			if n < 6 {
				require.LessOrEqual(t, d, minW<<(n+1))
			}
		}
	}
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

func TestPOSTNetworkErrorAfterWriteIsNotResent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { hangUp(w) }, defaultRetry())
		err := testCall(context.Background(), c, opCreateInstance, nil, createBody)
		assert.Equal(t, 1, rec.count())
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		var apiErr *APIError
		assert.False(t, errors.As(err, &apiErr), "no response, so no APIError")
	})
}

func TestGETNetworkErrorIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, sequence(serveJSON([]byte(`{}`)), func(w http.ResponseWriter, r *http.Request) { hangUp(w) }), defaultRetry())
		require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
		assert.Equal(t, 2, rec.count())
	})
}

func TestPOSTRefusedBeforeAnyByteIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, hits, dials := clientWithDialer(t, func(_ context.Context, n int32, dial func() (net.Conn, error)) (net.Conn, error) {
			if n <= 2 {
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
			}
			return dial()
		})
		require.NoError(t, testCall(context.Background(), c, opCreateInstance, nil, createBody))
		assert.Equal(t, int32(1), hits.Load(), "the POST reached the server exactly once")
		assert.Equal(t, int32(3), dials.Load())
	})
}

// TestPOSTTimedOutWhileConnectingIsRetried: nothing was written, so the POST is safe to send again.
func TestPOSTTimedOutWhileConnectingIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, hits, dials := clientWithDialer(t, func(ctx context.Context, n int32, dial func() (net.Conn, error)) (net.Conn, error) {
			if n == 1 {
				<-ctx.Done() // the attempt's timeout ends the dial
				return nil, ctx.Err()
			}
			return dial()
		}, WithTimeout(2*time.Second))
		require.NoError(t, testCall(context.Background(), c, opCreateInstance, nil, createBody))
		assert.Equal(t, int32(1), hits.Load())
		assert.Equal(t, int32(2), dials.Load())
	})
}

func TestPerAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(time.Minute):
			case <-r.Context().Done():
			}
		}, WithTimeout(2*time.Second), WithoutRetries())
		start := time.Now()
		err := testCall(context.Background(), c, opGetInstance, []string{"i"}, nil)
		assert.Equal(t, 2*time.Second, time.Since(start))
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 1, rec.count())

		err = testCall(context.Background(), c, opCreateInstance, nil, createBody)
		assert.ErrorIs(t, err, ErrOutcomeUnknown, "a POST that timed out may have been processed")
	})
}

// TestLimiterGatesEveryAttemptAcrossGoroutines runs 8 goroutines through one client limited to
// 50 requests per second, with every third attempt responded to with 503 so that retries happen, and checks
// that no one-second window holds more attempts than the limit allows.
func TestLimiterGatesEveryAttemptAcrossGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rps, burst, workers, perWorker = 50, 1, 8, 25
		var mu sync.Mutex
		var times []time.Time
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			times = append(times, time.Now())
			n := len(times)
			mu.Unlock()
			if n%3 == 0 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}, WithRateLimit(rps, burst), WithRetry(RetryPolicy{MaxRetries: 10, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range perWorker {
					assert.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
				}
			})
		}
		wg.Wait()
		sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
		require.Greater(t, len(times), workers*perWorker, "retries must have happened")
		for i := range times {
			j := i
			for j < len(times) && times[j].Sub(times[i]) < time.Second {
				j++
			}
			require.LessOrEqual(t, j-i, rps+burst, "window starting at attempt %d", i)
		}
		// With burst 1 the limiter spaces attempts by at least 1/rps.
		for i := 1; i < len(times); i++ {
			require.GreaterOrEqual(t, times[i].Sub(times[i-1]), time.Second/rps-time.Microsecond) // float rounding in x/time/rate
		}
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

func TestLimiterWaitHonoursTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) },
			WithRateLimit(0.1, 1))
		require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := testCall(ctx, c, opCreateInstance, nil, createBody)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, "nothing was sent")
		assert.Equal(t, 1, rec.count())
	})
}

// TestA429PausesCallersAlreadyQueuedInTheLimiter: with eight goroutines queued behind the limiter,
// a 429 must hold every one of them, not only those that arrive after it.
func TestA429PausesCallersAlreadyQueuedInTheLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var times []time.Duration
		start := time.Now()
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			times = append(times, time.Since(start))
			first := len(times) == 1
			mu.Unlock()
			if first {
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
		require.Len(t, times, 9)
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		assert.Zero(t, times[0])
		for _, d := range times[1:] {
			assert.GreaterOrEqual(t, d, 5*time.Second, "an attempt was sent during the pause: %v", times)
		}
	})
}

func TestAPauseLongerThanTheDeadlineFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, sequence(withStatus(http.StatusNoContent), rateLimited("20")), defaultRetry(), WithoutRetries())
		require.ErrorIs(t, testCall(context.Background(), c, opGetInstance, []string{"a"}, nil), ErrRateLimited)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		start := time.Now()
		err := testCall(ctx, c, opCreateInstance, nil, createBody)
		assert.Zero(t, time.Since(start), "no sleeping into a certain timeout")
		assert.ErrorIs(t, err, ErrRateLimited)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, "nothing was sent")
		assert.Equal(t, 1, rec.count())
	})
}

func TestRetriedDeleteAnswered404AfterAPossiblyProcessedAttemptSucceeds(t *testing.T) {
	for name, tc := range map[string]struct {
		first   func(w http.ResponseWriter)
		wantErr error
	}{
		"after a 503":            {func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) }, nil},
		"after a lost response":  {hangUp, nil},
		"after a 429 it was not": {func(w http.ResponseWriter) { w.WriteHeader(http.StatusTooManyRequests) }, ErrNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
					replyJSON(w, http.StatusNotFound, map[string]string{"code": "02008", "message": "Instance not found"})
				}, func(w http.ResponseWriter, r *http.Request) { tc.first(w) }), defaultRetry())
				err := testCall(context.Background(), c, opDeleteInstance, []string{"i"}, nil)
				assert.Equal(t, 2, rec.count())
				if tc.wantErr == nil {
					assert.NoError(t, err, "the first attempt may have deleted it: the goal is reached")
				} else {
					assert.ErrorIs(t, err, tc.wantErr)
				}
			})
		})
	}
}

// A create responded to with 201 whose body cannot be read was processed: the caller must look it up, not
// send it again.
func TestPOSTWithAnUnreadableSuccessResponseIsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{"truncated": `{"instance": {"id": "i-`, "no envelope": `{}`} {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusCreated, body) })
		_, err := c.Instances.Create(context.Background(), &InstanceCreateRequest{Name: "w", Hostname: "w", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"k"}})
		assert.ErrorIs(t, err, ErrOutcomeUnknown, name)
		assert.Equal(t, 1, rec.count(), name)
		_, err = c.Instances.Get(context.Background(), "i-1")
		assert.Error(t, err, name)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a GET is simply retried by the caller: %s", name)
	}
}

// Every kind of response leaves the connection reusable: five calls of each kind use one connection.
// An error body past newAPIError's 1 MiB bound by less than the drain's 4 KiB still does.
func TestResponsesLeaveTheConnectionReusable(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", maxErrorBody+100)
	cases := []struct {
		name  string
		serve http.HandlerFunc
		call  func(*Client) error
	}{
		{"200 with a length", func(w http.ResponseWriter, r *http.Request) {
			replyRaw(w, http.StatusOK, `{"instance":{"id":"i"}}`)
		}, nil},
		{"200 chunked", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, `{"instance":`)
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, `{"id":"i"}}`)
		}, nil},
		{"200 not JSON", func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusOK, `[1,2]`) }, nil},
		{"404 with a code", func(w http.ResponseWriter, r *http.Request) {
			replyRaw(w, http.StatusNotFound, `{"code":"02008","message":"no"}`)
		}, nil},
		{"400 just past the error bound", func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusBadRequest, big) }, nil},
		{"204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
			func(c *Client) error { return c.Instances.Delete(context.Background(), "i") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(tc.serve)
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			c, err := NewClient(testToken, WithBaseURL(srv.URL), WithoutRateLimit(), WithoutRetries())
			require.NoError(t, err)
			for range 5 {
				if tc.call != nil {
					_ = tc.call(c)
				} else {
					_, _ = c.Instances.Get(context.Background(), "i")
				}
			}
			assert.EqualValues(t, 1, conns.Load(), "connections opened for 5 calls")
		})
	}
}
