package compute

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter paces a client's requests. Every attempt, retries included, waits in Wait before it is
// sent, and every 429 response is reported to Throttled, so that one limiter can hold all the
// goroutines (or, with a shared implementation, all the processes) that use one token to the
// account's rate. Implementations must be safe for concurrent use. Pass one with [WithLimiter].
type Limiter interface {
	// Wait blocks until one attempt may be sent. It returns ctx's error when ctx ends first, and
	// may fail early when it knows the wait would outlast ctx's deadline.
	Wait(ctx context.Context) error
	// Throttled reports that the service answered 429 and that the client will wait at least wait
	// before retrying (the response's Retry-After, capped, or the retry backoff when it had none).
	Throttled(ctx context.Context, wait time.Duration)
}

// gate is the client's shared admission control: the token-bucket limiter, plus a pause that a 429
// sets so that every goroutine using the client backs off together.
type gate struct {
	limiter *rate.Limiter // nil when the limit is off
	mu      sync.Mutex
	until   time.Time
}

// Throttled implements [Limiter]: every attempt waits until the pause ends.
func (g *gate) Throttled(_ context.Context, wait time.Duration) { g.pause(wait) }

// pause holds every attempt until d from now (an earlier pause that ends later is kept).
func (g *gate) pause(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := time.Now().Add(d); t.After(g.until) {
		g.until = t
	}
}

// Wait implements [Limiter]: it blocks until an attempt may be sent, or ctx ends. A pause that begins while a caller waits
// for the limiter holds that caller too, and a pause that would outlast the caller's deadline fails
// at once with a rate-limit error instead of sleeping into the timeout.
func (g *gate) Wait(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d := g.paused(); d > 0 {
			if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
				return fmt.Errorf("compute: the service asked for a pause of %s, past the context deadline: %w (%w)",
					d.Round(time.Millisecond), ErrRateLimited, context.DeadlineExceeded)
			}
			if err := sleep(ctx, d); err != nil {
				return err
			}
		}
		if g.limiter != nil {
			if err := g.limiter.Wait(ctx); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				// The limiter refuses a wait that would outlast the deadline; say it the standard way.
				return fmt.Errorf("compute: rate limiter: %w", context.DeadlineExceeded)
			}
		}
		if g.paused() <= 0 {
			return nil
		}
	}
}

// paused is how long the current pause still lasts.
func (g *gate) paused() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return time.Until(g.until)
}

// sleep waits d or until ctx ends, whichever comes first.
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
