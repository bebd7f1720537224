package compute

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
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy bounds how the client retries. What is retried never depends on the policy:
//   - a 429 is retried for every method, since the contract says the request was not processed;
//   - a 502, 503, 504 or a network error is retried only for idempotent operations (GET, PUT,
//     DELETE and this API's PATCH, whose every variant sets absolute values);
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

// callState travels from the call path to the transport and the retry hooks, which go-retryablehttp
// gives no other shared place. It is the request's context itself: the caller's context, plus the
// state, found by [stateOf] (one allocation where context.WithValue would add a second).
type callState struct {
	context.Context
	idempotent bool
	attempts   atomic.Int32
	// inFlight is true while the last attempt was written and has not been answered: the service may
	// have processed it.
	inFlight atomic.Bool
	// wait is the wait checkRetry chose for the next retry, in nanoseconds.
	wait atomic.Int64
	// retriedUnknown is set when an attempt that may have been processed was retried (an idempotent
	// request after a 5xx or a lost answer).
	retriedUnknown atomic.Bool
}

type stateKey struct{}

// Value returns the call's state for stateKey, and the caller's context's values otherwise.
func (s *callState) Value(key any) any {
	if key == (stateKey{}) {
		return s
	}
	return s.Context.Value(key)
}

// stateOf returns the call's state from ctx or a context derived from it; nil when there is none.
func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// notSentError marks a failure before anything was written (the limiter wait ended): never retried,
// never an unknown outcome.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// isNotSent reports whether err holds a *notSentError.
func isNotSent(err error) bool {
	var ns *notSentError
	return errors.As(err, &ns)
}

// credential holds the token in closures: no field of any value holds it, so neither %v nor a
// reflective dumper (go-spew, a debugger's pretty-printer) can print it.
type credential struct {
	// header returns the header name and value that carry the token. The value is built once and
	// shared by every request, which only reads it: like the client's other shared header values,
	// a RoundTripper below the SDK must not modify it in place (net/http's contract already forbids
	// a RoundTripper to modify the request).
	header func() (string, []string)
	// redact replaces the token in s.
	redact func(s string) string
	// redactBytes replaces the token in b; it returns b itself when b does not hold the token.
	redactBytes func(b []byte) []byte
}

func newCredential(token string, legacy bool) credential {
	name, value := "Authorization", []string{"Bearer " + token}
	if legacy {
		name, value = "X-Auth-Token", []string{token}
	}
	secret := []byte(token)
	return credential{
		header: func() (string, []string) { return name, value },
		redact: func(s string) string { return strings.ReplaceAll(s, token, "[REDACTED]") },
		redactBytes: func(b []byte) []byte {
			if !bytes.Contains(b, secret) {
				return b
			}
			return bytes.ReplaceAll(b, secret, []byte("[REDACTED]"))
		},
	}
}

// attemptTransport runs once per attempt, under the retry loop: it waits for the gate, counts the
// attempt, adds the credential when the request goes to the base URL's origin (never to another
// host, redirects included), bounds the attempt with the per-attempt timeout, notes whether the
// request was written, and logs it.
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

// attempt is one attempt's state, in one allocation: the trace that tells whether the request was
// written, and the answer's body, which releases the attempt's timeout when closed.
type attempt struct {
	trace httptrace.ClientTrace
	// getConn and wroteHeaders are set by the trace's hooks.
	getConn, wroteHeaders atomic.Bool
	cancel                context.CancelFunc
	io.ReadCloser
}

// Close closes the answer's body and releases the attempt's timeout.
func (a *attempt) Close() error {
	err := a.ReadCloser.Close()
	a.cancel()
	return err
}

// RoundTrip implements http.RoundTripper.
func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	if err := t.limiter.Wait(parent); err != nil {
		return nil, &notSentError{err}
	}
	st := stateOf(parent)
	n := 1
	if st != nil {
		n = int(st.attempts.Add(1))
		st.inFlight.Store(true)
	}
	// The trace tells a failure before the request's headers were complete on the connection (no
	// connection, a failed TLS handshake, a timeout while connecting): then the service cannot have
	// processed it. A transport that does not report GetConn leaves the attempt counted in flight.
	a := &attempt{}
	a.trace.GetConn = func(string) { a.getConn.Store(true) }
	a.trace.WroteHeaders = func() { a.wroteHeaders.Store(true) }
	ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(parent, &a.trace), t.timeout)
	a.cancel = cancel
	out := req.WithContext(ctx)
	if req.URL.Scheme == t.scheme && req.URL.Host == t.host {
		// The credential goes on this attempt's own copy of the header map, never on the request
		// the caller's http.Client sees: its CheckRedirect hook and the headers it copies onto a
		// redirect never hold the token, and a request to any other origin leaves without it. The
		// origin is compared as spelled: the SDK's own requests use the base URL's spelling, and a
		// redirect that spells the same origin otherwise ("HOST", ":443") goes without the token,
		// which fails safe (the service answers 401).
		name, value := t.cred.header()
		h := make(http.Header, len(req.Header)+1)
		for k, v := range req.Header {
			h[k] = v
		}
		h[name] = value
		out.Header = h
	}
	debug := t.logger.Enabled(parent, slog.LevelDebug)
	var start time.Time
	if debug {
		start = time.Now()
	}
	resp, err := t.next.RoundTrip(out)
	if err != nil {
		cancel()
		if st != nil && a.getConn.Load() && !a.wroteHeaders.Load() {
			st.inFlight.Store(false)
		}
		if ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
			err = fmt.Errorf("compute: attempt timed out after %s: %w", t.timeout, err)
		}
		if debug {
			t.logger.LogAttrs(parent, slog.LevelDebug, "compute: attempt failed",
				slog.String("method", req.Method), slog.String("path", req.URL.EscapedPath()),
				slog.Int("attempt", n), slog.Duration("duration", time.Since(start)),
				slog.String("error", t.cred.redact(err.Error())))
		}
		return nil, err
	}
	// The answer points at the request this transport was given, not at the attempt's copy: the
	// caller's http.Client hands resp.Request to its CheckRedirect hook (as req.Response.Request),
	// and the copy carries the credential. The retry hooks find the call's state through it too.
	resp.Request = req
	a.ReadCloser = resp.Body
	resp.Body = a
	if debug {
		t.logger.LogAttrs(parent, slog.LevelDebug, "compute: attempt",
			slog.String("method", req.Method), slog.String("path", req.URL.EscapedPath()),
			slog.Int("attempt", n), slog.Int("status", resp.StatusCode),
			slog.Duration("duration", time.Since(start)),
			slog.String("request_id", t.cred.redact(resp.Header.Get("X-Request-Id"))))
	}
	return resp, nil
}

// retrier holds the go-retryablehttp hooks.
type retrier struct {
	policy  RetryPolicy
	limiter Limiter
	logger  *slog.Logger
}

// checkRetry decides whether an attempt is retried (see [RetryPolicy]).
func (r *retrier) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := stateOf(ctx)
	if st == nil {
		return false, nil
	}
	notSent := isNotSent(err)
	if resp != nil || notSent || (err != nil && isDialError(err)) {
		st.inFlight.Store(false) // answered, or never written: the outcome is known
	}
	if ctx.Err() != nil || notSent {
		return false, nil
	}
	if err != nil {
		if !st.idempotent && st.inFlight.Load() {
			return false, nil // it may have been processed: never re-sent
		}
		// The library's classification of permanent transport errors (bad certificate, too many
		// redirects, unsupported scheme) is right; only its bool is used.
		retry, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, err)
		if retry && st.inFlight.Load() {
			st.retriedUnknown.Store(true)
		}
		return retry, nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if !st.idempotent {
			return false, nil
		}
	default:
		return false, nil
	}
	wait := r.waitFor(resp, int(st.attempts.Load())-1)
	if resp.StatusCode == http.StatusTooManyRequests {
		r.limiter.Throttled(ctx, wait)
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		return false, nil // fail now with this answer rather than sleep into the deadline
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		st.retriedUnknown.Store(true) // a proxy's 5xx may hide a processed request
	}
	st.wait.Store(int64(wait))
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
		if st := stateOf(resp.Request.Context()); st != nil {
			wait = time.Duration(st.wait.Swap(0))
		}
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

// errorHandler runs when retries end without success. It passes the last answer on, so the caller
// gets a typed *APIError with Attempts instead of go-retryablehttp's "giving up" string.
func (r *retrier) errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err == nil && resp != nil {
		return resp, nil
	}
	if resp != nil {
		drainAndClose(resp.Body)
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
		if secs <= 0 {
			return 0
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}

// isDialError reports an error from opening the connection: nothing of the request was written.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// drainAndClose reads up to 4 KiB more of body, so that the connection can be reused when little
// is left, then closes it. A body already read to its end costs one Read; the bytes go to a pooled
// buffer, so draining allocates nothing.
func drainAndClose(body io.ReadCloser) {
	buf := borrowAnswer()
	_ = readAtMost(buf, body, 4<<10)
	releaseAnswer(buf)
	_ = body.Close()
}
