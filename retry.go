package compute

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy bounds how the client retries; what is retried does not depend on it (see the package
// overview and [ErrOutcomeUnknown]). Waits grow exponentially with full jitter between MinWait and
// MaxWait; a Retry-After replaces the computed wait, capped at MaxWait. A wait after a response that
// would outlast the context's deadline is not taken: the call fails at once with that response.
type RetryPolicy struct {
	MaxRetries int           // re-sends after the first attempt (default 4)
	MinWait    time.Duration // shortest wait before a retry (default 250 ms)
	MaxWait    time.Duration // caps every wait, Retry-After included (default 30 s)
}

// DefaultRetryPolicy returns the policy a client has unless [WithRetry] or [WithoutRetries] is given:
// 4 retries, waits from 250 ms up to 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 4, MinWait: 250 * time.Millisecond, MaxWait: 30 * time.Second}
}

// classify is the retry policy, a pure function of one attempt's result (status 0 when no
// response). processed says whether the service may have processed the attempt unseen.
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

// permanentTransportError returns err when retrying cannot help (a bad certificate, too many
// redirects), as go-retryablehttp classifies it.
func permanentTransportError(err error) error {
	if retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err); retry {
		return nil
	}
	return err
}

// retrier holds the go-retryablehttp hooks, which only apply classify and the waits.
type retrier struct {
	policy   RetryPolicy
	limiter  Limiter
	logger   *slog.Logger
	observer Observer
	cred     *credential
	host     string
}

// checkRetry decides whether an attempt is retried, and tells the observer about it.
func (r *retrier) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := stateOf(ctx)
	st.checks++
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	retry, processed := classify(st.op, status, err, st.written)
	retry = retry && ctx.Err() == nil
	st.processed = st.processed || processed
	st.wait = -1 // for a network error, backoff computes it
	var retryAfter time.Duration
	if retry && resp != nil {
		wait := r.waitFor(resp, st.n-1)
		if status == http.StatusTooManyRequests {
			r.limiter.Throttled(ctx, wait)
			retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			retry = false // fail now with this response rather than sleep into the deadline
		}
		st.wait = wait
	}
	if r.observer.Attempt != nil && !isNotSent(err) {
		a := Attempt{Call: st.op.call(r.host),
			Number: st.n, Start: st.sent, StatusCode: status, Err: r.cred.outsideErr(err), Backoff: st.backoff, LimiterWait: st.attemptWait,
			Duration: st.ended.Sub(st.sent), RetryAfter: retryAfter, Retried: retry && st.checks <= r.policy.MaxRetries}
		if status == http.StatusNotFound && st.last != nil && expectsGone(ctx) {
			// The same test as the call's end: the 404 with the code that proves it gone.
			a.Gone = provesGone(ctx, newAPIError(st.last.resp, st.last.body, st.op.method, st.op.path, st.n, r.cred))
		}
		if resp != nil {
			a.RequestID = r.cred.outside(resp.Header.Get("X-Request-Id"))
		}
		if a.Retried {
			a.Reason = retryReason(status, err, st.written)
		}
		r.observer.Attempt(ctx, a)
	}
	return retry, nil
}

// waitFor is the wait before retry n (from 0) after resp: its Retry-After capped at MaxWait, or the
// jittered wait.
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
	return wait
}

// logRetry logs each retry as it is sent, with the call's context: the previous attempt's status
// (0 for a network error), the retry's number and the wait since that attempt ended. (go-retryablehttp
// gives the wait's hook no request after a network error, so no context to log it with.)
func (r *retrier) logRetry(_ retryablehttp.Logger, req *http.Request, n int) {
	if n == 0 {
		return
	}
	ctx := req.Context()
	if !r.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	st := stateOf(ctx)
	r.logger.LogAttrs(ctx, slog.LevelDebug, "compute: retrying",
		slog.Int("status", st.status), slog.Int("retry", n), slog.Duration("wait", time.Since(st.ended)))
}

// errorHandler passes the last response on when retries end, so the caller gets an *APIError
// rather than go-retryablehttp's "giving up" string.
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
