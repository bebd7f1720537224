package computeotel_test

// BenchmarkGetWithOtel measures what the instrumentation adds to a call: the same Get, against the
// same loopback server responding a fixed body, through the same keep-alive transport, by a client
// without instrumentation (otel=off), with it on OpenTelemetry's no-op providers (otel=noop: wired,
// no SDK installed), and with it on the OpenTelemetry SDK (otel=sdk: every span sampled and handed
// to a batch processor whose exporter drops it, every metric aggregated). Its paired sub-benchmark
// alternates one call without and one with the SDK in the same loop, so that both see the same
// machine load, and reports the difference and the ratio:
//
//	go test -run '^$' -bench GetWithOtel -benchmem -count 6 .

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	computeotel "github.com/compute-sdk/compute-go/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// benchInstance is the body of the fixed server's 200: an instance as the service spells it.
const benchInstance = `{"instance": {"id": "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", "name": "web-1", "hostname": "web-1",
 "type": "n1.large", "region": "eu-west-1", "image": {"id": "img-3b7c9d21", "name": "Ubuntu 24.04"},
 "ssh_keys": [{"id": "key-1a2b3c", "name": "deploy"}], "security_groups": [{"id": "sg-4d5e6f", "name": "web"}],
 "is_protected": false, "status": "active", "public_ip": "203.0.113.10", "private_ip": "10.0.0.10",
 "created_at": "2026-01-15T09:00:00.000Z"}}`

// discardExporter drops the spans a batch processor hands it.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// benchClients returns a loopback server's clients without instrumentation, with it on the no-op
// providers, and with it on the SDK.
func benchClients(b *testing.B) (off, noop, sdk *compute.Client) {
	b.Helper()
	var n atomic.Int64
	body := []byte(benchInstance)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("X-Request-Id", "req-"+strconv.FormatInt(n.Add(1), 10))
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithBatcher(discardExporter{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	hc := srv.Client()
	client := func(opts ...compute.Option) *compute.Client {
		c, err := compute.NewClient("bench-token-0123456789",
			append([]compute.Option{compute.WithBaseURL(srv.URL), compute.WithHTTPClient(hc), compute.WithoutRateLimit()}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	return client(),
		client(computeotel.WithInstrumentation(computeotel.WithTracerProvider(tracenoop.NewTracerProvider()),
			computeotel.WithMeterProvider(metricnoop.NewMeterProvider()))),
		client(computeotel.WithInstrumentation(computeotel.WithTracerProvider(tp), computeotel.WithMeterProvider(mp)))
}

func benchGet(b *testing.B, c *compute.Client) {
	if _, err := c.Instances.Get(context.Background(), "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f"); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkGetWithOtel(b *testing.B) {
	off, noop, sdk := benchClients(b)
	for _, tc := range []struct {
		name string
		c    *compute.Client
	}{{"off", off}, {"noop", noop}, {"sdk", sdk}} {
		b.Run("otel="+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchGet(b, tc.c)
			}
		})
	}
	b.Run("paired", func(b *testing.B) {
		var offTime, sdkTime time.Duration
		timed := func(c *compute.Client, into *time.Duration) {
			start := time.Now()
			benchGet(b, c)
			*into += time.Since(start)
		}
		n := 0
		for b.Loop() {
			if n%2 == 0 {
				timed(off, &offTime)
				timed(sdk, &sdkTime)
			} else {
				timed(sdk, &sdkTime)
				timed(off, &offTime)
			}
			n++
		}
		offNs, sdkNs := float64(offTime)/float64(n), float64(sdkTime)/float64(n)
		b.ReportMetric(offNs, "off-ns/call")
		b.ReportMetric(sdkNs, "sdk-ns/call")
		b.ReportMetric(sdkNs-offNs, "extra-ns/call")
		b.ReportMetric(sdkNs/offNs, "sdk/off")
		offAllocs, sdkAllocs := mallocs(b, off), mallocs(b, sdk)
		b.ReportMetric(sdkAllocs-offAllocs, "extra-allocs/call")
	})
}

// mallocs is the heap allocations of one Get by c, the server's included, over 200 calls.
func mallocs(b *testing.B, c *compute.Client) float64 {
	const calls = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		benchGet(b, c)
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / calls
}

// BenchmarkObserverHooks measures the instrumentation alone, without the network: one call's
// hooks (CallStart, one Attempt, CallEnd), as a client without retries calls them, on the no-op
// providers, with the SDK's metrics only (a no-op tracer), and with the SDK's traces and metrics.
func BenchmarkObserverHooks(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(discardExporter{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	call := compute.Call{Operation: "Instances.Get", Method: "GET", Path: "/compute/v1/instances/{instance_id}", Host: "127.0.0.1:8080"}
	attempt := compute.Attempt{Call: call, Number: 1, StatusCode: 200, Duration: 50 * time.Microsecond}
	resp := compute.Response{Operation: call.Operation, Method: call.Method, Path: call.Path, StatusCode: 200,
		RequestID: "req-1", Attempts: 1, Duration: 60 * time.Microsecond}
	for _, tc := range []struct {
		name string
		o    compute.Observer
	}{
		{"noop", computeotel.NewObserver(computeotel.WithTracerProvider(tracenoop.NewTracerProvider()),
			computeotel.WithMeterProvider(metricnoop.NewMeterProvider()))},
		{"metrics", computeotel.NewObserver(computeotel.WithTracerProvider(tracenoop.NewTracerProvider()),
			computeotel.WithMeterProvider(mp))},
		{"sdk", computeotel.NewObserver(computeotel.WithTracerProvider(tp), computeotel.WithMeterProvider(mp))},
	} {
		b.Run("otel="+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx := tc.o.CallStart(context.Background(), call)
				tc.o.Attempt(ctx, attempt)
				tc.o.CallEnd(ctx, resp, nil)
			}
		})
	}
}
