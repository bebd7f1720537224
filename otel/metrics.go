package computeotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.43.0/httpconv"
)

// instruments are the metrics an observer records.
type instruments struct {
	calls           metric.Int64Counter
	callDuration    metric.Float64Histogram
	attempts        metric.Int64Counter
	requestDuration metric.Float64Histogram // http.client.request.duration, per attempt
	retries         metric.Int64Counter
	throttled       metric.Int64Counter
	limiterWait     metric.Float64Histogram
	polls           metric.Int64Counter
}

// durationBuckets are the bounds, in seconds, of the call duration's histogram: the HTTP
// conventions' bounds, and then the minutes a call that retries and waits can take.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120}

// waitBuckets are the bounds, in seconds, of the limiter wait's histogram: most attempts wait
// nothing, a paced one a fraction of the interval, one after a 429 up to its Retry-After.
var waitBuckets = []float64{0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// newInstruments creates the instruments on m. An instrument that cannot be created is reported to
// OpenTelemetry's error handler and records nothing (the SDK returns a no-op one with the error).
func newInstruments(m metric.Meter) instruments {
	var (
		in   instruments
		errs []error
		err  error
	)
	check := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	in.calls, err = m.Int64Counter("compute.client.calls",
		metric.WithUnit("{call}"), metric.WithDescription("Calls of the compute SDK, by operation and outcome."))
	check(err)
	in.callDuration, err = m.Float64Histogram("compute.client.call.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of the compute SDK's calls, retries and waits included."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(err)
	in.attempts, err = m.Int64Counter("compute.client.attempts",
		metric.WithUnit("{attempt}"), metric.WithDescription("Requests the compute SDK sent, retries included, by operation and outcome."))
	check(err)
	d, err := httpconv.NewClientRequestDuration(m)
	in.requestDuration = d.Inst()
	check(err)
	in.retries, err = m.Int64Counter("compute.client.retries",
		metric.WithUnit("{retry}"), metric.WithDescription("Attempts the compute SDK retried, by operation and reason."))
	check(err)
	in.throttled, err = m.Int64Counter("compute.client.throttled",
		metric.WithUnit("{response}"), metric.WithDescription("429 responses the compute SDK received, by operation."))
	check(err)
	in.limiterWait, err = m.Float64Histogram("compute.client.limiter.wait",
		metric.WithUnit("s"), metric.WithDescription("Time each attempt waited for the client-side rate limiter."),
		metric.WithExplicitBucketBoundaries(waitBuckets...))
	check(err)
	in.polls, err = m.Int64Counter("compute.client.waiter.polls",
		metric.WithUnit("{poll}"), metric.WithDescription("Polls of the compute SDK's waits, by resource kind."))
	check(err)
	for _, e := range errs {
		otel.Handle(e)
	}
	return in
}
