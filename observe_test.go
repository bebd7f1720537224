package compute

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// events records what an Observer is told, in order.
type events struct {
	mu       sync.Mutex
	starts   []Call
	ends     []Response
	errs     []error
	attempts []Attempt
	polls    []Poll
	pages    []PageRead
}

func (e *events) observer() Observer {
	return Observer{
		CallStart: func(ctx context.Context, call Call) context.Context {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.starts = append(e.starts, call)
			return nil
		},
		CallEnd: func(_ context.Context, resp Response, err error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.ends, e.errs = append(e.ends, resp), append(e.errs, err)
		},
		Attempt: func(_ context.Context, a Attempt) { e.mu.Lock(); e.attempts = append(e.attempts, a); e.mu.Unlock() },
		Poll:    func(_ context.Context, p Poll) { e.mu.Lock(); e.polls = append(e.polls, p); e.mu.Unlock() },
		Page:    func(_ context.Context, p PageRead) { e.mu.Lock(); e.pages = append(e.pages, p); e.mu.Unlock() },
	}
}

// withRequestID wraps h to send the request ID rid-N on the N-th response.
func withRequestID(h http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		w.Header().Set("X-Request-Id", fmt.Sprintf("rid-%d", n))
		mu.Unlock()
		h(w, r)
	}
}

// TestObserverSeesACallRetriedTwice: a Get answered 503, 503, then 200 is one call of three
// attempts; each attempt says its status, whether and why it is retried and the backoff before
// it; the call's end says the last status and request ID, the attempts and the time.
func TestObserverSeesACallRetriedTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e events
		c, _ := newTestClient(t, withRequestID(sequence(echoInstance(t),
			withStatus(503), withStatus(503))),
			WithObserver(e.observer()), WithRetry(RetryPolicy{MinWait: 5 * time.Second, MaxWait: 5 * time.Second}))
		var resp Response
		_, err := c.Instances.Get(CaptureResponse(context.Background(), &resp), "i-1")
		require.NoError(t, err)

		require.Len(t, e.starts, 1)
		assert.Equal(t, Call{Operation: "Instances.Get", Method: "GET", Path: "/compute/v1/instances/{instance_id}", Host: "127.0.0.1:80"}, e.starts[0])
		assert.NotEmpty(t, e.starts[0].Host)
		require.Len(t, e.attempts, 3)
		for i, want := range []struct {
			status  int
			retried bool
		}{{503, true}, {503, true}, {200, false}} {
			a := e.attempts[i]
			assert.Equal(t, i+1, a.Number)
			assert.Equal(t, want.status, a.StatusCode)
			assert.Equal(t, want.retried, a.Retried)
			assert.Equal(t, "Instances.Get", a.Call.Operation)
		}
		assert.Equal(t, "server error", e.attempts[0].Reason)
		assert.Empty(t, e.attempts[2].Reason)
		assert.Zero(t, e.attempts[0].Backoff)
		assert.Equal(t, 5*time.Second, e.attempts[1].Backoff)
		require.Len(t, e.ends, 1)
		assert.NoError(t, e.errs[0])
		want := Response{Operation: "Instances.Get", Method: "GET", Path: "/compute/v1/instances/{instance_id}", StatusCode: 200,
			RequestID: "rid-3", Attempts: 3, Duration: 10 * time.Second}
		assert.Equal(t, want, e.ends[0])
		assert.Equal(t, want, resp, "the captured response is the observer's")
	})
}

// TestCapturedResponseOfAFailedCall: a refused call and a call that got no response are described
// too, each with what it ended with.
func TestCapturedResponseOfAFailedCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, withRequestID(instanceNotFound))
		var resp Response
		_, err := c.Instances.Get(CaptureResponse(context.Background(), &resp), "i-1")
		require.ErrorIs(t, err, ErrNotFound)
		assert.Equal(t, Response{Operation: "Instances.Get", Method: "GET", Path: "/compute/v1/instances/{instance_id}",
			StatusCode: 404, RequestID: "rid-1", Attempts: 1}, resp)

		down, _ := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) { hangUp(w) }, WithoutRetries())
		resp = Response{}
		_, err = down.Instances.Get(CaptureResponse(context.Background(), &resp), "i-1")
		require.Error(t, err)
		assert.Zero(t, resp.StatusCode)
		assert.Equal(t, 1, resp.Attempts)
	})
}

// TestCapturedLimiterWait: a call that waited for the rate limiter says how long.
func TestCapturedLimiterWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, echoInstance(t), WithRateLimit(10, 1))
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.NoError(t, err)
		var resp Response
		_, err = c.Instances.Get(CaptureResponse(context.Background(), &resp), "i-1")
		require.NoError(t, err)
		assert.Equal(t, newGate(10, 1).spaced(), resp.LimiterWait, "an interval and the margin after the first")
	})
}

// TestObserverSeesA429AndANetworkError: a 429's Retry-After and reason, and an attempt without a
// response, whose error carries no token.
func TestObserverSeesA429AndANetworkError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e events
		c, _ := newTestClient(t, sequence(echoInstance(t),
			func(w http.ResponseWriter, _ *http.Request) { hangUp(w) }, rateLimited("2")),
			WithObserver(e.observer()), WithRetry(RetryPolicy{MinWait: time.Second, MaxWait: 5 * time.Second}))
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.NoError(t, err)
		require.Len(t, e.attempts, 3)
		assert.Zero(t, e.attempts[0].StatusCode)
		require.Error(t, e.attempts[0].Err)
		assert.Equal(t, "network error", e.attempts[0].Reason)
		requireNoToken(t, e.attempts[0].Err.Error())
		assert.Equal(t, 429, e.attempts[1].StatusCode)
		assert.Equal(t, 2*time.Second, e.attempts[1].RetryAfter)
		assert.Equal(t, "rate limited", e.attempts[1].Reason)
		assert.Equal(t, 200, e.attempts[2].StatusCode)
	})
}

// TestObserverSeesPollsAndPages: each poll of a wait and each page of a walk.
func TestObserverSeesPollsAndPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e events
		polls := 0
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/instances") {
				pagedServer(3, false, nil)(w, r)
				return
			}
			polls++
			status := "creating"
			if polls == 2 {
				status = "active"
			}
			replyJSON(w, 200, map[string]any{"instance": map[string]any{"id": "i-1", "status": status}})
		}, WithObserver(e.observer()))
		_, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive)
		require.NoError(t, err)
		assert.Equal(t, []Poll{
			{Resource: "instance", ID: "i-1", Target: "active", Status: "creating"},
			{Resource: "instance", ID: "i-1", Target: "active", Status: "active"},
		}, e.polls)
		for _, err := range c.Instances.All(context.Background(), &ListOptions{PerPage: 2}) {
			require.NoError(t, err)
		}
		assert.Equal(t, []PageRead{
			{Operation: "Instances.List", Page: 1, Items: 2, TotalCount: 3},
			{Operation: "Instances.List", Page: 2, Items: 1, TotalCount: 3},
		}, e.pages)
	})
}

// TestObserversAreToldInOrder: several observers each see every event, in the order given, and the
// contexts their CallStart returns chain.
func TestObserversAreToldInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type key string
		var order []string
		mark := func(name string) Observer {
			return Observer{
				CallStart: func(ctx context.Context, _ Call) context.Context {
					order = append(order, name+" start, after "+fmt.Sprint(ctx.Value(key("seen"))))
					return context.WithValue(ctx, key("seen"), name)
				},
				CallEnd: func(ctx context.Context, _ Response, _ error) {
					order = append(order, name+" end in "+fmt.Sprint(ctx.Value(key("seen"))))
				},
			}
		}
		c, _ := newTestClient(t, echoInstance(t),
			WithObserver(mark("a")), WithObserver(Observer{}), WithObserver(mark("b")))
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.NoError(t, err)
		assert.Equal(t, []string{"a start, after <nil>", "b start, after a", "a end in b", "b end in b"}, order)
	})
}

// TestObserverSeesAnUnreadableSuccessAsAFailure: a 2xx whose body cannot be used ends the call
// with the method's error, as the observer and the captured response are told; each attempt says
// its request ID and when it was sent.
func TestObserverSeesAnUnreadableSuccessAsAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e events
		c, _ := newTestClient(t, withRequestID(func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 200, map[string]any{"instance": map[string]any{"id": "another"}})
		}), WithObserver(e.observer()))
		start := time.Now()
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.ErrorContains(t, err, "not the one asked for")
		require.Len(t, e.errs, 1)
		assert.Equal(t, err, e.errs[0], "the observer sees the method's own error")
		assert.Equal(t, 200, e.ends[0].StatusCode)
		require.Len(t, e.attempts, 1)
		assert.Equal(t, "rid-1", e.attempts[0].RequestID)
		assert.Equal(t, start, e.attempts[0].Start)
	})
}

// TestLimiterWaitIsTheTotal: a call whose two attempts each wait for the rate limiter reports the
// sum of both waits, not the last one's.
func TestLimiterWaitIsTheTotal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, sequence(echoInstance(t), echoInstance(t), withStatus(http.StatusServiceUnavailable)),
			WithRateLimit(1, 1), WithRetry(RetryPolicy{MinWait: time.Millisecond, MaxWait: time.Millisecond}))
		_, err := c.Instances.Get(context.Background(), "i-0") // spends the burst
		require.NoError(t, err)
		var resp Response
		_, err = c.Instances.Get(CaptureResponse(context.Background(), &resp), "i-1")
		require.NoError(t, err)
		require.Equal(t, 2, resp.Attempts)
		assert.InDelta(t, 2*time.Second, resp.LimiterWait, float64(50*time.Millisecond), "a second before each attempt")
	})
}

// TestObserverSeesNoTokenInARequestIDOrAStatus: a service that echoes the token as its request ID
// and as an instance's status reaches no Observer with it: Response.RequestID, Attempt.RequestID and
// Poll.Status are scrubbed.
func TestObserverSeesNoTokenInARequestIDOrAStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e events
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.Header().Set("X-Request-Id", "rid-"+token)
			replyJSON(w, http.StatusOK, map[string]any{"instance": map[string]any{"id": "i-1", "status": "is-" + token}})
		}, WithObserver(e.observer()), WithoutRateLimit())
		// Between two polls (a second apart on an idle client): each poll answered.
		ctx, cancel := context.WithTimeout(context.Background(), 3500*time.Millisecond)
		defer cancel()
		_, err := c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		e.mu.Lock()
		defer e.mu.Unlock()
		require.NotEmpty(t, e.polls)
		require.NotEmpty(t, e.ends)
		for _, p := range e.polls {
			requireNoToken(t, p.Status)
			assert.Contains(t, p.Status, "is-")
		}
		for _, r := range e.ends {
			requireNoToken(t, r.RequestID)
			assert.Contains(t, r.RequestID, "rid-")
		}
		for _, a := range e.attempts {
			requireNoToken(t, a.RequestID)
		}
	})
}

// TestObserverRequestAddsHeadersToEachAttempt: the Request hook adds headers to every attempt's
// request, retries included; it never sees the credential and cannot replace it.
func TestObserverRequestAddsHeadersToEachAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []http.Header
		var mu sync.Mutex
		obs := Observer{Request: func(ctx context.Context, h http.Header) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, h.Clone())
			h.Set("Traceparent", fmt.Sprintf("attempt-%d", len(seen)))
			h.Set("Authorization", "Bearer not-the-token")
			h.Set("X-Auth-Token", "not-the-token")
		}}
		c, rec := newTestClient(t, sequence(echoInstance(t), withStatus(503)), WithObserver(obs))
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.NoError(t, err)
		got := rec.all()
		require.Len(t, got, 2)
		for i, r := range got {
			assert.Equal(t, fmt.Sprintf("attempt-%d", i+1), r.Header.Get("Traceparent"))
			assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"), "the credential is the client's")
			assert.Empty(t, r.Header.Get("X-Auth-Token"), "no second credential")
		}
		require.Len(t, seen, 2)
		for _, h := range seen {
			assert.Empty(t, h.Get("Authorization"), "the hook never sees the credential")
			assert.NotEmpty(t, h.Get("User-Agent"))
		}
	})
}

// TestObserverToldTheNotFoundThatProvesAResourceGone: the 404 that proves a deleted resource gone (a
// wait for deletion's read, DeleteAndWait's delete of what is gone already) is marked Gone on its
// attempt, its call's Response and its poll; any other 404 is not.
func TestObserverToldTheNotFoundThatProvesAResourceGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e events
		deleting := func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 200, map[string]any{"instance": map[string]any{"id": "i-1", "status": "deleting"}})
		}
		c, _ := newTestClient(t, sequence(instanceNotFound, withStatus(http.StatusNoContent), deleting), WithObserver(e.observer()))
		require.NoError(t, c.Instances.DeleteAndWait(context.Background(), "i-1"))
		require.Len(t, e.attempts, 3)
		assert.Equal(t, []bool{false, false, true}, []bool{e.attempts[0].Gone, e.attempts[1].Gone, e.attempts[2].Gone})
		require.Len(t, e.ends, 3)
		assert.Equal(t, []bool{false, false, true}, []bool{e.ends[0].Gone, e.ends[1].Gone, e.ends[2].Gone})
		require.Len(t, e.polls, 2)
		assert.False(t, e.polls[0].Gone)
		assert.True(t, e.polls[1].Gone)
		assert.Error(t, e.polls[1].Err, "the poll's error is still there")

		// A delete of what is gone already.
		e = events{}
		c, _ = newTestClient(t, instanceNotFound, WithObserver(e.observer()))
		require.NoError(t, c.Instances.DeleteAndWait(context.Background(), "i-1"))
		require.Len(t, e.ends, 1)
		assert.True(t, e.ends[0].Gone)
		assert.True(t, e.attempts[0].Gone)

		// A 404 of another code (a route the service does not know) proves nothing.
		e = events{}
		c, _ = newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusNotFound, map[string]string{"code": "02001", "message": "invalid route"})
		}, WithObserver(e.observer()))
		require.Error(t, c.Instances.WaitForDeletion(context.Background(), "i-1"))
		require.Len(t, e.attempts, 1)
		assert.False(t, e.attempts[0].Gone)
		assert.False(t, e.ends[0].Gone)
		assert.False(t, e.polls[0].Gone)

		// A Get's 404, or a wait for a status that meets one, is a failure.
		c, _ = newTestClient(t, instanceNotFound, WithObserver(e.observer()))
		e = events{}
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.ErrorIs(t, err, ErrNotFound)
		_, err = c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive)
		require.ErrorIs(t, err, ErrNotFound)
		for _, a := range e.attempts {
			assert.False(t, a.Gone)
		}
		for _, r := range e.ends {
			assert.False(t, r.Gone)
		}
		for _, p := range e.polls {
			assert.False(t, p.Gone)
		}
	})
}
