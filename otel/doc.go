// Package computeotel turns the compute SDK's [compute.Observer] hooks into OpenTelemetry traces and
// metrics. It is a module of its own, so that the SDK itself depends on no OpenTelemetry package.
//
//	c, err := compute.NewClient(token, compute.WithBaseURL(url), computeotel.WithInstrumentation())
//
// With no option it uses the global providers (otel.GetTracerProvider and otel.GetMeterProvider);
// [WithTracerProvider] and [WithMeterProvider] pass others.
//
// # Traces
//
// Each call is a span of kind client named after the operation ("compute.Instances.Get"), with
// OpenTelemetry's HTTP client attributes: http.request.method, server.address, server.port,
// url.template (the path template, which holds no ID), http.response.status_code (the last
// response's), http.request.resend_count (when retried) and error.type; and the SDK's own:
// compute.operation, compute.request_id (the last response's X-Request-Id), compute.error_code (the
// service's code of a refusal) and compute.outcome_unknown (a write that may have been processed).
// A failed call's status is Error, described by its HTTP status text and error code, never by the
// error's text, which names the resource's ID.
//
// Each attempt is a child span of kind client, as the HTTP conventions ask for each request sent,
// named "GET /compute/v1/instances/{instance_id}", with the same HTTP attributes for that attempt
// and compute.retried, compute.retry.reason, compute.limiter.wait, compute.backoff and
// compute.retry_after (seconds). It is recorded only under a recorded call span.
//
// Each poll of a wait ("compute.poll") and each page of a walk ("compute.page") is an event on the
// span of the context the wait or the walk was given, when there is one: these run above the calls,
// so their context holds the caller's span, not a call's.
//
// The not-found that proves a deleted resource gone (the reads of a wait for deletion, a
// DeleteAndWait of what is gone already) is no error: no Error status and no error.type, in spans,
// events or metrics.
//
// # Trace context
//
// Each request the client sends, retries included, carries its call's trace context, written by the
// application's propagator (otel.GetTextMapPropagator, read as each request is sent), so that the
// service's spans join the caller's trace. [WithPropagator] names another; [WithoutPropagation]
// sends none.
//
// # Metrics
//
//	compute.client.calls           counter {call}       compute.operation, http.request.method, http.response.status_code, error.type
//	compute.client.call.duration   histogram s          as compute.client.calls
//	compute.client.attempts        counter {attempt}    as compute.client.calls, for the attempt
//	http.client.request.duration   histogram s          the HTTP conventions' attributes of the attempt
//	compute.client.retries         counter {retry}      compute.operation, compute.retry.reason
//	compute.client.throttled       counter {response}   compute.operation (each 429 response)
//	compute.client.limiter.wait    histogram s          compute.operation (each attempt's wait)
//	compute.client.waiter.polls    counter {poll}       compute.resource, compute.poll.shared, error.type
//
// # The token
//
// Nothing this package exports comes from the token: the SDK scrubs it from every error, request ID
// and status it reports, and this package exports no URL, no header, no error text and no ID.
// Metric attributes hold only operation names, methods, status codes, error types, retry reasons
// and resource kinds, so their cardinality is bounded.
package computeotel
