package computeotel

import (
	compute "github.com/compute-sdk/compute-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// The attribute sets of the metrics, each made once per key and kept in the observer's caches.

// measure is the options of a measurement with one attribute set, made once.
type measure struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

func newMeasure(kv ...attribute.KeyValue) measure {
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	return measure{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
}

// outcomeKey is the attributes of a call's or an attempt's counters.
type outcomeKey struct {
	operation, method string
	status            int
	errorType         string
}

func (k outcomeKey) measure() measure {
	kv := []attribute.KeyValue{operationKey.String(k.operation), semconv.HTTPRequestMethodKey.String(k.method)}
	return newMeasure(append(kv, outcomeAttrs(k.status, k.errorType)...)...)
}

// requestKey is the attributes of http.client.request.duration.
type requestKey struct {
	call      compute.Call
	status    int
	errorType string
}

func (k requestKey) measure() measure {
	kv := append([]attribute.KeyValue{semconv.HTTPRequestMethodKey.String(k.call.Method), semconv.URLTemplate(k.call.Path)},
		serverAttrs(k.call.Host)...)
	return newMeasure(append(kv, outcomeAttrs(k.status, k.errorType)...)...)
}

// retryKey is the attributes of compute.client.retries.
type retryKey struct{ operation, reason string }

func (k retryKey) measure() measure {
	return newMeasure(operationKey.String(k.operation), retryReasonKey.String(k.reason))
}

func operationMeasure(op string) measure { return newMeasure(operationKey.String(op)) }

// pollKey is the attributes of compute.client.waiter.polls.
type pollKey struct {
	resource  string
	shared    bool
	errorType string
}

func (k pollKey) measure() measure {
	kv := []attribute.KeyValue{resourceKey.String(k.resource), pollSharedKey.Bool(k.shared)}
	if k.errorType != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(k.errorType))
	}
	return newMeasure(kv...)
}

// outcomeAttrs are http.response.status_code, when a response arrived, and error.type, when it failed.
func outcomeAttrs(status int, errType string) []attribute.KeyValue {
	var kv []attribute.KeyValue
	if status > 0 {
		kv = append(kv, semconv.HTTPResponseStatusCode(status))
	}
	if errType != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(errType))
	}
	return kv
}
