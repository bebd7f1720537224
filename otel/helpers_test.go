package computeotel_test

import (
	"context"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	computeotel "github.com/compute-sdk/compute-go/otel"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// telemetry is an OpenTelemetry SDK that keeps what it records: the ended spans in an in-memory
// exporter (synchronously, as each span ends) and the metrics behind a manual reader.
type telemetry struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T, opts ...sdktrace.TracerProviderOption) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithSyncer(tel.spans)}, opts...)...)
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

// option instruments a client with this telemetry's providers.
func (tel *telemetry) option() compute.Option {
	return computeotel.WithInstrumentation(computeotel.WithTracerProvider(tel.tp), computeotel.WithMeterProvider(tel.mp))
}

// ended returns the spans that ended, in the order they ended.
func (tel *telemetry) ended() tracetest.SpanStubs { return tel.spans.GetSpans() }

// named returns the ended spans named name.
func (tel *telemetry) named(name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range tel.ended() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// metrics collects the metrics recorded so far.
func (tel *telemetry) metrics(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, tel.reader.Collect(context.Background(), &rm))
	return rm
}

// instrument returns the metric named name, failing the test when none was recorded.
func instrument(t *testing.T, rm metricdata.ResourceMetrics, name string) metricdata.Metrics {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m
			}
		}
	}
	require.Failf(t, "metric not recorded", "no metric %q", name)
	return metricdata.Metrics{}
}

// recorded reports whether a metric named name was recorded at all.
func recorded(rm metricdata.ResourceMetrics, name string) bool {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return true
			}
		}
	}
	return false
}

// counts returns a counter's values by the attribute set of each data point, spelt by attrString.
func counts(t *testing.T, rm metricdata.ResourceMetrics, name string) map[string]int64 {
	t.Helper()
	sum, ok := instrument(t, rm, name).Data.(metricdata.Sum[int64])
	require.True(t, ok, "%s is not an int64 counter", name)
	require.True(t, sum.IsMonotonic, "%s is not monotonic", name)
	out := map[string]int64{}
	for _, dp := range sum.DataPoints {
		out[attrString(dp.Attributes)] += dp.Value
	}
	return out
}

// histogram returns a histogram's data points by the attribute set of each.
func histogram(t *testing.T, rm metricdata.ResourceMetrics, name string) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	m := instrument(t, rm, name)
	require.Equal(t, "s", m.Unit, "%s's unit", name)
	h, ok := m.Data.(metricdata.Histogram[float64])
	require.True(t, ok, "%s is not a float64 histogram", name)
	out := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, dp := range h.DataPoints {
		out[attrString(dp.Attributes)] = dp
	}
	return out
}

// attrString spells an attribute set as "k=v,k=v", sorted by key (as attribute.Set keeps them).
func attrString(s attribute.Set) string { return s.Encoded(attribute.DefaultEncoder()) }

// attrs returns a span's or an event's attributes as a map of their values, spelt by Value.String.
func attrs(kv []attribute.KeyValue) map[string]string {
	out := map[string]string{}
	for _, a := range kv {
		out[string(a.Key)] = a.Value.String()
	}
	return out
}

// userSpan starts a span of the caller's on tel's provider, above the SDK's calls.
func (tel *telemetry) userSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	return tel.tp.Tracer("test").Start(ctx, name)
}
