package computeotel

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	compute "github.com/compute-sdk/compute-go"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// The SDK's own attributes, beside OpenTelemetry's HTTP client ones (semconv).
const (
	operationKey      = attribute.Key("compute.operation")       // "Instances.Get"
	requestIDKey      = attribute.Key("compute.request_id")      // the last response's X-Request-Id
	errorCodeKey      = attribute.Key("compute.error_code")      // the service's code of a refusal, "02008"
	outcomeUnknownKey = attribute.Key("compute.outcome_unknown") // a write that may have been processed
	retriedKey        = attribute.Key("compute.retried")         // whether the attempt is followed by another
	retryReasonKey    = attribute.Key("compute.retry.reason")    // "server error", "rate limited", ...
	limiterWaitKey    = attribute.Key("compute.limiter.wait")    // seconds the attempt waited for the limiter
	backoffKey        = attribute.Key("compute.backoff")         // seconds between the previous attempt and this one
	retryAfterKey     = attribute.Key("compute.retry_after")     // seconds a 429 asked to wait
	resourceKey       = attribute.Key("compute.resource")        // the kind awaited, "instance"
	waitTargetKey     = attribute.Key("compute.wait.target")     // the status awaited, "active" or "deleted"
	pollStatusKey     = attribute.Key("compute.poll.status")     // the status a poll saw
	pollSharedKey     = attribute.Key("compute.poll.shared")     // the status came from a walk serving several waits
	pageNumberKey     = attribute.Key("compute.page.number")
	pageItemsKey      = attribute.Key("compute.page.items")
	pageTotalKey      = attribute.Key("compute.page.total_count")
)

// errorType is the error.type of a call's or an attempt's failure, after OpenTelemetry's HTTP
// conventions: the status code of a refusal ("404"), or a short word for a failure without one:
// "canceled", "timeout", "connection_closed", "connection_refused", "invalid_request" (the SDK
// refused the input before sending), or "_OTHER". A call that its context ended is "canceled" or
// "timeout" even after a refusal, since the context is why it stopped; a refusal wrapped as an
// unknown outcome keeps its status code.
func errorType(err error) string {
	var (
		apiErr *compute.APIError
		netErr net.Error
	)
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.As(err, &apiErr):
		return statusString(apiErr.StatusCode)
	case errors.Is(err, compute.ErrInvalidRequest):
		return "invalid_request"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return "connection_closed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection_refused"
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// attemptErrorType is an attempt's error.type: its status code from 400 on, the type of its
// failure when no response arrived, "" when it succeeded.
func attemptErrorType(a compute.Attempt) string {
	switch {
	case a.StatusCode >= 400:
		return statusString(a.StatusCode)
	case a.Err != nil:
		return errorType(a.Err)
	}
	return ""
}

// statusStrings spells the status codes, so that an attribute of one costs no allocation.
var statusStrings = func() (s [600]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// statusString is code in decimal.
func statusString(code int) string {
	if code >= 0 && code < len(statusStrings) {
		return statusStrings[code]
	}
	return strconv.Itoa(code)
}

// serverAttrs are server.address and, when host names one, server.port: host as the base URL
// spells it ("api.example.com", "127.0.0.1:8080", "[::1]:8080").
func serverAttrs(host string) []attribute.KeyValue {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		return []attribute.KeyValue{semconv.ServerAddress(strings.Trim(host, "[]"))}
	}
	kv := []attribute.KeyValue{semconv.ServerAddress(name)}
	if n, err := strconv.Atoi(port); err == nil {
		kv = append(kv, semconv.ServerPort(n))
	}
	return kv
}
