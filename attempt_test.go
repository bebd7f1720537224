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
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of attempt.go: one attempt under the retry loop. It tells whether the request was written,
// bounds itself with the per-attempt timeout, reads the body within its bounds, keeps the caller's
// headers and context, and waits for the limiter first (the limiter itself: limiter_test.go).

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

// countingReader counts how much of the body the SDK reads.
type countingReader struct {
	n    int
	left int
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.left)
	for i := range n {
		p[i] = 'a'
	}
	r.n += n
	r.left -= n
	return n, nil
}

// A success response of exactly the operation's bound is read; one byte more is an error. Short
// reads are gathered, and a broken read keeps its cause. An error response is cut at maxErrorBody,
// and read no further than that and a small drain.
func TestResponseBodyBounds(t *testing.T) {
	t.Parallel()
	op := operation{method: "GET", maxBody: 3000}
	body := strings.Repeat("x", 3000)
	respond := func(status int, r io.Reader) *http.Response {
		return &http.Response{StatusCode: status, Body: io.NopCloser(r)}
	}
	got, err := readBody(respond(200, strings.NewReader(body)), op)
	require.NoError(t, err, "a response of exactly the bound is read")
	assert.Equal(t, body, string(got))

	_, err = readBody(respond(200, strings.NewReader(body+"y")), op)
	require.ErrorIs(t, err, errTooLarge)

	got, err = readBody(respond(200, iotest.OneByteReader(strings.NewReader(body))), op)
	require.NoError(t, err)
	assert.Equal(t, body, string(got))
	_, err = readBody(respond(200, iotest.TimeoutReader(strings.NewReader(body))), op)
	assert.ErrorIs(t, err, iotest.ErrTimeout)

	// An error response is cut at maxErrorBody, never refused: its status is what matters.
	got, err = readBody(respond(503, strings.NewReader(strings.Repeat("e", maxErrorBody+10))), op)
	require.NoError(t, err)
	assert.Len(t, got, maxErrorBody)
	// However long: of a 50 MiB error body, the bound, one byte more and the 4 KiB drain are read.
	long := &countingReader{left: 50 << 20}
	got, err = readBody(&http.Response{StatusCode: 500, Header: http.Header{}, Body: io.NopCloser(long)}, opGetInstance)
	require.NoError(t, err)
	assert.LessOrEqual(t, long.n, maxErrorBody+1+4<<10)
	assert.Len(t, got, maxErrorBody)
}

// A success response that cannot be read whole (the connection breaks in the middle) is an error
// that keeps the cause, never a half-decoded resource.
func TestBrokenResponseKeepsItsCause(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset by peer")
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: http.StatusOK, Header: http.Header{},
			Body:    io.NopCloser(io.MultiReader(strings.NewReader(`{"instance":{"id":"a",`), iotest.ErrReader(broken))),
			Request: r,
		}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries())
	require.NoError(t, err)
	inst, err := c.Instances.Get(context.Background(), "i-1")
	assert.Nil(t, inst)
	require.ErrorIs(t, err, broken)
	assert.Contains(t, err.Error(), "reading the response (status 200)")
}

// A transport that adds to a request's headers (which RoundTrippers should not, but some do) must
// not change what the next request carries.
func TestSharedHeaderValuesStayUnchanged(t *testing.T) {
	t.Parallel()
	var seen [][]string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, append([]string(nil), r.Header.Values("User-Agent")...))
		r.Header.Add("User-Agent", "added-by-transport")
		r.Header.Add("Accept", "text/plain")
		r.Header.Add("Authorization", "Basic x")
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithUserAgent("app/1"))
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, c.Instances.Delete(context.Background(), "i-1"))
	}
	require.Len(t, seen, 3)
	for _, ua := range seen {
		assert.Equal(t, []string{"compute-go/" + Version + " app/1"}, ua)
	}
	name, value := c.transport.cred.header()
	assert.Equal(t, "Authorization", name)
	assert.Equal(t, "Bearer "+testToken, value)
}

// The caller's context values reach the transport under the SDK.
func TestCallerContextValuesReachTheTransport(t *testing.T) {
	t.Parallel()
	type userKey struct{}
	ctx := context.WithValue(context.Background(), userKey{}, "v")
	var sawValue bool
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sawValue = r.Context().Value(userKey{}) == "v"
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	require.NoError(t, c.Instances.Delete(ctx, "i-1"))
	assert.True(t, sawValue, "the caller's context values are kept")
}
