package compute

// This file is the whole attempt path, in the order a request meets it:
//
//	do (call.go) -> go-retryablehttp's loop -> http.Client (redirects) -> attemptTransport.RoundTrip:
//	    limiter -> credential -> per-attempt timeout -> the network -> read the body
//	-> retrier.checkRetry: classify (the retry policy, a pure function) -> retrier.backoff -> again.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy bounds how the client retries. What is retried never depends on the policy:
//   - a 429 is retried for every method, since the contract says the request was not processed;
//   - a 500, 502, 503, 504, a network error or a response cut off while its body was read is
//     retried only for idempotent operations (GET, PUT, DELETE and this API's PATCH, whose every
//     variant sets absolute values);
//   - a POST is retried only when its request was provably not written (no connection, a failed TLS
//     handshake, a timeout while connecting), so nothing reached the service.
//
// Waits grow exponentially with full jitter between MinWait and MaxWait. A Retry-After from the
// service replaces the computed wait and is capped at MaxWait; when the caller's context deadline
// comes before the wait ends, the call fails at once with the 429 instead of sleeping into a timeout.
// Every wait ends when the context ends.
type RetryPolicy struct {
	// MaxRetries is how many times a request may be re-sent after the first attempt (default 4).
	MaxRetries int
	// MinWait is the shortest wait before a retry (default 250 ms).
	MinWait time.Duration
	// MaxWait caps every wait, Retry-After included (default 30 s).
	MaxWait time.Duration
}

// DefaultRetryPolicy returns the policy a client has unless [WithRetry] or [WithoutRetries] is given:
// 4 retries, waits from 250 ms up to 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 4, MinWait: 250 * time.Millisecond, MaxWait: 30 * time.Second}
}

// callState is what the attempts of one call share. do puts it in the request's context, the one
// place go-retryablehttp hands to both the transport and the retry hooks. It needs no lock: the
// transport and the hooks all run on the caller's goroutine, one after another, since
// go-retryablehttp and http.Client call them synchronously. (The trace hooks, which net/http may
// call from its own goroutines, write only to their attempt's local atomics.)
type callState struct {
	op operation
	n  int // attempts so far
	// written is whether the current attempt's request may have reached the service.
	written bool
	// processed is whether some attempt may have been processed by the service without the client
	// seeing its result (a 5xx, a lost or unreadable response).
	processed bool
	// wait is the wait checkRetry chose for the next retry; -1 when it chose none.
	wait time.Duration
	// last is the last non-2xx response, kept so that an error after it still carries it.
	last *lastResponse
}

// lastResponse is a response whose body the transport read.
type lastResponse struct {
	resp *http.Response
	body []byte
}

type callStateKey struct{}

func withCallState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, callStateKey{}, st)
}

// stateOf returns the call's state; a request that did not come from do gets a fresh one.
func stateOf(ctx context.Context) *callState {
	if st, ok := ctx.Value(callStateKey{}).(*callState); ok {
		return st
	}
	return &callState{}
}

// attemptTransport runs once per attempt, under the retry loop and under http.Client, so once per
// redirect too. It waits for the limiter, adds the credential when the request goes to the base
// URL's origin (never to another host), bounds the attempt with the per-attempt timeout, notes
// whether the request was written, reads the response's body, and logs the attempt.
//
// It must not implement CloseIdleConnections: go-retryablehttp calls
// HTTPClient.CloseIdleConnections when it gives up, which would drop the whole keep-alive pool
// after every failed call. http.Client forwards that call only to a transport that has the method.
type attemptTransport struct {
	next    http.RoundTripper
	limiter Limiter
	cred    credential
	scheme  string
	host    string
	timeout time.Duration
	logger  *slog.Logger
}

// String keeps the transport's %v short.
func (t *attemptTransport) String() string { return "compute.attemptTransport{" + t.host + "}" }

// RoundTrip implements http.RoundTripper.
func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	done, err := t.limiter.Wait(parent)
	if err != nil {
		return nil, &notSentError{err}
	}
	st := stateOf(parent)
	st.n++
	n := st.n
	st.written = true

	// The trace tells a failure before the request's headers were complete on the connection (no
	// connection, a failed TLS handshake, a timeout while connecting): then the service cannot have
	// processed it. A transport that does not report GetConn leaves the attempt counted as written.
	var gotConn, wroteHeaders atomic.Bool
	trace := &httptrace.ClientTrace{
		GetConn:      func(string) { gotConn.Store(true) },
		WroteHeaders: func() { wroteHeaders.Store(true) },
	}
	ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(parent, trace), t.timeout)
	defer cancel()
	out := req.Clone(ctx)
	if req.URL.Scheme == t.scheme && req.URL.Host == t.host {
		// The credential goes on this attempt's own copy of the request, never on the request the
		// caller's http.Client sees: its CheckRedirect hook and the headers it copies onto a
		// redirect never hold the token, and a request to any other origin leaves without it. The
		// origin is compared as spelled: a redirect that spells the same origin otherwise ("HOST",
		// ":443") goes without the token, which fails safe (the service responds 401).
		name, value := t.cred.header()
		out.Header.Set(name, value)
	}

	start := time.Now()
	resp, err := t.next.RoundTrip(out)
	if done != nil && err == nil {
		done() // the service has counted the request (see Limiter)
	}
	var body []byte
	if err == nil {
		// The body is read here, inside the attempt: the per-attempt timeout covers it, and a
		// response cut off mid-body is this attempt's failure, which the retry policy sees.
		body, err = readBody(resp, st.op)
	}
	if err != nil {
		if (gotConn.Load() && !wroteHeaders.Load()) || isDialError(err) {
			st.written = false
		}
		if ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
			err = fmt.Errorf("compute: attempt timed out after %s: %w", t.timeout, err)
		}
		t.log(parent, "compute: attempt failed", req, n, start, slog.String("error", t.cred.redact(err.Error())))
		return nil, err
	}
	resp.Body = &attemptBody{Reader: bytes.NewReader(body), data: body}
	// The response points at the request this transport was given, not at the attempt's copy, which
	// carries the credential: the caller's http.Client hands resp.Request to its CheckRedirect hook.
	resp.Request = req
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		st.last = &lastResponse{resp: resp, body: body}
	}
	t.log(parent, "compute: attempt", req, n, start, slog.Int("status", resp.StatusCode),
		slog.String("request_id", t.cred.redact(resp.Header.Get("X-Request-Id"))))
	return resp, nil
}

// log writes one debug line about an attempt, when the logger wants debug lines.
func (t *attemptTransport) log(ctx context.Context, msg string, req *http.Request, n int, start time.Time, attrs ...slog.Attr) {
	if !t.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs = append(attrs, slog.String("method", req.Method), slog.String("path", t.cred.redact(req.URL.EscapedPath())),
		slog.Int("attempt", n), slog.Duration("duration", time.Since(start)))
	t.logger.LogAttrs(ctx, slog.LevelDebug, msg, attrs...)
}

// maxErrorBody bounds how much of a non-2xx response's body is read.
const maxErrorBody = 64 << 10

// errTooLarge ends a call whose success response is larger than the operation's bound.
var errTooLarge = errors.New("the response body is larger than the client accepts")

// attemptBody is a response body that the attempt read whole; the call takes its bytes (bodyBytes)
// instead of copying them out.
type attemptBody struct {
	*bytes.Reader
	data []byte
}

// Close implements io.Closer; the connection was released when the body was read.
func (*attemptBody) Close() error { return nil }

// bodyBytes returns the bytes of a response body: those the attempt read, or, for a body that did
// not come through attemptTransport, what is left to read.
func bodyBytes(body io.Reader) ([]byte, error) {
	if b, ok := body.(*attemptBody); ok {
		return b.data, nil
	}
	return io.ReadAll(body)
}

// readBody reads resp's body and closes it: a success response up to op's bound (larger is
// errTooLarge, never retried), any other response up to maxErrorBody (the rest is dropped).
func readBody(resp *http.Response, op operation) ([]byte, error) {
	defer resp.Body.Close()
	limit := int64(maxErrorBody)
	success := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if success {
		limit = op.bodyLimit()
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil && success:
		return nil, fmt.Errorf("reading the response (status %d): %w", resp.StatusCode, err)
	case int64(len(body)) > limit && success:
		return nil, fmt.Errorf("%w (%d bytes)", errTooLarge, limit)
	case int64(len(body)) > limit:
		body = body[:limit]
		// A little more is read and dropped, so that a body just past the bound leaves the
		// connection reusable.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	}
	return body, nil // a broken error body keeps what arrived
}

// classify is the retry policy, a pure function of one attempt's result: the operation, the
// response's status (0 when there was none), the transport error, and whether the request may have
// been written. retry says whether to send it again; processed, whether the service may have
// processed this attempt without the client learning its result.
func classify(op operation, status int, err error, written bool) (retry, processed bool) {
	if err != nil {
		switch {
		case isNotSent(err):
			return false, false // the limiter's wait ended: nothing was sent
		case errors.Is(err, errTooLarge):
			return false, true // a success response: the request was processed
		case errors.Is(err, errCrossOriginWrite):
			return false, true // a response came, so it may have been processed; never followed
		case !written:
			return permanentTransportError(err) == nil, false
		case !op.idempotent:
			return false, true // it may have been processed: never re-sent
		default:
			return permanentTransportError(err) == nil, true
		}
	}
	switch status {
	case http.StatusTooManyRequests:
		return true, false // the contract: the request was not processed
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return op.idempotent, true
	}
	return false, status >= 500
}

// permanentTransportError returns err when retrying cannot help: a bad certificate, too many
// redirects, an unsupported scheme, an invalid header. go-retryablehttp's classification of these
// is right; only its verdict is used.
func permanentTransportError(err error) error {
	if retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err); retry {
		return nil
	}
	return err
}

// retrier holds the go-retryablehttp hooks, which only apply classify and the waits.
type retrier struct {
	policy  RetryPolicy
	limiter Limiter
	logger  *slog.Logger
}

// checkRetry decides whether an attempt is retried (see [RetryPolicy] and classify).
func (r *retrier) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := stateOf(ctx)
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	retry, processed := classify(st.op, status, err, st.written)
	st.processed = st.processed || processed
	st.wait = -1
	if !retry || ctx.Err() != nil {
		return false, nil
	}
	if resp == nil {
		return true, nil // backoff computes the wait
	}
	wait := r.waitFor(resp, st.n-1)
	if status == http.StatusTooManyRequests {
		r.limiter.Throttled(ctx, wait)
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		return false, nil // fail now with this response rather than sleep into the deadline
	}
	st.wait = wait
	return true, nil
}

// waitFor is the wait before retrying after resp: its Retry-After capped at MaxWait, or the jittered
// exponential wait for the retry number n (0 for the first retry).
func (r *retrier) waitFor(resp *http.Response, n int) time.Duration {
	if ra := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ra > 0 {
		return min(ra, r.policy.MaxWait)
	}
	return jitter(r.policy.MinWait, r.policy.MaxWait, n)
}

// backoff returns the wait checkRetry chose, or a jittered wait after a network error.
func (r *retrier) backoff(minWait, maxWait time.Duration, n int, resp *http.Response) time.Duration {
	wait := time.Duration(-1)
	if resp != nil && resp.Request != nil {
		wait = stateOf(resp.Request.Context()).wait
	}
	if wait < 0 {
		wait = jitter(minWait, maxWait, n)
	}
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	r.logger.Debug("compute: retrying", slog.Int("status", status), slog.Int("retry", n+1), slog.Duration("wait", wait))
	return wait
}

// errorHandler runs when retries end without success. It passes the last response on, so the caller
// gets a typed *APIError with Attempts instead of go-retryablehttp's "giving up" string.
func (r *retrier) errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err == nil && resp != nil {
		return resp, nil
	}
	if resp != nil {
		_ = resp.Body.Close()
	}
	return nil, err
}

// jitter is full jitter over [minWait, min(maxWait, minWait·2^(n+1))].
func jitter(minWait, maxWait time.Duration, n int) time.Duration {
	upper := maxWait
	if n < 30 && minWait<<(n+1) < maxWait && minWait<<(n+1) > 0 {
		upper = minWait << (n + 1)
	}
	if upper <= minWait {
		return minWait
	}
	return minWait + rand.N(upper-minWait+1)
}

// parseRetryAfter reads a Retry-After header in seconds or as an HTTP date; 0 when absent or past,
// and at most 24 hours either way.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(max(0, min(secs, 24*60*60))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}

// notSentError marks a failure before anything was written (the limiter's wait ended): never
// retried, never an unknown outcome.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// isNotSent reports whether err holds a *notSentError.
func isNotSent(err error) bool {
	var ns *notSentError
	return errors.As(err, &ns)
}

// isDialError reports an error from opening the connection: nothing of the request was written.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
