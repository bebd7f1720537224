package compute

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Response describes a call once it ended: which operation it was, what the service said, and where
// the time went. Get it for one call with [CaptureResponse], or for every call with an [Observer].
type Response struct {
	Operation    string        // the SDK method ("Instances.Get")
	Method, Path string        // HTTP method and path template, which hold no ID
	StatusCode   int           // the last response's status; 0 when none arrived
	RequestID    string        // the last response's X-Request-Id
	Attempts     int           // requests sent, retries included
	Duration     time.Duration // the whole call, retries and waits included
	LimiterWait  time.Duration // time all attempts waited for the rate limiter
	// Gone says the call failed with the not-found that proves a deleted resource gone, which its
	// caller expected (a wait for deletion's read, DeleteAndWait's delete): an answer, not a failure.
	Gone bool
}

type responseKey struct{}

// CaptureResponse returns a context whose calls record in r how they ended: after a call returns, r
// describes it (for a method that sends several requests, the last one). Do not read r while a
// call made with the context runs.
func CaptureResponse(ctx context.Context, r *Response) context.Context {
	return context.WithValue(ctx, responseKey{}, r)
}

// Call describes a call as it starts.
type Call struct {
	Operation    string // the SDK method ("Instances.Get")
	Method, Path string // the operation's HTTP method and path template
	Host         string // the service's host, as the base URL spells it
}

// Attempt describes one attempt of a call once its outcome is known.
type Attempt struct {
	Call        Call          // the call it belongs to
	Number      int           // counts from 1
	Start       time.Time     // when it was sent: the rate limiter's grant
	StatusCode  int           // the response's status; 0 when none arrived
	RequestID   string        // the response's X-Request-Id, scrubbed and cut
	Err         error         // the failure when no response arrived
	Backoff     time.Duration // time since the previous attempt ended; 0 for the first
	LimiterWait time.Duration // time this attempt waited for the rate limiter
	Duration    time.Duration // from the limiter's grant to the end of the response's body
	RetryAfter  time.Duration // the wait a 429 asked for
	Retried     bool          // whether the call sends the request again
	// Reason says why it is retried ("rate limited", "server error", "network error", "timeout",
	// "not sent"); it is empty when it is not.
	Reason string
	// Gone says the response is the not-found that proves a deleted resource gone, which the call
	// expected (a wait for deletion's read, DeleteAndWait's delete): an answer, not a failure.
	Gone bool
}

// Poll describes one poll of a wait (WaitForStatus, WaitForDeletion, DeleteAndWait's wait).
type Poll struct {
	Resource, ID string // the kind awaited ("instance") and its ID
	Target       string // the awaited status; "deleted" for a wait for deletion
	Status       string // the status seen; "" when the poll failed
	Shared       bool   // whether the status came from a list walk shared by several waits
	Err          error  // the poll's failure
	// Gone says Err is the not-found that proves the resource gone: a wait for deletion's success.
	Gone bool
}

// PageRead describes one page a list read: a List call, or a page of a walk (an All method, a
// lookup by name, a walk serving waits).
type PageRead struct {
	Operation   string // the list ("Instances.List")
	Page, Items int    // the page's number and how many items it held
	TotalCount  int    // the whole list's size, as the page says
}

// Observer is told about a client's calls, their attempts, the polls of waits and the pages lists
// read, for metrics, traces and logs (module github.com/compute-sdk/compute-go/otel builds
// OpenTelemetry's). Every field is optional; each runs on the call's goroutine and must be quick.
// One exception: the list walks that several waits share, those that CreateOnce lookups share, and
// those that reads with [SharedRead] share, run on goroutines of the client's, so their calls and
// pages are told there; a panic in them is raised again in each wait, CreateOnce or read that
// shares the walk, on its goroutine. The walks of waits and reads have a context of their own (no
// caller's span, values or deadline); a lookups' walk has the values of the CreateOnce call that
// opened it (its span, so that the walk's calls are in its trace), but not its deadline, nor what
// CaptureResponse set in it. Each wait's Poll still runs on its own
// goroutine with its own context. Pass one with [WithObserver].
type Observer struct {
	// CallStart is called as a call starts. The context it returns (nil keeps ctx) is the call's
	// from then on, so that a span it starts is the parent of what the call does.
	CallStart func(ctx context.Context, call Call) context.Context
	// CallEnd is called as the call ends, with what it ended with and its error: the method's own,
	// a success response that cannot be read included.
	CallEnd func(ctx context.Context, resp Response, err error)
	// Attempt is called after each attempt, once the retry policy has decided about it.
	Attempt func(ctx context.Context, a Attempt)
	// Poll is called after each poll of a wait.
	Poll func(ctx context.Context, p Poll)
	// Page is called after each page a list reads: a List call, or a page of a walk.
	Page func(ctx context.Context, p PageRead)
	// Request is called as each attempt is sent, with its request's header, to which it may add
	// headers of its own (a trace context); it must not keep the header. The credential is set
	// after it: the hook neither sees nor replaces it.
	Request func(ctx context.Context, header http.Header)
}

// WithObserver adds o to the client's observers; each is told, in the order given.
func WithObserver(o Observer) Option {
	return func(c *config) error {
		c.observers = append(c.observers, o)
		return nil
	}
}

// joinObservers returns one Observer that tells each of obs in turn; a hook none has stays nil.
func joinObservers(obs []Observer) Observer {
	if len(obs) == 1 {
		return obs[0]
	}
	var o Observer
	for _, x := range obs {
		if x.CallStart != nil {
			prev := o.CallStart
			o.CallStart = func(ctx context.Context, call Call) context.Context {
				if prev != nil {
					ctx = prev(ctx, call)
				}
				if next := x.CallStart(ctx, call); next != nil {
					ctx = next
				}
				return ctx
			}
		}
		if x.CallEnd != nil {
			prev := o.CallEnd
			o.CallEnd = func(ctx context.Context, resp Response, err error) {
				if prev != nil {
					prev(ctx, resp, err)
				}
				x.CallEnd(ctx, resp, err)
			}
		}
		o.Attempt = chain(o.Attempt, x.Attempt)
		o.Poll = chain(o.Poll, x.Poll)
		o.Page = chain(o.Page, x.Page)
		o.Request = chain(o.Request, x.Request)
	}
	return o
}

// goneKey marks the context of calls made to learn whether a deleted resource is gone.
type goneKey struct{}

// expectGone returns ctx for calls whose error, when gone says so, proves a deleted resource gone:
// their observers are told it is the expected answer (the Gone fields), not a failure.
func expectGone(ctx context.Context, gone func(error) bool) context.Context {
	return context.WithValue(ctx, goneKey{}, gone)
}

// provesGone reports whether err is what the calls of ctx expect as the proof that a resource is gone.
func provesGone(ctx context.Context, err error) bool {
	gone, _ := ctx.Value(goneKey{}).(func(error) bool)
	return err != nil && gone != nil && gone(err)
}

// expectsGone reports whether the calls of ctx expect a not-found as the proof that a resource is
// gone, so that building the error to ask provesGone is worth it.
func expectsGone(ctx context.Context) bool {
	gone, _ := ctx.Value(goneKey{}).(func(error) bool)
	return gone != nil
}

// chain calls a, then b; either may be nil.
func chain[A any](a, b func(context.Context, A)) func(context.Context, A) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(ctx context.Context, v A) { a(ctx, v); b(ctx, v) }
}

// retryReason says why classify retries an attempt.
func retryReason(status int, err error, written bool) string {
	switch {
	case status == 429:
		return "rate limited"
	case status >= 500:
		return "server error"
	case err != nil && !written:
		return "not sent"
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "network error"
}
