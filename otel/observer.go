package computeotel

import (
	"context"
	"errors"
	"net/http"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans and metrics: this module's path.
const ScopeName = "github.com/compute-sdk/compute-go/otel"

// NewObserver returns a [compute.Observer] that records the client's calls, attempts, polls and
// pages as OpenTelemetry spans, events and metrics (see the package's documentation). Pass it to
// [compute.WithObserver], or use [WithInstrumentation].
func NewObserver(opts ...Option) compute.Observer {
	cfg := newConfig(opts)
	o := &observer{
		tracer: cfg.tracerProvider.Tracer(ScopeName,
			trace.WithInstrumentationVersion(compute.Version), trace.WithSchemaURL(semconv.SchemaURL)),
		inst: newInstruments(cfg.meterProvider.Meter(ScopeName,
			metric.WithInstrumentationVersion(compute.Version), metric.WithSchemaURL(semconv.SchemaURL))),
	}
	obs := compute.Observer{CallStart: o.callStart, CallEnd: o.callEnd, Attempt: o.attempt, Poll: o.poll, Page: o.page}
	if !cfg.noPropagation {
		prop := cfg.propagator
		obs.Request = func(ctx context.Context, h http.Header) {
			p := prop
			if p == nil {
				p = otel.GetTextMapPropagator() // the application's, whenever it set it
			}
			p.Inject(ctx, propagation.HeaderCarrier(h))
		}
	}
	return obs
}

// WithInstrumentation is the client option that records the client's calls with OpenTelemetry:
// compute.WithObserver(NewObserver(opts...)).
//
//	c, err := compute.NewClient(token, computeotel.WithInstrumentation())
func WithInstrumentation(opts ...Option) compute.Option {
	return compute.WithObserver(NewObserver(opts...))
}

// observer holds the tracer, the instruments, and what it computed once per operation or outcome.
type observer struct {
	tracer trace.Tracer
	inst   instruments

	calls    cache[compute.Call, *callInfo]
	outcomes cache[outcomeKey, measure]
	requests cache[requestKey, measure]
	retries  cache[retryKey, measure]
	ops      cache[string, measure]
	polls    cache[pollKey, measure]
}

// callInfo is what an operation's spans share: their names and starting attributes.
type callInfo struct {
	spanName    string // "compute.Instances.Get"
	attemptName string // "GET /compute/v1/instances/{instance_id}"
	// start is the options of a call's span and an attempt's: the kind client and the attributes
	// compute.operation, http.request.method, url.template, server.address and server.port.
	start []trace.SpanStartOption
}

func newCallInfo(call compute.Call) *callInfo {
	attrs := append([]attribute.KeyValue{
		operationKey.String(call.Operation),
		semconv.HTTPRequestMethodKey.String(call.Method),
		semconv.URLTemplate(call.Path),
	}, serverAttrs(call.Host)...)
	return &callInfo{spanName: "compute." + call.Operation, attemptName: call.Method + " " + call.Path,
		start: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...)}}
}

// callStart starts the call's span; the context it returns holds it, as the current span for what
// the call does and, when it is recorded, under the observer's own key for callEnd (another
// observer may start a span inside it). A span that is not recorded needs no end.
func (o *observer) callStart(ctx context.Context, call compute.Call) context.Context {
	info := o.calls.get(call, newCallInfo)
	ctx, span := o.tracer.Start(ctx, info.spanName, info.start...)
	if !span.IsRecording() {
		return ctx
	}
	return context.WithValue(ctx, o, span)
}

// callEnd records the call's metrics and ends its span. The not-found that proves a deleted
// resource gone is the answer its caller awaited, not an error.
func (o *observer) callEnd(ctx context.Context, resp compute.Response, err error) {
	if resp.Gone {
		err = nil
	}
	errType := ""
	if err != nil {
		errType = errorType(err)
	}
	m := o.outcomes.get(outcomeKey{resp.Operation, resp.Method, resp.StatusCode, errType}, outcomeKey.measure)
	o.inst.calls.Add(ctx, 1, m.add...)
	o.inst.callDuration.Record(ctx, resp.Duration.Seconds(), m.record...)

	span, _ := ctx.Value(o).(trace.Span)
	if span == nil {
		return
	}
	kv := make([]attribute.KeyValue, 0, 6)
	if resp.StatusCode > 0 {
		kv = append(kv, semconv.HTTPResponseStatusCode(resp.StatusCode))
	}
	if resp.Attempts > 1 {
		kv = append(kv, semconv.HTTPRequestResendCount(resp.Attempts-1))
	}
	if resp.RequestID != "" {
		kv = append(kv, requestIDKey.String(resp.RequestID))
	}
	if err != nil {
		kv = append(kv, semconv.ErrorTypeKey.String(errType))
		var apiErr *compute.APIError
		if errors.As(err, &apiErr) && apiErr.Code != "" {
			kv = append(kv, errorCodeKey.String(string(apiErr.Code)))
		}
		if errors.Is(err, compute.ErrOutcomeUnknown) {
			kv = append(kv, outcomeUnknownKey.Bool(true))
		}
		span.SetStatus(codes.Error, describe(err, errType))
	}
	span.SetAttributes(kv...)
	span.End()
}

// describe is the status description of a failed call: the status text and the service's code of
// a refusal ("Not Found, code 02008"), else its error.type. The error's own text is not used: it
// names the resource's ID and quotes the service's message.
func describe(err error, errType string) string {
	var apiErr *compute.APIError
	if errors.As(err, &apiErr) && errType == statusString(apiErr.StatusCode) {
		d := http.StatusText(apiErr.StatusCode)
		if d == "" {
			d = "status " + errType
		}
		if apiErr.Code != "" {
			d += ", code " + string(apiErr.Code)
		}
		return d
	}
	return errType
}

// attempt records an attempt's metrics and, under a recorded call span, its child span. The hook
// runs once the attempt ended, so the span is given its start (now less its duration) and its end.
func (o *observer) attempt(ctx context.Context, a compute.Attempt) {
	errType := ""
	if !a.Gone {
		errType = attemptErrorType(a)
	}
	op := a.Call.Operation
	m := o.outcomes.get(outcomeKey{op, a.Call.Method, a.StatusCode, errType}, outcomeKey.measure)
	o.inst.attempts.Add(ctx, 1, m.add...)
	r := o.requests.get(requestKey{a.Call, a.StatusCode, errType}, requestKey.measure)
	o.inst.requestDuration.Record(ctx, a.Duration.Seconds(), r.record...)
	opm := o.ops.get(op, operationMeasure)
	o.inst.limiterWait.Record(ctx, a.LimiterWait.Seconds(), opm.record...)
	if a.Retried {
		o.inst.retries.Add(ctx, 1, o.retries.get(retryKey{op, a.Reason}, retryKey.measure).add...)
	}
	if a.StatusCode == http.StatusTooManyRequests {
		o.inst.throttled.Add(ctx, 1, opm.add...)
	}

	// The call span is this observer's own (as callEnd finds it), not whatever span another
	// observer may have started inside it.
	call, _ := ctx.Value(o).(trace.Span)
	if call == nil || !call.IsRecording() {
		return
	}
	ctx = trace.ContextWithSpan(ctx, call)
	info := o.calls.get(a.Call, newCallInfo)
	end := time.Now()
	kv := make([]attribute.KeyValue, 0, 9)
	if a.StatusCode > 0 {
		kv = append(kv, semconv.HTTPResponseStatusCode(a.StatusCode))
	}
	if a.Number > 1 {
		kv = append(kv, semconv.HTTPRequestResendCount(a.Number-1))
	}
	kv = append(kv, retriedKey.Bool(a.Retried), limiterWaitKey.Float64(a.LimiterWait.Seconds()),
		backoffKey.Float64(a.Backoff.Seconds()))
	if a.Reason != "" {
		kv = append(kv, retryReasonKey.String(a.Reason))
	}
	if a.RetryAfter > 0 {
		kv = append(kv, retryAfterKey.Float64(a.RetryAfter.Seconds()))
	}
	if errType != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(errType))
	}
	// All the attributes at the start: the span is built once, and a sampler sees them all.
	_, span := o.tracer.Start(ctx, info.attemptName, info.start[0], info.start[1],
		trace.WithTimestamp(end.Add(-a.Duration)), trace.WithAttributes(kv...))
	if errType != "" {
		// The HTTP conventions leave the description empty when the status code tells the error.
		desc := ""
		if a.StatusCode == 0 {
			desc = errType
		}
		span.SetStatus(codes.Error, desc)
	}
	span.End(trace.WithTimestamp(end))
}

// poll counts a poll of a wait and, under a recorded span, adds it as an event. The resource's ID
// is left out: it is the caller's data.
func (o *observer) poll(ctx context.Context, p compute.Poll) {
	errType := ""
	if p.Err != nil && !p.Gone {
		errType = errorType(p.Err)
	}
	o.inst.polls.Add(ctx, 1, o.polls.get(pollKey{p.Resource, p.Shared, errType}, pollKey.measure).add...)
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	kv := []attribute.KeyValue{resourceKey.String(p.Resource), waitTargetKey.String(p.Target), pollSharedKey.Bool(p.Shared)}
	if p.Status != "" {
		kv = append(kv, pollStatusKey.String(p.Status))
	}
	if errType != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(errType))
	}
	span.AddEvent("compute.poll", trace.WithAttributes(kv...))
}

// page adds a page of a walk as an event of the current span, when it is recorded.
func (o *observer) page(ctx context.Context, p compute.PageRead) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.AddEvent("compute.page", trace.WithAttributes(operationKey.String(p.Operation),
		pageNumberKey.Int(p.Page), pageItemsKey.Int(p.Items), pageTotalKey.Int(p.TotalCount)))
}
