package computeotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Option configures [NewObserver] and [WithInstrumentation].
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
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
