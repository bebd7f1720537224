package computeotel_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	computeotel "github.com/compute-sdk/compute-go/otel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// traceparents returns the traceparent header of each request the server received, in order.
func traceparents(srv *computetest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.Header.Get("Traceparent"))
	}
	return out
}

// TestTraceContextReachesTheService: every attempt's request carries a traceparent naming the
// caller's trace, with the call's span as the parent, so that the service's spans join the trace.
func TestTraceContextReachesTheService(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		c := srv.Client(computeotel.WithInstrumentation(computeotel.WithTracerProvider(tel.tp),
			computeotel.WithMeterProvider(tel.mp), computeotel.WithPropagator(propagation.TraceContext{})))
		srv.ResetRequests()
		srv.FailNext(1, computetest.Match{Method: "GET", Path: "/compute/v1/instances/*"}, computetest.Fault{Status: 503})

		ctx, span := tel.userSpan(context.Background(), "deploy")
		_, err := c.Instances.Get(ctx, id)
		require.NoError(t, err)
		span.End()

		calls := tel.named(getSpan)
		require.Len(t, calls, 1)
		want := "00-" + span.SpanContext().TraceID().String() + "-" + calls[0].SpanContext.SpanID().String() + "-01"
		assert.Equal(t, []string{want, want}, traceparents(srv), "both attempts carry the call's trace context")
	})
}

// TestTraceContextPropagatorIsTheApplications: with no option the global propagator writes the
// trace context (nothing until the application sets one); WithoutPropagation turns it off.
func TestTraceContextPropagatorIsTheApplications(t *testing.T) {
	before := otel.GetTextMapPropagator()
	t.Cleanup(func() { otel.SetTextMapPropagator(before) })
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		global := srv.Client(tel.option())
		off := srv.Client(computeotel.WithInstrumentation(computeotel.WithTracerProvider(tel.tp),
			computeotel.WithMeterProvider(tel.mp), computeotel.WithoutPropagation()))
		ctx, span := tel.userSpan(context.Background(), "deploy")
		defer span.End()
		list := func(c *compute.Client) string {
			t.Helper()
			srv.ResetRequests()
			_, err := c.Images.List(ctx, nil)
			require.NoError(t, err)
			got := traceparents(srv)
			require.Len(t, got, 1)
			return got[0]
		}

		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
		assert.Empty(t, list(global), "the application set no trace propagator")
		otel.SetTextMapPropagator(propagation.TraceContext{})
		got := list(global)
		assert.True(t, strings.HasPrefix(got, "00-"+span.SpanContext().TraceID().String()+"-"), got)
		assert.Empty(t, list(off), "WithoutPropagation")
	})
}

// TestSuccessfulDeleteAndWaitIsNoError: the 404 that proves a deletion done is an answer: a
// successful DeleteAndWait, whether it waits through deleting or finds the instance gone already,
// exports no span with status Error and no metric with an error.type.
func TestSuccessfulDeleteAndWaitIsNoError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithDurations(computetest.Durations{InstanceDelete: 5_000_000_000}))
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		c := srv.Client(tel.option())

		ctx, span := tel.userSpan(context.Background(), "teardown")
		require.NoError(t, c.Instances.DeleteAndWait(ctx, id))
		require.NoError(t, c.Instances.DeleteAndWait(ctx, id), "gone already")
		require.NoError(t, c.Instances.WaitForDeletion(ctx, id))
		span.End()

		require.NotEmpty(t, tel.named(getSpan), "the wait read the instance")
		for _, s := range tel.ended() {
			assert.NotEqual(t, "Error", s.Status.Code.String(), "%s: %s", s.Name, s.Status.Description)
			assert.NotContains(t, attrs(s.Attributes), "error.type", s.Name)
			for _, e := range s.Events {
				assert.NotContains(t, attrs(e.Attributes), "error.type", "%s's %s", s.Name, e.Name)
			}
		}
		rm := tel.metrics(t)
		for _, name := range []string{"compute.client.calls", "compute.client.attempts", "compute.client.waiter.polls"} {
			for k := range counts(t, rm, name) {
				assert.NotContains(t, k, "error.type", name)
			}
		}
		for _, name := range []string{"compute.client.call.duration", "http.client.request.duration"} {
			for k := range histogram(t, rm, name) {
				assert.NotContains(t, k, "error.type", name)
			}
		}
		assert.Contains(t, counts(t, rm, "compute.client.calls"),
			"compute.operation=Instances.Get,http.request.method=GET,http.response.status_code=404", "the 404 is still counted, as an answer")
	})
}
