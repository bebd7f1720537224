package computeotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures [NewObserver] and [WithInstrumentation].
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	noPropagation  bool
}

// WithTracerProvider sets the provider of the spans; nil, like no option, means the global one
// (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider sets the provider of the metrics; nil, like no option, means the global one
// (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithPropagator sets the propagator that writes the trace context (the traceparent header, with
// propagation.TraceContext) into each request the client sends; nil, like no option, means the
// global one (otel.GetTextMapPropagator, read as each request is sent), which writes nothing until
// the application sets one.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// WithoutPropagation sends no trace context: the spans of the service, or of a proxy before it, do
// not join the caller's trace.
func WithoutPropagation() Option {
	return func(c *config) { c.noPropagation = true }
}

// newConfig applies opts over the global providers.
func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	return c
}
