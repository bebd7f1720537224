package computeotel_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	computeotel "github.com/compute-sdk/compute-go/otel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestUnsampledCallsAreCountedNotTraced: a call whose span is not sampled records no attempt span
// either, and its metrics all the same.
func TestUnsampledCallsAreCountedNotTraced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t, sdktrace.WithSampler(sdktrace.NeverSample()))
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		srv.FailNext(2, computetest.Match{Method: "GET", Path: "/compute/v1/instances/*"}, computetest.Fault{Status: 503})
		_, err := srv.Client(tel.option()).Instances.Get(context.Background(), id)
		require.NoError(t, err)

		assert.Empty(t, tel.ended())
		rm := tel.metrics(t)
		assert.Equal(t, map[string]int64{getOp + "http.request.method=GET,http.response.status_code=200": 1},
			counts(t, rm, "compute.client.calls"))
		assert.Len(t, counts(t, rm, "compute.client.attempts"), 2, "503 twice, then 200")
	})
}

// TestTwoObserversEndTheirOwnSpans: two instrumentations on one client (two backends, say) each
// end their own call span, though the second's is the current span when the call ends.
func TestTwoObserversEndTheirOwnSpans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first, second := newTelemetry(t), newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		_, err := srv.Client(first.option(), second.option()).Instances.Get(context.Background(), id)
		require.NoError(t, err)

		for i, tel := range []*telemetry{first, second} {
			require.Len(t, tel.named(getSpan), 1, "observer %d's call span ended", i+1)
			require.Len(t, tel.named(getAttempt), 1, "observer %d's attempt span", i+1)
		}
		assert.Equal(t, first.named(getSpan)[0].SpanContext.SpanID(), second.named(getSpan)[0].Parent.SpanID(),
			"the second observer's span is inside the first's")
	})
}

// TestGlobalProvidersByDefault: without options, the observer records to the global providers.
func TestGlobalProvidersByDefault(t *testing.T) {
	tel := newTelemetry(t)
	tp, mp := otel.GetTracerProvider(), otel.GetMeterProvider()
	otel.SetTracerProvider(tel.tp)
	otel.SetMeterProvider(tel.mp)
	t.Cleanup(func() { otel.SetTracerProvider(tp); otel.SetMeterProvider(mp) })

	srv := computetest.NewServer()
	defer srv.Close()
	id := createInstance(t, srv, "web-1")
	_, err := srv.Client(computeotel.WithInstrumentation()).Instances.Get(context.Background(), id)
	require.NoError(t, err)

	assert.Len(t, tel.named(getSpan), 1)
	assert.Equal(t, map[string]int64{getOp + "http.request.method=GET,http.response.status_code=200": 1},
		counts(t, tel.metrics(t), "compute.client.calls"))
}

// TestErrorType: error.type is the status code of a refusal, even wrapped as an unknown outcome;
// the context's end wins over a refusal before it; the rest are short words or "_OTHER".
func TestErrorType(t *testing.T) {
	notFound := &compute.APIError{StatusCode: 404}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{notFound, "404"},
		{fmt.Errorf("%w: %w", compute.ErrOutcomeUnknown, &compute.APIError{StatusCode: 503}), "503"},
		{fmt.Errorf("compute: GET /x: %w (after %w)", context.Canceled, notFound), "canceled"},
		{fmt.Errorf("compute: GET /x: %w", context.DeadlineExceeded), "timeout"},
		{&net.OpError{Op: "dial", Err: timeoutError{}}, "timeout"},
		{&compute.ValidationError{Field: "instance_id", Reason: "must not be empty"}, "invalid_request"},
		{fmt.Errorf("compute: GET /x: %w", io.ErrUnexpectedEOF), "connection_closed"},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, "connection_closed"},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, "connection_refused"},
		{errors.New("something else"), "_OTHER"},
	} {
		assert.Equal(t, tc.want, computeotel.ErrorType(tc.err), "%v", tc.err)
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// TestServerAttrs: server.address is the host without brackets, server.port its port when the base
// URL names one.
func TestServerAttrs(t *testing.T) {
	for host, want := range map[string]map[string]string{
		"api.example.com":      {"server.address": "api.example.com"},
		"api.example.com:8443": {"server.address": "api.example.com", "server.port": "8443"},
		"[::1]:8080":           {"server.address": "::1", "server.port": "8080"},
		"[::1]":                {"server.address": "::1"},
	} {
		assert.Equal(t, want, attrs(computeotel.ServerAttrs(host)), host)
	}
}
