package compute

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoSendsTheRequestAsGiven: the path's {name} segments filled with the IDs escaped, the query
// encoded, the body as JSON with its Content-Type and the credential; the response decoded into a
// struct, kept whole in a *[]byte, or dropped.
func TestDoSendsTheRequestAsGiven(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyRaw(w, http.StatusOK, `{"console": {"url": "https://console.example/x", "kind": "vnc"}}`)
	})
	var out struct {
		Console struct{ URL, Kind string } `json:"console"`
	}
	err := c.Do(context.Background(), RawRequest{
		Method: "POST",
		Path:   "/compute/v1/instances/{instance_id}/console",
		IDs:    []string{"ins 1"},
		Query:  url.Values{"type": {"vnc"}, "a&b": {"c=d"}},
		Body:   map[string]any{"protocol": "vnc"},
	}, &out)
	require.NoError(t, err)
	assert.Equal(t, "https://console.example/x", out.Console.URL)
	seen := rec.all()
	require.Len(t, seen, 1)
	assert.Equal(t, "POST", seen[0].Method)
	assert.Equal(t, "/compute/v1/instances/ins%201/console", seen[0].Path)
	assert.Equal(t, "a%26b=c%3Dd&type=vnc", seen[0].Query)
	assert.JSONEq(t, `{"protocol": "vnc"}`, string(seen[0].Body))
	assert.Equal(t, "application/json", seen[0].Header.Get("Content-Type"))
	assert.Equal(t, "Bearer "+testToken, seen[0].Header.Get("Authorization"))

	var raw []byte
	require.NoError(t, c.Do(context.Background(), RawRequest{Method: "GET", Path: "/compute/v1/regions",
		Body: json.RawMessage(`{"kept": "as sent"}`)}, &raw))
	assert.JSONEq(t, `{"console": {"url": "https://console.example/x", "kind": "vnc"}}`, string(raw))
	assert.JSONEq(t, `{"kept": "as sent"}`, string(rec.all()[1].Body))
	assert.Empty(t, rec.all()[1].Query)

	require.NoError(t, c.Do(context.Background(), RawRequest{Method: "DELETE", Path: "/compute/v1/regions/{id}", IDs: []string{"r-1"}}, nil))
	assert.Empty(t, rec.all()[2].Body)
	assert.Empty(t, rec.all()[2].Header.Get("Content-Type"), "no body, no Content-Type")
}

// TestDoLeavesVUnchangedOnAnEmptyBody: a 204 has nothing to decode.
func TestDoLeavesVUnchangedOnAnEmptyBody(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	out := map[string]any{"before": true}
	require.NoError(t, c.Do(context.Background(), RawRequest{Method: "POST", Path: "/compute/v1/things"}, &out))
	assert.Equal(t, map[string]any{"before": true}, out)

	raw := []byte("before")
	require.NoError(t, c.Do(context.Background(), RawRequest{Method: "POST", Path: "/compute/v1/things"}, &raw))
	assert.Equal(t, "before", string(raw), "a *[]byte too")
}

// TestDoRetriesAsTheSDKsOwnCalls: a 503 or a lost response is retried for GET, PUT, PATCH and
// DELETE; a POST, or any method with SendOnce, is sent once and fails with ErrOutcomeUnknown; a
// 429, which the service did not process, is retried for a POST too.
func TestDoRetriesAsTheSDKsOwnCalls(t *testing.T) {
	t.Parallel()
	unavailable := func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusServiceUnavailable, "busy") }
	lost := func(w http.ResponseWriter, r *http.Request) { hangUp(w) }
	cases := []struct {
		name     string
		method   string
		sendOnce bool
		first    http.HandlerFunc
		attempts int
		unknown  bool
	}{
		{"POST 503", "POST", false, unavailable, 1, true},
		{"POST lost", "POST", false, lost, 1, true},
		{"POST 429", "POST", false, rateLimited("0"), 2, false},
		{"PATCH SendOnce 503", "PATCH", true, unavailable, 1, true},
		{"DELETE SendOnce lost", "DELETE", true, lost, 1, true},
		{"PUT SendOnce 429", "PUT", true, rateLimited("0"), 2, false},
		{"GET 503", "GET", false, unavailable, 2, false},
		{"GET lost", "GET", false, lost, 2, false},
		{"PUT 503", "PUT", false, unavailable, 2, false},
		{"PATCH lost", "PATCH", false, lost, 2, false},
		{"DELETE 503", "DELETE", false, unavailable, 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
				replyRaw(w, http.StatusOK, `{"ok": true}`)
			}, tc.first))
			var out struct{ OK bool }
			err := c.Do(context.Background(), RawRequest{Method: tc.method, Path: "/compute/v1/things/{id}", IDs: []string{"t-1"},
				Body: map[string]string{"name": "n"}, SendOnce: tc.sendOnce}, &out)
			assert.Equal(t, tc.attempts, rec.count(), "attempts")
			if tc.unknown {
				require.ErrorIs(t, err, ErrOutcomeUnknown)
				return
			}
			require.NoError(t, err)
			assert.True(t, out.OK)
		})
	}
}

// TestDoSendsTheTokenToTheClientsHostOnly: a path that is a URL or could leave the base URL is
// refused before any request; a read redirected to another host arrives there without the token,
// and a write redirected there is not followed.
func TestDoSendsTheTokenToTheClientsHostOnly(t *testing.T) {
	t.Parallel()
	for _, path := range []string{
		"https://evil.example/compute/v1/instances",
		"//evil.example/compute/v1/instances",
		"http:/evil.example",
		"compute/v1/instances",
		"/compute/v1/../../admin",
		"/compute/v1/./instances",
		"/compute/v1/%2e%2e/admin",
		"/compute/v1/instances%2fx",
		`/compute/v1\instances`,
		"/compute/v1/instances?token=x",
		"/compute/v1/instances#x",
		"/compute/v1//instances",
		"/compute/v1/instances/",
		"/compute/v1/inst ances",
		"/compute/v1/{}",
		"/compute/v1/{a}b",
		"/compute/v1/\x00",
		"/compute/v1/@evil.example",
	} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusOK, "{}") })
			requireInvalid(t, c.Do(context.Background(), RawRequest{Method: "GET", Path: path}, nil), "path", rec)
		})
	}
	t.Run("an ID that would change the route", func(t *testing.T) {
		t.Parallel()
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusOK, "{}") })
		for _, id := range []string{"../admin", "a/b", "..", "%2e", `a\b`, ""} {
			requireInvalid(t, c.Do(context.Background(), RawRequest{Method: "GET", Path: "/compute/v1/things/{thing_id}", IDs: []string{id}}, nil), "thing_id", rec)
		}
	})
	for _, method := range []string{"GET", "POST"} {
		t.Run("redirected "+method, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var atBase, atOther []http.Header
				var hookSaw []string
				hc := twoOrigins(t, func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					atBase = append(atBase, r.Header.Clone())
					mu.Unlock()
					http.Redirect(w, r, "http://evil.example.net/steal", http.StatusTemporaryRedirect)
				}, func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					atOther = append(atOther, r.Header.Clone())
					mu.Unlock()
					replyRaw(w, http.StatusOK, "{}")
				}, &hookSaw)
				c, err := NewClient(testToken, WithBaseURL("http://api.example.test"), WithInsecureHTTP(), WithHTTPClient(hc), WithoutRateLimit())
				require.NoError(t, err)
				err = c.Do(context.Background(), RawRequest{Method: method, Path: "/compute/v1/things"}, nil)
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, atBase, 1)
				assert.Equal(t, "Bearer "+testToken, atBase[0].Get("Authorization"))
				if method == "POST" {
					require.ErrorIs(t, err, ErrOutcomeUnknown)
					assert.Empty(t, atOther, "a write is not followed to another host")
					return
				}
				require.NoError(t, err)
				require.Len(t, atOther, 1)
				for name, values := range atOther[0] {
					requireNoToken(t, name+": "+strings.Join(values, ", "))
				}
			})
		})
	}
}

// TestDoDecodesAnErrorIntoAPIError: a JSON error body becomes an *APIError with its code, the path
// as sent (its IDs scrubbed), the method and the attempts; a page that is not JSON keeps a bounded
// excerpt.
func TestDoDecodesAnErrorIntoAPIError(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/html") {
			replyRaw(w, http.StatusBadRequest, "<html>"+strings.Repeat("proxy says no ", 100<<10)+"</html>")
			return
		}
		w.Header().Set("X-Request-Id", "rid-7")
		replyJSON(w, http.StatusNotFound, map[string]string{"code": "02072", "message": "Bare metal cluster not found"})
	})
	err := c.Do(context.Background(), RawRequest{Method: "GET", Path: "/compute/v1/bare-metal-clusters/{cluster_id}",
		IDs: []string{"bm " + testToken}}, nil)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, CodeBareMetalClusterNotFound, apiErr.Code)
	assert.Equal(t, "Bare metal cluster not found", apiErr.Message)
	assert.Equal(t, "GET", apiErr.Method)
	assert.Equal(t, "/compute/v1/bare-metal-clusters/bm%20[REDACTED]", apiErr.Path)
	assert.Equal(t, "rid-7", apiErr.RequestID)
	assert.Equal(t, 1, apiErr.Attempts)
	assert.ErrorIs(t, err, ErrNotFound)
	requireNoToken(t, err.Error())

	err = c.Do(context.Background(), RawRequest{Method: "GET", Path: "/compute/v1/html"}, nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Empty(t, apiErr.Code)
	assert.True(t, strings.HasPrefix(apiErr.Message, "<html>proxy says no"), apiErr.Message)
	assert.LessOrEqual(t, len(apiErr.Message), maxExcerpt+len("…"))
}

// TestDoBoundsTheResponse: a success body past the bound (the SDK's 1 MiB, or MaxBody) is refused,
// not read whole; a POST's then has an unknown outcome; a MaxBody above 1 MiB lets a larger body
// through.
func TestDoBoundsTheResponse(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	size := func(r *http.Request) int {
		n := 1<<20 + 1
		if r.URL.Query().Get("size") == "small" {
			n = 101
		}
		return n
	}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		body := `{"pad": "` + strings.Repeat("x", size(r)-len(`{"pad": ""}`)) + `"}`
		n, _ := w.Write([]byte(body))
		served.Add(int64(n))
	})
	ctx := context.Background()
	var out map[string]any

	err := c.Do(ctx, RawRequest{Method: "GET", Path: "/compute/v1/huge"}, &out)
	require.ErrorIs(t, err, errTooLarge)
	assert.Contains(t, err.Error(), "1048576 bytes")
	assert.Nil(t, out)

	err = c.Do(ctx, RawRequest{Method: "POST", Path: "/compute/v1/huge"}, &out)
	require.ErrorIs(t, err, errTooLarge)
	require.ErrorIs(t, err, ErrOutcomeUnknown, "the POST was processed, but its response cannot be read")

	err = c.Do(ctx, RawRequest{Method: "GET", Path: "/compute/v1/small", Query: url.Values{"size": {"small"}}, MaxBody: 100}, &out)
	require.ErrorIs(t, err, errTooLarge)
	assert.Contains(t, err.Error(), "100 bytes")

	require.NoError(t, c.Do(ctx, RawRequest{Method: "GET", Path: "/compute/v1/huge", MaxBody: 2 << 20}, &out))
	assert.Len(t, out["pad"], 1<<20+1-len(`{"pad": ""}`))
}

// TestDoTellsTheObserver: the call's start, each attempt and its end, with the operation "Do", the
// method and the path template (no ID); CaptureResponse says the same.
func TestDoTellsTheObserver(t *testing.T) {
	t.Parallel()
	var ev events
	c, _ := newTestClient(t, withRequestID(sequence(func(w http.ResponseWriter, r *http.Request) {
		replyRaw(w, http.StatusOK, "{}")
	}, withStatus(http.StatusServiceUnavailable))), WithObserver(ev.observer()))
	var resp Response
	ctx := CaptureResponse(context.Background(), &resp)
	require.NoError(t, c.Do(ctx, RawRequest{Method: "GET", Path: "/compute/v1/regions/{region}", IDs: []string{"NORD-NO-KRS-1"}}, nil))

	ev.mu.Lock()
	defer ev.mu.Unlock()
	require.Len(t, ev.starts, 1)
	assert.Equal(t, "Do", ev.starts[0].Operation)
	assert.Equal(t, "GET", ev.starts[0].Method)
	assert.Equal(t, "/compute/v1/regions/{region}", ev.starts[0].Path)
	assert.NotEmpty(t, ev.starts[0].Host)
	require.Len(t, ev.attempts, 2)
	assert.Equal(t, http.StatusServiceUnavailable, ev.attempts[0].StatusCode)
	assert.True(t, ev.attempts[0].Retried)
	assert.Equal(t, "server error", ev.attempts[0].Reason)
	assert.Equal(t, http.StatusOK, ev.attempts[1].StatusCode)
	require.Len(t, ev.ends, 1)
	assert.NoError(t, ev.errs[0])
	want := Response{Operation: "Do", Method: "GET", Path: "/compute/v1/regions/{region}", StatusCode: 200, RequestID: "rid-2", Attempts: 2}
	for _, got := range []Response{ev.ends[0], resp} {
		got.Duration, got.LimiterWait = 0, 0
		assert.Equal(t, want, got)
	}
}

// throttleCounter is a countingLimiter that also counts the 429s reported to it.
type throttleCounter struct {
	countingLimiter
	throttled atomic.Int64
}

func (l *throttleCounter) Throttled(context.Context, time.Duration) { l.throttled.Add(1) }

// TestDoWaitsForTheLimiter: every attempt of a raw request waits for the client's limiter, and a
// 429 is reported to it.
func TestDoWaitsForTheLimiter(t *testing.T) {
	t.Parallel()
	lim := &throttleCounter{}
	c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
		replyRaw(w, http.StatusCreated, "{}")
	}, rateLimited("0")), WithLimiter(lim))
	require.NoError(t, c.Do(context.Background(), RawRequest{Method: "POST", Path: "/compute/v1/things"}, nil))
	assert.Equal(t, 2, rec.count())
	assert.Equal(t, int64(2), lim.waits.Load())
	assert.Equal(t, int64(2), lim.dones.Load(), "each response reported")
	assert.Equal(t, int64(1), lim.throttled.Load())
}

// TestDoDebugDumpIsScrubbed: the dump of a raw request shows it without the credential header and
// with the token scrubbed from what the service echoed.
func TestDoDebugDumpIsScrubbed(t *testing.T) {
	t.Parallel()
	var dump lockedBuffer
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		replyRaw(w, http.StatusOK, `{"echo": "`+r.Header.Get("Authorization")+`"}`)
	}, WithDebugDump(&dump))
	require.NoError(t, c.Do(context.Background(), RawRequest{Method: "PUT", Path: "/compute/v1/things/{id}", IDs: []string{"t-1"},
		Body: map[string]string{"note": "my token is " + testToken}}, nil))
	out := dump.String()
	assert.Contains(t, out, "> PUT http://")
	assert.Contains(t, out, "/compute/v1/things/t-1")
	assert.Contains(t, out, "my token is [REDACTED]")
	assert.Contains(t, out, "< X-Echo: Bearer [REDACTED]")
	assert.NotContains(t, out, "Authorization")
	requireNoToken(t, out)
}

// TestDoRefusesInvalidInput: each mistake is a *ValidationError naming what is wrong, before any
// request.
func TestDoRefusesInvalidInput(t *testing.T) {
	t.Parallel()
	var out struct{}
	cases := []struct {
		name  string
		r     RawRequest
		v     any
		field string
	}{
		{"no method", RawRequest{Path: "/compute/v1/x"}, nil, "method"},
		{"a lower-case method", RawRequest{Method: "get", Path: "/compute/v1/x"}, nil, "method"},
		{"HEAD", RawRequest{Method: "HEAD", Path: "/compute/v1/x"}, nil, "method"},
		{"no path", RawRequest{Method: "GET"}, nil, "path"},
		{"too few IDs", RawRequest{Method: "GET", Path: "/compute/v1/x/{a}/y/{b}", IDs: []string{"1"}}, nil, "ids"},
		{"too many IDs", RawRequest{Method: "GET", Path: "/compute/v1/x", IDs: []string{"1"}}, nil, "ids"},
		{"a body JSON cannot encode", RawRequest{Method: "POST", Path: "/compute/v1/x", Body: map[string]any{"c": make(chan int)}}, nil, "body"},
		{"invalid raw JSON", RawRequest{Method: "POST", Path: "/compute/v1/x", Body: json.RawMessage(`{"a":`)}, nil, "body"},
		{"a negative bound", RawRequest{Method: "GET", Path: "/compute/v1/x", MaxBody: -1}, nil, "max_body"},
		{"a bound past 64 MiB", RawRequest{Method: "GET", Path: "/compute/v1/x", MaxBody: 64<<20 + 1}, nil, "max_body"},
		{"v not a pointer", RawRequest{Method: "GET", Path: "/compute/v1/x"}, out, "v"},
		{"v a nil pointer", RawRequest{Method: "GET", Path: "/compute/v1/x"}, (*struct{})(nil), "v"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusOK, "{}") })
			requireInvalid(t, c.Do(context.Background(), tc.r, tc.v), tc.field, rec)
		})
	}
	t.Run("every problem at once", func(t *testing.T) {
		err := (&Client{}).Do(context.Background(), RawRequest{Method: "get", Path: "x", MaxBody: -1}, 3)
		var ve *ValidationError
		require.True(t, errors.As(err, &ve))
		assert.Len(t, ve.Problems, 4)
	})
}

// TestDoADeleteRetriedEndsOnTheKindsOwnNotFound: a raw DELETE of a path the SDK knows follows the
// rule of the SDK's own delete of that kind: after a lost first attempt, the instance's 404 (02008)
// says the first attempt deleted it, and any other 404 (an unrelated five-digit code, a gateway's
// page) proves nothing, so the outcome stays unknown.
func TestDoADeleteRetriedEndsOnTheKindsOwnNotFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string
		gone bool
	}{
		{"the instance's not-found", `{"code": "02008", "message": "Instance not found"}`, true},
		{"another code", `{"code": "04321", "message": "Something else not found"}`, false},
		{"a gateway's page", `{"code": "NotFound", "message": "no route"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
				replyRaw(w, http.StatusNotFound, tc.body)
			}, withStatus(http.StatusServiceUnavailable)))
			err := c.Do(context.Background(), RawRequest{Method: "DELETE", Path: "/compute/v1/instances/{id}", IDs: []string{"i-1"}}, nil)
			assert.Equal(t, 2, rec.count())
			if tc.gone {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrOutcomeUnknown)
		})
	}
	t.Run("a route the SDK does not have", func(t *testing.T) {
		t.Parallel()
		c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
			replyRaw(w, http.StatusNotFound, `{"code": "04321", "message": "Not found"}`)
		}, withStatus(http.StatusServiceUnavailable)))
		err := c.Do(context.Background(), RawRequest{Method: "DELETE", Path: "/compute/v1/bare-metal-clusters/{id}", IDs: []string{"bm-1"}}, nil)
		assert.Equal(t, 2, rec.count())
		require.ErrorIs(t, err, ErrOutcomeUnknown, "its kind's not-found code is unknown: no 404 proves the first attempt deleted it")
	})
}

// TestDoRefusesATokenInThePath: the path template is shown as it is (to observers, in log lines and
// errors), so a path holding the API token, or a run of five or more of its characters in any case,
// is refused before any request, and the token is in no error or log line; IDs, which are scrubbed
// wherever they are shown, may hold anything.
func TestDoRefusesATokenInThePath(t *testing.T) {
	t.Parallel()
	var ev events
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusOK, "{}") },
		WithObserver(ev.observer()))
	for _, path := range []string{"/compute/v1/" + testToken, "/compute/v1/x/" + strings.ToUpper(testToken[3:9])} {
		err := c.Do(context.Background(), RawRequest{Method: "GET", Path: path}, nil)
		requireInvalid(t, err, "path", rec)
		requireNoToken(t, err.Error())
	}
	ev.mu.Lock()
	assert.Empty(t, ev.starts)
	ev.mu.Unlock()
	require.NoError(t, c.Do(context.Background(), RawRequest{Method: "GET", Path: "/compute/v1/x/{id}", IDs: []string{testToken}}, nil))
	assert.Equal(t, 1, rec.count())
}
