package compute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"time"
)

// Default poll intervals of the waits.
const (
	DefaultPollMin = 1 * time.Second  // the first wait between polls
	DefaultPollMax = 15 * time.Second // caps the wait between polls
)

// ErrFailureStatus is matched by a [*WaitError] whose resource reached a status from which the
// awaited one cannot follow, such as "error".
var ErrFailureStatus = errors.New("compute: the resource reached a failure status")

// WaitError ends a wait that did not reach its target. It wraps the cause: the context's error or
// [ErrFailureStatus].
type WaitError struct {
	Resource   string // the kind awaited ("instance", "floating IP", ...)
	ID         string // the awaited resource's ID
	Target     string // the awaited status
	LastStatus string // the last status seen; "" when no poll succeeded
	Polls      int    // how many times the resource was read
	// LastErr is the last poll's error when it was temporary (a 503, a reset), or for DeleteAndWait
	// the delete's last refusal (its text then still reads "last poll failed"); nil otherwise.
	LastErr error
	Err     error // the cause
}

// Error reads "compute: waiting for instance i-1 to be active: last status "starting" after 7
// polls: context deadline exceeded".
func (e *WaitError) Error() string {
	last := fmt.Sprintf("last status %q", e.LastStatus)
	if e.LastStatus == "" {
		last = "no status seen"
	}
	msg := fmt.Sprintf("compute: waiting for %s %s to be %s: %s after %d polls: %v",
		e.Resource, e.ID, e.Target, last, e.Polls, e.Err)
	if e.LastErr != nil {
		msg += " (last poll failed: " + e.LastErr.Error() + ")"
	}
	return msg
}

// Unwrap returns the cause.
func (e *WaitError) Unwrap() error { return e.Err }

// WaitOption configures a wait.
type WaitOption interface {
	applyWait(*waitConfig)
	applyDelete(*deleteConfig) // a WaitOption is a DeleteOption too, for DeleteAndWait's wait
}

type waitConfig struct {
	minInterval, maxInterval time.Duration
	maxWait                  time.Duration
	onUpdate                 []any // func(*T) for the awaited resource type T
	err                      error
}

type waitOptionFunc func(*waitConfig)

func (f waitOptionFunc) applyWait(c *waitConfig) { f(c) }

// WithPollInterval sets the bounds of the wait between polls (default 1 s and 15 s). A wait that
// polls on its own waits minInterval while its polls go out at once and nothing else of the client
// waits for the rate; while other requests need the rate, or polls fail, the wait grows
// exponentially with jitter up to maxInterval.
func WithPollInterval(minInterval, maxInterval time.Duration) WaitOption {
	return waitOptionFunc(func(c *waitConfig) {
		if minInterval <= 0 || maxInterval < minInterval {
			c.err = invalid("poll_interval", "need 0 < min <= max, got %s and %s", minInterval, maxInterval)
			return
		}
		c.minInterval, c.maxInterval = minInterval, maxInterval
	})
}

// DefaultMaxWait bounds a wait whose context has no deadline.
const DefaultMaxWait = time.Hour

// WithMaxWait sets the bound of a wait whose context has no deadline (default [DefaultMaxWait]).
// When it passes, the [*WaitError] matches context.DeadlineExceeded and says so.
func WithMaxWait(d time.Duration) WaitOption {
	return waitOptionFunc(func(c *waitConfig) {
		if d <= 0 {
			c.err = invalid("max_wait", "must be positive, got %s", d)
			return
		}
		c.maxWait = d
	})
}

// OnUpdate calls fn with the resource after every successful poll; T is the awaited resource type
// ([Instance], [Volume], ...). A callback of another type is a [*ValidationError].
func OnUpdate[T any](fn func(*T)) WaitOption {
	return waitOptionFunc(func(c *waitConfig) {
		if fn != nil {
			c.onUpdate = append(c.onUpdate, fn)
		}
	})
}

// waiter describes what a wait polls.
type waiter[T any, S ~string] struct {
	c        *Client
	shared   *poller[T] // the kind's shared polling
	resource string
	id       string
	// idField names the ID as the get's path does ("instance_id").
	idField string
	// del is the kind's delete: its not-found code tells a wait for deletion that the resource is gone.
	del    operation
	get    func(context.Context) (*T, error)
	status func(*T) S
	// failed reports whether status s can no longer lead to target.
	failed func(s, target S) bool
	// gone, when set, reports the error that means the resource is gone: a WaitForDeletion's success.
	gone func(error) bool
}

// wait is every wait, as [InstancesService.WaitForStatus] describes. The ID is checked first, so
// that a bad one is refused as input even when ctx has already ended.
func (w waiter[T, S]) wait(ctx context.Context, target S, opts []WaitOption) (*T, error) {
	if err := checkPathID(w.idField, w.id); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errNilContext
	}
	cfg, err := waitSettings(opts)
	if err != nil {
		return nil, err
	}
	var callbacks []func(*T)
	for _, cb := range cfg.onUpdate {
		fn, ok := cb.(func(*T))
		if !ok {
			var zero T
			return nil, invalid("on_update", "the callback takes %T, the awaited resource is %T", cb, &zero)
		}
		callbacks = append(callbacks, fn)
	}
	if target == "" {
		return nil, invalid("status", "the target status is empty")
	}
	ctx, cancel := boundWait(ctx, cfg.maxWait)
	defer cancel()
	if w.gone != nil {
		ctx = expectGone(ctx, w.gone) // observers are told its reads' not-found is no failure
	}
	defer w.shared.join(w.id, cfg.minInterval)()
	werr := &WaitError{Resource: w.resource, ID: w.id, Target: string(target)}
	var others atomic.Int64 // how long the poll's own GET waited in the limiter for others sharing the rate
	get := func(ctx context.Context) (*T, error) {
		return w.get(withAttemptHooks(ctx, attemptHooks{sent: func(d time.Duration) {
			others.Store(max(others.Load(), int64(d)))
		}}))
	}
	if w.c.transport.load.queued.Load() > 0 {
		w.shared.company(ctx, cfg.minInterval) // its first poll would wait behind the client's other requests
	}
	for n := 0; ; { // n counts the wait's own polls that failed or met the rate in use: its backoff
		others.Store(0)
		res, shared, err := w.shared.poll(ctx, w.id, get)
		if w.c.observer.Poll != nil {
			p := Poll{Resource: w.resource, ID: w.id, Target: string(target), Shared: shared, Err: err,
				Gone: err != nil && w.gone != nil && w.gone(err)}
			if res != nil {
				p.Status = w.c.transport.cred.outside(string(w.status(res)))
			}
			w.c.observer.Poll(ctx, p)
		}
		werr.LastErr = err
		if err != nil && w.gone != nil && w.gone(err) {
			return nil, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				werr.LastErr = nil
				werr.Err = context.Cause(ctx)
				return nil, werr
			}
			if !transient(err) && (w.gone == nil || !uncoded(err)) {
				return nil, err
			}
		} else {
			werr.Polls++
			for _, cb := range callbacks {
				cb(res)
			}
			s := w.status(res)
			werr.LastStatus = w.c.transport.cred.outside(string(s)) // the server's text
			if s == target {
				return res, nil
			}
			if w.failed(s, target) {
				werr.Err = ErrFailureStatus
				return res, werr
			}
		}
		if shared {
			continue // the next poll waits for the next walk
		}
		// The backoff grows while polls fail or other requests need the rate. A poll that went
		// out at once, with nothing else of the client waiting for its turn, delayed nobody: the
		// next comes after the first interval.
		if err != nil || w.c.transport.load.busy(time.Duration(others.Load())) {
			n++
		} else {
			n = 0
		}
		wait := cfg.minInterval
		if n > 0 {
			wait = jitter(cfg.minInterval, cfg.maxInterval, n-1)
		}
		if err := sleep(ctx, wait); err != nil {
			werr.Err = context.Cause(ctx)
			return nil, werr
		}
	}
}

// untilGone waits until the resource is gone: until its read fails as the kind's delete's not-found.
func (w waiter[T, S]) untilGone(ctx context.Context, opts []WaitOption) error {
	w.failed, w.gone = never[S], absent(w.del)
	_, err := w.wait(ctx, "deleted", opts)
	return err
}

// waitSettings applies opts to the defaults.
func waitSettings(opts []WaitOption) (waitConfig, error) {
	cfg := waitConfig{minInterval: DefaultPollMin, maxInterval: DefaultPollMax, maxWait: DefaultMaxWait}
	for _, o := range opts {
		if o != nil {
			o.applyWait(&cfg)
		}
	}
	return cfg, cfg.err
}

// boundWait bounds a wait whose context has no deadline by maxWait.
func boundWait(ctx context.Context, maxWait time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, maxWait, fmt.Errorf(
		"%w: the context had no deadline and the default maximum wait (%s, see WithMaxWait) passed",
		context.DeadlineExceeded, maxWait))
}

// transient reports an error worth polling through: a temporary API error (429, 502-504) or a
// failure of the connection. Polling would not fix anything else.
func transient(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Retryable()
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) // an attempt's timeout: the wait's own context is checked first
}

// failedUnless returns a failure rule: the statuses in fail end the wait unless they are the target.
func failedUnless[S ~string](fail ...S) func(s, target S) bool {
	return func(s, target S) bool { return s != target && slices.Contains(fail, s) }
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
