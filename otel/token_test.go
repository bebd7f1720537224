package computeotel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// secretToken is distinctive: none of its runs of five characters occurs in anything the SDK or
// this package would export on their own.
const secretToken = "tok-SECRET-7Qz9Xw2Lk4Vb8Np3"

// leaks reports whether s holds the token or any run of five of its characters (what the SDK's
// scrubbing removes from a server's text).
func leaks(s, token string) bool {
	for i := 0; i+5 <= len(token); i++ {
		if strings.Contains(s, token[i:i+5]) {
			return true
		}
	}
	return strings.Contains(s, token)
}

// exported returns every string of what was exported: each span's name, attributes, events and
// their attributes, links and their attributes, status description, resource and scope; each
// metric's name, description, unit, resource, scope and every data point's and exemplar's
// attributes; and, for what a walk could miss, the JSON of the spans and of the metrics.
func exported(t *testing.T, spans tracetest.SpanStubs, rm metricdata.ResourceMetrics) []string {
	t.Helper()
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	kvs := func(kv []attribute.KeyValue) {
		for _, a := range kv {
			add(string(a.Key), a.Value.String())
		}
	}
	set := func(s attribute.Set) { kvs(s.ToSlice()) }
	res := func(r *resource.Resource) {
		if r != nil {
			kvs(r.Attributes())
		}
	}
	scope := func(s instrumentation.Scope) {
		add(s.Name, s.Version, s.SchemaURL)
		set(s.Attributes)
	}
	for _, s := range spans {
		add(s.Name, s.Status.Description, s.SpanContext.TraceState().String())
		kvs(s.Attributes)
		for _, e := range s.Events {
			add(e.Name)
			kvs(e.Attributes)
		}
		for _, l := range s.Links {
			add(l.SpanContext.TraceState().String())
			kvs(l.Attributes)
		}
		res(s.Resource)
		scope(s.InstrumentationScope)
	}
	res(rm.Resource)
	for _, sm := range rm.ScopeMetrics {
		scope(sm.Scope)
		for _, m := range sm.Metrics {
			add(m.Name, m.Description, m.Unit)
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					set(dp.Attributes)
					for _, e := range dp.Exemplars {
						kvs(e.FilteredAttributes)
					}
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					set(dp.Attributes)
					for _, e := range dp.Exemplars {
						kvs(e.FilteredAttributes)
					}
				}
			default:
				require.Failf(t, "unexpected metric type", "%s is %T: walk it too", m.Name, m.Data)
			}
		}
	}
	js, err := json.Marshal(spans)
	require.NoError(t, err)
	add(string(js))
	js, err = json.Marshal(rm)
	require.NoError(t, err)
	add(string(js))
	return out
}

// requireNoToken fails the test when any string exported holds the token or a run of it.
func requireNoToken(t *testing.T, tel *telemetry) {
	t.Helper()
	spans, rm := tel.ended(), tel.metrics(t)
	require.NotEmpty(t, spans)
	require.NotEmpty(t, rm.ScopeMetrics)
	for _, s := range exported(t, spans, rm) {
		require.False(t, leaks(s, secretToken), "the token, or a run of it, was exported: %q", s)
	}
}

// TestTokenCheckFindsAPlantedToken: the walk and the check find the token, or five characters of
// it, in a span attribute, an event, a status description and a metric attribute, so that the
// tests below cannot pass by looking nowhere.
func TestTokenCheckFindsAPlantedToken(t *testing.T) {
	planted := secretToken[11:16]
	for _, plant := range []func(tel *telemetry){
		func(tel *telemetry) {
			_, s := tel.userSpan(context.Background(), "x")
			s.SetAttributes(attribute.StringSlice("a", []string{"b", "[" + planted + "]"}))
			s.End()
		},
		func(tel *telemetry) {
			_, s := tel.userSpan(context.Background(), "x")
			s.AddEvent("e", trace.WithAttributes(attribute.String("a", planted)))
			s.End()
		},
		func(tel *telemetry) {
			_, s := tel.userSpan(context.Background(), "x")
			s.SetStatus(codes.Error, "failed: "+planted)
			s.End()
		},
		func(tel *telemetry) {
			_, s := tel.userSpan(context.Background(), "x")
			s.End()
			c, err := tel.mp.Meter("m").Int64Counter("c")
			require.NoError(t, err)
			c.Add(context.Background(), 1, metric.WithAttributes(attribute.String("a", planted)))
		},
	} {
		tel := newTelemetry(t)
		plant(tel)
		found := false
		for _, s := range exported(t, tel.ended(), tel.metrics(t)) {
			found = found || leaks(s, secretToken)
		}
		assert.True(t, found, "the planted run was not found")
	}
}

// TestTokenNeverExported drives every path the observer records (a create, a Get retried twice,
// a 404, a 429, a wait, a walk of pages, a request refused before sending) with a distinctive token,
// and finds neither the token nor any five of its characters in a span, an event, a status, a
// link, a resource, a scope or a metric.
func TestTokenNeverExported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithToken(secretToken),
			computetest.WithDurations(computetest.Durations{InstanceCreate: 3 * time.Second}))
		defer srv.Close()
		c := srv.Client(tel.option())
		ctx, span := tel.userSpan(context.Background(), "everything")

		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "web-1", Hostname: "web-1",
			Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
		require.NoError(t, err)
		_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
		srv.FailNext(2, computetest.Match{Method: "GET", Path: "/compute/v1/instances/*"}, computetest.Fault{Status: 503})
		_, err = c.Instances.Get(ctx, inst.ID)
		require.NoError(t, err)
		srv.FailNext(1, computetest.Match{Method: "GET", Path: "/compute/v1/instances/*"}, computetest.Fault{Status: 429, RetryAfter: "1"})
		_, err = c.Instances.Get(ctx, inst.ID)
		require.NoError(t, err)
		_, err = c.Instances.Get(ctx, "ins-missing")
		require.ErrorIs(t, err, compute.ErrNotFound)
		_, err = c.Instances.Get(ctx, "a/b")
		require.ErrorIs(t, err, compute.ErrInvalidRequest)
		for _, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: 1}) {
			require.NoError(t, err)
		}
		span.End()

		names := map[string]bool{}
		for _, s := range tel.ended() {
			names[s.Name] = true
		}
		for _, name := range []string{"compute.Instances.Create", getSpan, getAttempt, "compute.Instances.List", "everything"} {
			assert.True(t, names[name], "no span %s: the test no longer drives what it says", name)
		}
		rm := tel.metrics(t)
		for _, name := range []string{"compute.client.throttled", "compute.client.retries", "compute.client.waiter.polls"} {
			assert.True(t, recorded(rm, name), "no metric %s", name)
		}
		requireNoToken(t, tel)
	})
}

// TestTokenNeverExportedFromAHostileServer: a server that echoes the Authorization header into
// X-Request-Id, into a refusal's code and message, and into a resource's status cannot make the
// observer export the token: the SDK scrubs what it reports, and the observer exports no error text.
func TestTokenNeverExportedFromAHostileServer(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		echo := r.Header.Get("Authorization")
		w.Header().Set("X-Request-Id", echo)
		w.Header().Set("Content-Type", "application/json")
		quoted, _ := json.Marshal(echo)
		if r.Method == http.MethodGet && r.URL.Path == "/compute/v1/instances/i-1" {
			fmt.Fprintf(w, `{"instance": {"id": "i-1", "name": "n", "status": %s}}`, quoted)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"code": %s, "message": %s}`, quoted, quoted)
	}))
	defer hs.Close()
	tel := newTelemetry(t)
	c, err := compute.NewClient(secretToken, compute.WithBaseURL(hs.URL), compute.WithoutRetries(),
		compute.WithoutRateLimit(), tel.option())
	require.NoError(t, err)
	ctx, span := tel.userSpan(context.Background(), "hostile")

	_, err = c.Instances.Get(ctx, "i-1")
	require.NoError(t, err)
	_, err = c.Instances.Get(ctx, "i-2")
	require.ErrorIs(t, err, compute.ErrBadRequest)
	_, err = c.Instances.List(ctx, nil)
	require.Error(t, err)
	// The wait ends after its first poll, which sees the echoed status, when the callback cancels it
	// (and within a minute if it does not).
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	_, err = c.Instances.WaitForStatus(waitCtx, "i-1", compute.InstanceStatusActive,
		compute.OnUpdate(func(*compute.Instance) { cancel() }))
	cancel()
	require.ErrorIs(t, err, context.Canceled)
	span.End()

	var sawPoll, sawCode, sawRequestID bool
	for _, s := range tel.ended() {
		for _, e := range s.Events {
			sawPoll = sawPoll || (e.Name == "compute.poll" && attrs(e.Attributes)["compute.poll.status"] != "")
		}
		a := attrs(s.Attributes)
		sawCode = sawCode || a["compute.error_code"] != ""
		sawRequestID = sawRequestID || a["compute.request_id"] != ""
	}
	assert.True(t, sawPoll && sawCode && sawRequestID, "the echoed values were exported (scrubbed): poll %v, code %v, request ID %v",
		sawPoll, sawCode, sawRequestID)
	requireNoToken(t, tel)
}
