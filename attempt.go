package compute

// The attempt path: do (call.go) -> go-retryablehttp's loop -> http.Client (redirects) ->
// attemptTransport.RoundTrip (limiter, credential, timeout, network, body) -> retrier.checkRetry.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"
)

// callState is what the attempts of one call share, passed in the request's context. It needs no
// lock: the transport and the retry hooks run one after another on the caller's goroutine (the
// trace hooks, which may not, write only to their attempt's atomics).
type callState struct {
	op  operation
	ids []string // the IDs in op's path
	n   int      // attempts so far
	// written is whether the current attempt's request may have reached the service.
	written bool
	// processed is whether some attempt may have been processed without the client seeing its result.
	processed bool
	// checks counts checkRetry's calls.
	checks int
	// wait is checkRetry's wait before the next retry; -1 for none.
	wait time.Duration
	// last is the last non-2xx response, kept so that an error after it still carries it.
	last *lastResponse
	// body is the request's body as sent, whose secret fields an error's message must not quote.
	body []byte
	// For observers and a captured Response:
	status      int
	requestID   string
	limiterWait time.Duration
	attemptWait time.Duration // the current attempt's wait for the limiter
	backoff     time.Duration // between the previous attempt's end and the current one's start
	sent, ended time.Time     // the current attempt's grant and end
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

// attemptTransport runs once per attempt and per redirect: it waits for the limiter, adds the
// credential for the base URL's origin only, applies the timeout, notes whether the request was
// written, and reads the body.
//
// It must not implement CloseIdleConnections: go-retryablehttp calls it when it gives up, which
// would drop the whole keep-alive pool after every failed call.
type attemptTransport struct {
	next    http.RoundTripper
	limiter Limiter
	cred    credential
	scheme  string
	host    string
	timeout time.Duration
	logger  *slog.Logger
	dump    *dumper // nil unless WithDebugDump
	// request is the observers' Request hook, nil when none has one.
	request func(context.Context, http.Header)
	// load counts the attempts waiting for the limiter and granted, for the waits' pace.
	load *clientLoad
}

// String keeps the transport's %v short.
func (t *attemptTransport) String() string { return "compute.attemptTransport{" + t.host + "}" }

// RoundTrip implements http.RoundTripper.
func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	st := stateOf(parent)
	asked := time.Now()
	if !st.ended.IsZero() {
		st.backoff = asked.Sub(st.ended)
	}
	ahead := t.load.queued.Add(1) - 1 // the client's other requests waiting for their turn
	note := &writeNote{}
	done, err := t.limiter.Wait(withWriteNote(parent, note))
	t.load.queued.Add(-1)
	st.sent = time.Now()
	st.attemptWait = st.sent.Sub(asked)
	st.limiterWait += st.attemptWait
	if err != nil {
		return nil, &notSentError{err}
	}
	t.load.granted.Add(1)
	st.n++
	n := st.n
	st.written = true
	// A shared walk times its page from here. A wait in the limiter with none of the client's
	// requests ahead was for others sharing the rate.
	var others time.Duration
	if ahead == 0 {
		others = st.attemptWait
	}
	attemptSent(parent, others)
	defer attemptEnded(parent)

	// The trace tells a failure before the headers were written (no connection, a failed TLS
	// handshake): the service cannot have processed it. Without GetConn, it counts as written.
	tr := &attemptTrace{}
	tr.GetConn = func(string) { tr.gotConn.Store(true) }
	tr.GotConn = func(i httptrace.GotConnInfo) { tr.fresh.Store(!i.Reused) }
	tr.WroteHeaders = func() { tr.wroteHeaders.Store(true) }
	tr.WroteRequest = func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			note.fire(time.Now(), true, tr.fresh.Load()) // the limiter spaces the next attempt from here
		}
	}
	defer note.fire(time.Time{}, false, false) // no word of a write: the attempt has ended
	ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(parent, &tr.ClientTrace), t.timeout)
	defer cancel()
	out := req.Clone(ctx)
	if t.request != nil {
		// Before the credential, which the hook neither sees nor replaces.
		t.request(parent, out.Header)
		out.Header.Del("Authorization")
		out.Header.Del("X-Auth-Token")
	}
	if req.URL.Scheme == t.scheme && req.URL.Host == t.host {
		// The credential goes on this attempt's copy only, so http.Client never copies it onto a
		// redirect. The origin is compared as spelled: "HOST" or ":443" goes without it, and fails.
		name, value := t.cred.header()
		out.Header.Set(name, value)
	}

	start := time.Now()
	resp, err := t.next.RoundTrip(out)
	defer func() { st.ended = time.Now() }()
	if done != nil && err == nil {
		done() // the service has counted the request (see Limiter)
	}
	var body []byte
	if err == nil {
		// Read inside the attempt: the timeout covers it, and a cut-off body is this attempt's failure.
		body, err = readBody(resp, st.op)
	}
	if err != nil {
		if (tr.gotConn.Load() && !tr.wroteHeaders.Load()) || isDialError(err) {
			st.written = false
		}
		if ctx.Err() == context.DeadlineExceeded && parent.Err() == nil {
			err = fmt.Errorf("compute: attempt timed out after %s: %w", t.timeout, err)
		}
		st.status = 0
		t.log(parent, "compute: attempt failed", req, n, start, slog.String("error", t.cred.outside(err.Error())))
		return nil, err
	}
	resp.Body = &attemptBody{Reader: bytes.NewReader(body), data: body}
	// Not the attempt's copy, which carries the credential: CheckRedirect sees resp.Request.
	resp.Request = req
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		st.last = &lastResponse{resp: resp, body: body}
	}
	st.status, st.requestID = resp.StatusCode, resp.Header.Get("X-Request-Id")
	t.dump.exchange(out, resp, body, &t.cred)
	t.log(parent, "compute: attempt", req, n, start, slog.Int("status", resp.StatusCode),
		slog.String("request_id", t.cred.outside(resp.Header.Get("X-Request-Id"))))
	return resp, nil
}

// attemptTrace is an attempt's trace hooks and what they saw, in one allocation.
type attemptTrace struct {
	httptrace.ClientTrace
	gotConn, wroteHeaders atomic.Bool
	fresh                 atomic.Bool // the connection was new, not one reused
}

// log writes one debug line about an attempt, when the logger wants debug lines.
func (t *attemptTransport) log(ctx context.Context, msg string, req *http.Request, n int, start time.Time, attrs ...slog.Attr) {
	if !t.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	// The call's own path, unless a redirect chose it: then it is the server's text.
	path := t.cred.outside(req.URL.EscapedPath())
	if st := stateOf(ctx); req.Response == nil {
		path = t.cred.shownPath(st.op, st.ids)
	}
	attrs = append(attrs, slog.String("method", req.Method), slog.String("path", path),
		slog.Int("attempt", n), slog.Duration("duration", time.Since(start)))
	t.logger.LogAttrs(ctx, slog.LevelDebug, msg, attrs...)
}

// maxErrorBody bounds how much of a non-2xx response's body is read.
const maxErrorBody = 64 << 10

// errTooLarge ends a call whose success response is larger than the operation's bound.
var errTooLarge = errors.New("the response body is larger than the client accepts")

// attemptBody is a response body that the attempt read whole.
type attemptBody struct {
	*bytes.Reader
	data []byte
}

// Close implements io.Closer; the connection was released when the body was read.
func (*attemptBody) Close() error { return nil }

// bodyBytes returns the bytes the attempt read, or reads a body that did not come through it.
func bodyBytes(body io.Reader) ([]byte, error) {
	if b, ok := body.(*attemptBody); ok {
		return b.data, nil
	}
	return io.ReadAll(body)
}

// readBody reads and closes resp's body: a success up to op's bound (larger is errTooLarge), any
// other response up to maxErrorBody.
func readBody(resp *http.Response, op operation) ([]byte, error) {
	defer resp.Body.Close()
	limit := int64(maxErrorBody)
	success := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if success && op.discard {
		// A short body is drained so that the connection can be reused.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		return nil, nil
	}
	if success {
		limit = op.bodyLimit()
	}
	body, err := readAtMost(resp.Body, limit+1, resp.ContentLength)
	switch {
	case err != nil && success:
		return nil, accepted{fmt.Errorf("reading the response (status %d): %w", resp.StatusCode, err)}
	case int64(len(body)) > limit && success:
		return nil, accepted{fmt.Errorf("%w (%d bytes)", errTooLarge, limit)}
	case int64(len(body)) > limit:
		body = body[:limit]
		// Drain a little, so that a body just past the bound leaves the connection reusable.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	}
	return body, nil // a broken error body keeps what arrived
}

// readAtMost reads r to its end or to n bytes, into a buffer sized for the announced size (-1 when
// unknown).
func readAtMost(r io.Reader, n, size int64) ([]byte, error) {
	b := make([]byte, 0, min(n, max(size+1, 512)))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := r.Read(b[len(b):min(int64(cap(b)), n)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// notSentError marks a failure before anything was sent (the limiter's wait ended).
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

// errCrossOriginWrite ends a write that the service redirected to another origin.
var errCrossOriginWrite = errors.New("compute: the service redirected a write to another origin; not followed")

// sameOriginWrites wraps a redirect policy (nil for net/http's default) so that a write is never
// followed to another origin: net/http would re-send its body there, or turn it into a GET whose
// response would read as the write's success. A read may go anywhere, without the token.
func sameOriginWrites(base *url.URL, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if first := via[0]; first.Method != http.MethodGet && first.Method != http.MethodHead &&
			(req.URL.Scheme != base.Scheme || req.URL.Host != base.Host) {
			return errCrossOriginWrite
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}
