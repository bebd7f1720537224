package computeotel_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

const (
	getSpan    = "compute.Instances.Get"
	getAttempt = "GET /compute/v1/instances/{instance_id}"
	getOp      = "compute.operation=Instances.Get,"
)

// createInstance creates an instance with a client that is not instrumented, and returns its ID.
func createInstance(t *testing.T, srv *computetest.Server, name string) string {
	t.Helper()
	inst, err := srv.Client().Instances.Create(context.Background(), &compute.InstanceCreateRequest{Name: name, Hostname: name,
		Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
	require.NoError(t, err)
	return inst.ID
}

// TestRetriedCallIsOneSpanWithItsAttempts: a Get that the service answers 503, 503, then 200 is one
// client span named after the operation, with the HTTP client attributes of its last response and
// the request ID, and three child spans, one per attempt, each with its own status, resend count,
// retry decision and error; the counters count one call, three attempts and two retries, and the
// histograms one call duration, three request durations and three limiter waits.
func TestRetriedCallIsOneSpanWithItsAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		c := srv.Client(tel.option())
		srv.FailNext(2, computetest.Match{Method: "GET", Path: "/compute/v1/instances/*"}, computetest.Fault{Status: 503})

		var resp compute.Response
		_, err := c.Instances.Get(compute.CaptureResponse(context.Background(), &resp), id)
		require.NoError(t, err)
		require.NotEmpty(t, resp.RequestID)

		spans := tel.ended()
		require.Len(t, spans, 4, "one call span and three attempt spans")
		calls := tel.named(getSpan)
		require.Len(t, calls, 1)
		call := calls[0]
		assert.Equal(t, trace.SpanKindClient, call.SpanKind)
		assert.Equal(t, codes.Unset, call.Status.Code, "a success leaves the status unset")
		assert.Equal(t, map[string]string{
			"compute.operation":         "Instances.Get",
			"http.request.method":       "GET",
			"url.template":              "/compute/v1/instances/{instance_id}",
			"server.address":            "127.0.0.1",
			"server.port":               "80",
			"http.response.status_code": "200",
			"http.request.resend_count": "2",
			"compute.request_id":        resp.RequestID,
		}, attrs(call.Attributes))
		assert.False(t, call.Parent.IsValid(), "no span in the caller's context: the call span is a root")

		attempts := tel.named(getAttempt)
		require.Len(t, attempts, 3)
		for i, a := range attempts {
			assert.Equal(t, call.SpanContext.TraceID(), a.SpanContext.TraceID(), "attempt %d", i+1)
			assert.Equal(t, call.SpanContext.SpanID(), a.Parent.SpanID(), "attempt %d is a child of the call", i+1)
			assert.Equal(t, trace.SpanKindClient, a.SpanKind)
			assert.False(t, a.StartTime.Before(call.StartTime) || a.EndTime.After(call.EndTime), "attempt %d within the call", i+1)
			assert.False(t, a.EndTime.Before(a.StartTime))
		}
		assert.True(t, attempts[1].StartTime.After(attempts[0].EndTime), "the backoff lies between two attempts")
		assert.True(t, attempts[2].StartTime.After(attempts[1].EndTime))

		for i, want := range []map[string]string{
			{"http.response.status_code": "503", "error.type": "503", "compute.retried": "true", "compute.retry.reason": "server error"},
			{"http.response.status_code": "503", "error.type": "503", "compute.retried": "true", "compute.retry.reason": "server error", "http.request.resend_count": "1"},
			{"http.response.status_code": "200", "compute.retried": "false", "http.request.resend_count": "2"},
		} {
			got := attrs(attempts[i].Attributes)
			for k, v := range want {
				assert.Equal(t, v, got[k], "attempt %d: %s", i+1, k)
			}
			for _, k := range []string{"error.type", "compute.retry.reason", "http.request.resend_count"} {
				if _, ok := want[k]; !ok {
					assert.NotContains(t, got, k, "attempt %d", i+1)
				}
			}
			assert.Equal(t, "GET", got["http.request.method"])
			assert.Equal(t, "/compute/v1/instances/{instance_id}", got["url.template"])
			assert.Equal(t, "127.0.0.1", got["server.address"])
			assert.Equal(t, "0", got["compute.limiter.wait"], "no rate limit: no wait")
			backoff, err := strconv.ParseFloat(got["compute.backoff"], 64)
			require.NoError(t, err)
			if i == 0 {
				assert.Zero(t, backoff, "the first attempt has no backoff")
			} else {
				assert.GreaterOrEqual(t, backoff, compute.DefaultRetryPolicy().MinWait.Seconds(), "attempt %d's backoff", i+1)
			}
		}
		assert.Equal(t, codes.Error, attempts[0].Status.Code, "a 503 attempt is an error")
		assert.Empty(t, attempts[0].Status.Description, "the status code tells the error")
		assert.Equal(t, codes.Error, attempts[1].Status.Code)
		assert.Equal(t, codes.Unset, attempts[2].Status.Code)

		rm := tel.metrics(t)
		assert.Equal(t, map[string]int64{getOp + "http.request.method=GET,http.response.status_code=200": 1},
			counts(t, rm, "compute.client.calls"))
		assert.Equal(t, map[string]int64{
			getOp + "error.type=503,http.request.method=GET,http.response.status_code=503": 2,
			getOp + "http.request.method=GET,http.response.status_code=200":                1,
		}, counts(t, rm, "compute.client.attempts"))
		assert.Equal(t, map[string]int64{getOp + "compute.retry.reason=server error": 2}, counts(t, rm, "compute.client.retries"))
		assert.False(t, recorded(rm, "compute.client.throttled"), "no 429, no throttled count")
		assert.False(t, recorded(rm, "compute.client.waiter.polls"))

		durations := histogram(t, rm, "compute.client.call.duration")
		require.Len(t, durations, 1)
		assert.EqualValues(t, 1, durations[getOp+"http.request.method=GET,http.response.status_code=200"].Count)
		waits := histogram(t, rm, "compute.client.limiter.wait")
		assert.EqualValues(t, 3, waits["compute.operation=Instances.Get"].Count, "one limiter wait per attempt")
		requests := histogram(t, rm, "http.client.request.duration")
		const where = "server.address=127.0.0.1,server.port=80,url.template=/compute/v1/instances/{instance_id}"
		assert.EqualValues(t, 2, requests["error.type=503,http.request.method=GET,http.response.status_code=503,"+where].Count)
		assert.EqualValues(t, 1, requests["http.request.method=GET,http.response.status_code=200,"+where].Count)
	})
}

// TestFailedCallSpans: a call that fails has the status Error and an error.type after the HTTP
// conventions (the status code of a refusal, a word for the rest), described by the status text
// and the service's code, never by the error's text; a write whose outcome is unknown says so; a
// request refused before it was sent has no attempt. The calls counter carries the same error.type.
// TestAttemptsAreChildrenOfTheCallSpanBesideAnotherObserver: a second observer that starts a span of
// its own inside the call does not become the attempts' parent: they stay children of the call span.
func TestAttemptsAreChildrenOfTheCallSpanBesideAnotherObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		other := tel.tp.Tracer("other")
		c := srv.Client(tel.option(), compute.WithObserver(compute.Observer{
			CallStart: func(ctx context.Context, _ compute.Call) context.Context {
				ctx, _ = other.Start(ctx, "other") // left open: only the parentage matters
				return ctx
			},
		}))
		_, err := c.Instances.Get(context.Background(), id)
		require.NoError(t, err)
		calls, attempts := tel.named(getSpan), tel.named(getAttempt)
		require.Len(t, calls, 1)
		require.Len(t, attempts, 1)
		assert.Equal(t, calls[0].SpanContext.SpanID(), attempts[0].Parent.SpanID())
	})
}

func TestFailedCallSpans(t *testing.T) {
	for _, tc := range []struct {
		name string
		// call makes the call with a client from client, the fake's with the test's instrumentation
		// and opts.
		call        func(srv *computetest.Server, client func(opts ...compute.Option) *compute.Client) error
		attrs       map[string]string // the call span's attributes beside operation, method, template and server
		description string
		attempts    []map[string]string // some attributes of each attempt span
	}{{
		name: "not found",
		call: func(_ *computetest.Server, client func(...compute.Option) *compute.Client) error {
			c := client()
			_, err := c.Instances.Get(context.Background(), "ins-missing")
			return err
		},
		attrs:       map[string]string{"error.type": "404", "http.response.status_code": "404", "compute.error_code": "02008"},
		description: "Not Found, code 02008",
		attempts:    []map[string]string{{"error.type": "404", "http.response.status_code": "404", "compute.retried": "false"}},
	}, {
		name: "refused before sending",
		call: func(_ *computetest.Server, client func(...compute.Option) *compute.Client) error {
			c := client()
			_, err := c.Instances.Get(context.Background(), "a/b")
			return err
		},
		attrs:       map[string]string{"error.type": "invalid_request"},
		description: "invalid_request",
	}, {
		name: "create answered 503: outcome unknown, not retried",
		call: func(srv *computetest.Server, client func(...compute.Option) *compute.Client) error {
			c := client()
			srv.FailNext(1, computetest.Match{Method: "POST", Path: "/compute/v1/instances"}, computetest.Fault{Status: 503})
			_, err := c.Instances.Create(context.Background(), &compute.InstanceCreateRequest{Name: "web-2", Hostname: "web-2",
				Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
			return err
		},
		attrs:       map[string]string{"error.type": "503", "http.response.status_code": "503", "compute.outcome_unknown": "true"},
		description: "Service Unavailable",
		attempts:    []map[string]string{{"error.type": "503", "compute.retried": "false"}},
	}, {
		name: "create dropped: outcome unknown, not retried",
		call: func(srv *computetest.Server, client func(...compute.Option) *compute.Client) error {
			c := client()
			srv.FailNext(1, computetest.Match{Method: "POST", Path: "/compute/v1/instances"}, computetest.Fault{Drop: true})
			_, err := c.Instances.Create(context.Background(), &compute.InstanceCreateRequest{Name: "web-2", Hostname: "web-2",
				Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
			return err
		},
		attrs:       map[string]string{"error.type": "connection_closed", "compute.outcome_unknown": "true"},
		description: "connection_closed",
		attempts:    []map[string]string{{"error.type": "connection_closed", "compute.retried": "false"}},
	}, {
		name: "connection dropped, then a 404",
		call: func(srv *computetest.Server, client func(...compute.Option) *compute.Client) error {
			// A new connection for each attempt: net/http itself re-sends a GET whose reused
			// connection was closed, and the SDK would see one attempt.
			c := client(compute.WithHTTPClient(&http.Client{Transport: &http.Transport{
				DialContext: srv.HTTPClient().Transport.(*http.Transport).DialContext, DisableKeepAlives: true}}))
			srv.FailNext(1, computetest.Match{Method: "GET"}, computetest.Fault{Drop: true})
			_, err := c.Instances.Get(context.Background(), "ins-missing")
			return err
		},
		attrs:       map[string]string{"error.type": "404", "http.response.status_code": "404", "compute.error_code": "02008", "http.request.resend_count": "1"},
		description: "Not Found, code 02008",
		attempts: []map[string]string{
			{"error.type": "connection_closed", "compute.retried": "true", "compute.retry.reason": "network error"},
			{"error.type": "404", "http.response.status_code": "404", "http.request.resend_count": "1"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tel := newTelemetry(t)
				srv := computetest.NewServer(computetest.WithInMemoryNetwork())
				defer srv.Close()
				client := func(opts ...compute.Option) *compute.Client {
					return srv.Client(append([]compute.Option{tel.option()}, opts...)...)
				}
				require.Error(t, tc.call(srv, client))

				spans := tel.ended()
				require.Len(t, spans, 1+len(tc.attempts))
				call := spans[len(spans)-1]
				assert.Equal(t, codes.Error, call.Status.Code)
				assert.Equal(t, tc.description, call.Status.Description)
				got := attrs(call.Attributes)
				for _, k := range []string{"compute.operation", "http.request.method", "url.template", "server.address", "server.port", "compute.request_id"} {
					delete(got, k)
				}
				assert.Equal(t, tc.attrs, got)
				for i, want := range tc.attempts {
					a := attrs(spans[i].Attributes)
					for k, v := range want {
						assert.Equal(t, v, a[k], "attempt %d: %s", i+1, k)
					}
					assert.Equal(t, call.SpanContext.SpanID(), spans[i].Parent.SpanID())
				}
				if n := len(tc.attempts); n > 0 {
					assert.Equal(t, codes.Error, spans[n-1].Status.Code, "the failed attempt is an error")
				}

				rm := tel.metrics(t)
				calls := counts(t, rm, "compute.client.calls")
				require.Len(t, calls, 1)
				for k, v := range calls {
					assert.Contains(t, k, "error.type="+tc.attrs["error.type"]+",")
					assert.EqualValues(t, 1, v)
				}
				assert.Equal(t, len(tc.attempts) > 0, recorded(rm, "compute.client.attempts"))
			})
		})
	}
}

// TestThrottledCallIsCounted: a 429 with Retry-After: 1 is counted as throttled and as a retry for
// "rate limited", its attempt span carries the Retry-After, and the next attempt's backoff is the
// second it asked for.
func TestThrottledCallIsCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		c := srv.Client(tel.option())
		srv.FailNext(1, computetest.Match{Method: "GET", Path: "/compute/v1/instances/*"}, computetest.Fault{Status: 429, RetryAfter: "1"})

		_, err := c.Instances.Get(context.Background(), id)
		require.NoError(t, err)

		attempts := tel.named(getAttempt)
		require.Len(t, attempts, 2)
		first, second := attrs(attempts[0].Attributes), attrs(attempts[1].Attributes)
		assert.Equal(t, "429", first["error.type"])
		assert.Equal(t, "rate limited", first["compute.retry.reason"])
		assert.Equal(t, "1", first["compute.retry_after"])
		backoff, err := strconv.ParseFloat(second["compute.backoff"], 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, backoff, 1.0, "the retry waited the second the 429 asked for")
		assert.Equal(t, "1", attrs(tel.named(getSpan)[0].Attributes)["http.request.resend_count"])

		rm := tel.metrics(t)
		assert.Equal(t, map[string]int64{"compute.operation=Instances.Get": 1}, counts(t, rm, "compute.client.throttled"))
		assert.Equal(t, map[string]int64{getOp + "compute.retry.reason=rate limited": 1}, counts(t, rm, "compute.client.retries"))
		assert.Equal(t, map[string]int64{getOp + "http.request.method=GET,http.response.status_code=200": 1},
			counts(t, rm, "compute.client.calls"))
	})
}

// TestLimiterWaitIsRecorded: with a rate of one request a second, the second of two calls waits
// about a second for the limiter, and the histogram and the attempt span say so.
func TestLimiterWaitIsRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		c := srv.Client(tel.option(), compute.WithRateLimit(1, 1))
		for range 2 {
			_, err := c.Instances.Get(context.Background(), id)
			require.NoError(t, err)
		}

		waits := histogram(t, tel.metrics(t), "compute.client.limiter.wait")["compute.operation=Instances.Get"]
		assert.EqualValues(t, 2, waits.Count)
		assert.GreaterOrEqual(t, waits.Sum, 0.9, "the second call waited about a second")
		max, ok := waits.Max.Value()
		require.True(t, ok)
		assert.GreaterOrEqual(t, max, 0.9)
		wait, err := strconv.ParseFloat(attrs(tel.named(getAttempt)[1].Attributes)["compute.limiter.wait"], 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, wait, 0.9)
	})
}
