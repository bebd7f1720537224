package compute

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Sentinel errors. An [*APIError] matches the sentinel of its status class through errors.Is:
//
//	if errors.Is(err, compute.ErrNotFound) { ... }
var (
	// ErrBadRequest matches a 400 or 422 response: the service rejected the request as invalid.
	ErrBadRequest = errors.New("compute: bad request")
	// ErrUnauthorized matches a 401 response or code 02014: the credential is missing or invalid.
	ErrUnauthorized = errors.New("compute: unauthorized")
	// ErrForbidden matches a 403 response, or codes 02043 and 01204 (permission denied).
	ErrForbidden = errors.New("compute: forbidden")
	// ErrNotFound matches a 404 response: the resource does not exist.
	ErrNotFound = errors.New("compute: not found")
	// ErrConflict matches a refusal because of a resource's state, whatever its HTTP status: a 409,
	// or a code that says so (most come as 400), such as 02013 (the status does not allow a delete),
	// 02038 (protected) or 02066 (in use). Such a refusal can go away when the state changes.
	ErrConflict = errors.New("compute: conflict")
	// ErrQuotaExceeded matches a refusal because an account quota is full, whatever its HTTP
	// status: codes 02010, 02012, 02049 and 02073.
	ErrQuotaExceeded = errors.New("compute: quota exceeded")
	// ErrRateLimited matches a 429 response: the service did not process the request.
	ErrRateLimited = errors.New("compute: rate limited")
	// ErrServer matches any 5xx response.
	ErrServer = errors.New("compute: server error")
	// ErrOutcomeUnknown matches the failure of a call that may have changed something without the
	// client learning what: a POST or an attach or detach whose response was a 5xx, was lost after
	// the request was written, or could not be read; or a write refused after an earlier attempt of
	// it may have been processed, since the refusal can be about that attempt. Such a write is never
	// re-sent (an instance would be billed twice): look the resource up before trying again, as the
	// CreateOnce methods do. The error wraps the cause, so errors.As with an [*APIError] works.
	ErrOutcomeUnknown = errors.New("compute: outcome unknown, the request may have been processed")
	// ErrInvalidRequest matches a [*ValidationError]: the SDK refused the input before sending it.
	ErrInvalidRequest = errors.New("compute: invalid request")
)

// maxExcerpt bounds what of a body that is not the JSON error shape is kept in [APIError.Message].
const maxExcerpt = 512

// ErrorCode is the service's five-digit error code ("02008"). Codes are stable while messages
// change. An ErrorCode is an error, so errors.Is(err, compute.CodeInstanceNotFound) works.
type ErrorCode string

// Description returns the contract's meaning of the code, or "" for a code the contract does not list.
func (c ErrorCode) Description() string { return codeDescriptions[c] }

// Error makes a code usable as an errors.Is target; it reads "02008 (Instance not found)".
func (c ErrorCode) Error() string {
	if d := c.Description(); d != "" {
		return string(c) + " (" + d + ")"
	}
	return string(c)
}

// APIError is a non-2xx response of the service.
type APIError struct {
	StatusCode int       // HTTP status of the last attempt
	Code       ErrorCode // the service's error code; "" when the body had none
	// Message is the service's message, or an excerpt of a body that was not the JSON error shape.
	Message    string
	Method     string        // HTTP method of the operation
	Path       string        // request path, escaped, without host or query
	RequestID  string        // the response's X-Request-Id
	Attempts   int           // requests sent, retries included
	RetryAfter time.Duration // the wait the service asked for (Retry-After)
}

// Error reads like "compute: GET /compute/v1/instances/x: 404 Not Found: code 02008 (Instance not
// found): no such instance [request_id=abc, attempts=1]". It never contains the API token.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compute: %s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Code != "" {
		fmt.Fprintf(&b, ": code %s", e.Code.Error())
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	fmt.Fprintf(&b, " [")
	if e.RequestID != "" {
		fmt.Fprintf(&b, "request_id=%s, ", e.RequestID)
	}
	fmt.Fprintf(&b, "attempts=%d]", e.Attempts)
	return b.String()
}

// LogValue makes log/slog write e as a group of attributes rather than one string: status, code,
// message, method, path, request_id, attempts and retry_after, those that are set. Each string is
// cut as the error's own are; none holds the token. A nil e logs as nothing.
func (e *APIError) LogValue() slog.Value {
	if e == nil {
		return slog.AnyValue(nil)
	}
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.Int("status", e.StatusCode))
	if e.Code != "" {
		attrs = append(attrs, slog.String("code", cutString(string(e.Code))))
	}
	if e.Message != "" {
		attrs = append(attrs, slog.String("message", cutString(e.Message)))
	}
	attrs = append(attrs, slog.String("method", cutString(e.Method)), slog.String("path", cutString(e.Path)))
	if e.RequestID != "" {
		attrs = append(attrs, slog.String("request_id", cutString(e.RequestID)))
	}
	attrs = append(attrs, slog.Int("attempts", e.Attempts))
	if e.RetryAfter > 0 {
		attrs = append(attrs, slog.Duration("retry_after", e.RetryAfter))
	}
	return slog.GroupValue(attrs...)
}

// Is matches an [ErrorCode] equal to e.Code, and the sentinel of e's status class (see [ErrNotFound]
// and its siblings). Code 02014 also matches [ErrUnauthorized]; 02043 and 01204 match [ErrForbidden].
func (e *APIError) Is(target error) bool {
	if code, ok := target.(ErrorCode); ok {
		return e.Code != "" && e.Code == code
	}
	switch target {
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.Code == CodeAuthTokenNotProvided
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden || e.Code == CodePermissionDenied || e.Code == CodeAuthPermissionDenied
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict || slices.Contains(stateCodes, e.Code)
	case ErrQuotaExceeded:
		return slices.Contains(quotaCodes, e.Code)
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500 && e.StatusCode <= 599
	}
	return false
}

// The service's codes that [ErrConflict] and [ErrQuotaExceeded] match.
var (
	stateCodes = []ErrorCode{
		CodeSnapshotAlreadyInProgress, CodeDeleteRequiresActive, CodeSnapshotInUse, CodeAttachedVolumeNotDeletable,
		CodeUpdateRequiresActive, CodeSecurityGroupLocked, CodeSecurityGroupUsedByInstances, CodeInstanceAlreadyStarted,
		CodeSecurityGroupAttachFailed, CodeSecurityGroupDetachFailed, CodeVolumeAttachFailed, CodeVolumeDetachFailed,
		CodeInstanceNotUpdatable, CodeSnapshotRequiresActive, CodeTerminationProtected, CodeInstanceCannotStart,
		CodeVolumeLocked, CodeVolumeAlreadyAttached, CodeFloatingIPInUse, CodeSecurityGroupInUse, CodeVolumeInUse,
		CodeDeleteRequiresRunningOrStopped, CodeMigrationAlreadyInitiated,
	}
	quotaCodes = []ErrorCode{CodeMaxQuotaReached, CodeSnapshotQuotaReached, CodeStaticPublicIPQuotaReached, CodeBareMetalClusterPendingLimit}
)

// Retryable reports whether the same request may succeed later unchanged: a 429, 502, 503 or 504.
// Waits poll through these errors.
func (e *APIError) Retryable() bool {
	switch e.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Temporary reports the same as [APIError.Retryable].
//
// Deprecated: use Retryable. Temporary will be removed in the release after v0.2.0.
func (e *APIError) Temporary() bool { return e.Retryable() }

// newAPIError builds the error of a non-2xx response. A body that is not the JSON error shape
// leaves Code empty and keeps an excerpt. cred (nil for none) scrubs the token from all it takes
// from the response, before cutting, since a proxy may echo the request's headers.
func newAPIError(resp *http.Response, body []byte, method, path string, attempts int, cred *credential) *APIError {
	e := &APIError{
		StatusCode: resp.StatusCode,
		Method:     method,
		Path:       path,
		Attempts:   attempts,
	}
	if v := resp.Header.Get("Retry-After"); v != "" {
		e.RetryAfter = parseRetryAfter(v, time.Now())
	}
	redact, outside := func(s string) string { return s }, cutString
	if cred != nil {
		redact, outside = cred.redact, cred.outside
	}
	e.RequestID = outside(resp.Header.Get("X-Request-Id"))
	body = []byte(redact(string(body)))
	var shape struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &shape); err == nil && (shape.Code != "" || shape.Message != "" || carriesErrorKeys(body)) {
		// JSON escapes ("\/", "\u0041") can spell the token otherwise in the body and decode back
		// to it, so the decoded strings are scrubbed too.
		e.Code = ErrorCode(outside(shape.Code))
		e.Message = outside(shape.Message)
		return e
	}
	// The excerpt replaces bytes; scrub again what its replacements could have joined up.
	e.Message = redact(excerpt(body))
	return e
}

// maxErrorString bounds each string an APIError takes from a response.
const maxErrorString = 4 << 10

// cutString cuts s to at most maxErrorString bytes, at a character boundary, marking the cut.
func cutString(s string) string {
	if len(s) <= maxErrorString {
		return s
	}
	return cutRunes(s, maxErrorString-len("…")) + "…"
}

// cutRunes returns s's first n bytes at most, cut back to a character boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(n, 0)]
}

// carriesErrorKeys reports whether body has a non-null "code" or "message": {"code": ""} is the
// error shape, {} is not.
func carriesErrorKeys(body []byte) bool {
	var shape struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
	}
	return json.Unmarshal(body, &shape) == nil && (shape.Code != nil || shape.Message != nil)
}

// excerpt returns at most maxExcerpt bytes of body as one line of valid UTF-8. Nothing is deleted,
// so no two parts of the body are joined that were not adjacent in it.
func excerpt(body []byte) string {
	truncated := len(body) > maxExcerpt
	if truncated {
		body = body[:maxExcerpt]
	}
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(body), "\uFFFD"))
	if len(s) > maxExcerpt {
		// A lone invalid byte becomes three bytes; cut back to whole characters.
		s, truncated = cutRunes(s, maxExcerpt), true
	}
	s = strings.TrimSpace(s)
	if truncated {
		s += "…"
	}
	return s
}

// ValidationError reports input that the SDK refused before sending any request. It lists every
// problem at once; Field and Reason repeat the first.
type ValidationError struct {
	// Field is the first offending field in its JSON spelling ("rules[2].port_range_min").
	Field  string
	Reason string // what is wrong with it
	// Problems are all the problems found, in the order of the request's fields.
	Problems []FieldError
}

// FieldError is one problem of a request: a field in its JSON spelling and what is wrong with it.
type FieldError struct {
	Field  string // JSON spelling, with indexes ("rules[2].port_range_min")
	Reason string // what is wrong with it
}

// Error reads "compute: invalid request: disk_size: must be at least 80", or, with several problems,
// "compute: invalid request: 2 problems: name: is required; region: is required", up to ten.
func (e *ValidationError) Error() string {
	if len(e.Problems) <= 1 {
		return fmt.Sprintf("compute: invalid request: %s: %s", e.Field, e.Reason)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "compute: invalid request: %d problems: ", len(e.Problems))
	for i, p := range e.Problems[:min(len(e.Problems), maxListed)] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Field + ": " + p.Reason)
	}
	if n := len(e.Problems) - maxListed; n > 0 {
		fmt.Fprintf(&b, "; and %d more", n)
	}
	return b.String()
}

// maxListed bounds the problems a [ValidationError]'s text lists, and maxQuoted the bytes of a
// value a reason quotes.
const (
	maxListed = 10
	maxQuoted = 64
)

// LogValue makes log/slog write e as a group of attributes: the first field and its reason, and
// how many problems there are. A nil e logs as nothing.
func (e *ValidationError) LogValue() slog.Value {
	if e == nil {
		return slog.AnyValue(nil)
	}
	return slog.GroupValue(slog.String("field", cutString(e.Field)), slog.String("reason", cutString(e.Reason)),
		slog.Int("problems", max(len(e.Problems), 1)))
}

// Is makes errors.Is(err, ErrInvalidRequest) hold.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidRequest }

// invalid builds a *ValidationError with one problem.
func invalid(field, format string, args ...any) error {
	var p problems
	p.add(field, format, args...)
	return p.err()
}

// problems collects every problem of a request; Validate methods add to one and return its err.
type problems []FieldError

// add records a problem of field; a string argument longer than maxQuoted bytes is cut.
func (p *problems) add(field, format string, args ...any) {
	for i, a := range args {
		if v := reflect.ValueOf(a); v.Kind() == reflect.String && v.Len() > maxQuoted {
			args[i] = cutRunes(v.String(), maxQuoted) + "…"
		}
	}
	*p = append(*p, FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// err is nil when no problem was recorded, else a *ValidationError listing them all.
func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return &ValidationError{Field: p[0].Field, Reason: p[0].Reason, Problems: p}
}
