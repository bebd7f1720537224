package compute

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter paces a client's requests. Every attempt, retries included, waits in Wait before it is
// sent, and every 429 response is reported to Throttled, so that one limiter can hold all the
// goroutines (or, with a shared implementation, all the processes) that use one token to the
// account's rate. Implementations must be safe for concurrent use. Pass one with [WithLimiter];
// [NewLimiter] returns the one a client has by default.
type Limiter interface {
	// Wait blocks until one attempt may be sent. It returns ctx's error when ctx ends first, and
	// may fail early when it knows the wait would outlast ctx's deadline.
	Wait(ctx context.Context) error
	// Throttled reports that the service sent a 429 response and that the refused request will wait
	// at least wait before it is retried (the response's Retry-After, capped, or the retry backoff
	// when it had none).
	Throttled(ctx context.Context, wait time.Duration)
}

// NewLimiter returns the limiter a client builds for itself from [WithRateLimit]: rps requests per
// second on average with bursts of burst, adapting to 429 responses as [WithRateLimit] describes.
// Pass one NewLimiter to several clients with [WithLimiter] to hold them all to one rate (several
// tokens of one account, say). rps must be > 0 and burst >= 1.
func NewLimiter(rps float64, burst int) (Limiter, error) {
	if !(rps > 0) || math.IsInf(rps, 0) || burst < 1 {
		return nil, fmt.Errorf("compute: NewLimiter: rps must be > 0 and finite and burst >= 1, got %v and %d", rps, burst)
	}
	return newGate(rps, burst), nil
}

// Adaptive pacing. The contract says only "on average 10 requests per second", so the client cannot
// know whether the service tolerates a burst. A client that sends at exactly the rate is refused by
// a strict service (no burst) whenever one request reaches it a millisecond early (timer wake-up,
// scheduling, the network), and pausing everything for the Retry-After (a whole second) on every
// such 429 loses most of the rate. So the gate, like the adaptive retry mode of the AWS SDKs:
//
//   - takes each token when it is actually there, one caller at a time, so that the next one is due
//     an interval after the last request really left: a caller that wakes late does not make the
//     next one early, as a schedule computed in advance would;
//   - paces a little under the target, by a headroom of minHeadroom (0.3%), which a service with
//     any burst never notices;
//   - on a 429 raises the headroom by throttledHeadroom (3 points), up to maxHeadroom, at most once
//     a second (the 429s of one moment count once): the headroom settles just above the arrival
//     jitter the service sees, whatever it is;
//   - lets the extra headroom decay by half every headroomHalfLife (two minutes), so the rate
//     recovers gradually and a strict service sees a 429 rarely;
//   - treats a lone 429 asking for at most pacingRetryAfter (1 s, the least a Retry-After in
//     seconds can say) as a pacing error: the refused request waits its Retry-After (the retry
//     policy), the others only one interval. A second 429 within the Retry-After of the one before,
//     or a longer Retry-After, means the budget is really spent (another client on the token, a
//     lower limit): then every attempt waits the full Retry-After.
const (
	minHeadroom       = 0.003
	throttledHeadroom = 0.03
	maxHeadroom       = 1.0 // half the target rate
	headroomHalfLife  = 2 * time.Minute
	raiseEvery        = time.Second
	pacingRetryAfter  = time.Second
)

// gate is the client's default [Limiter]: the x/time/rate token bucket at the target rate less the
// adaptive headroom, plus a pause that a 429 sets so that every goroutine using the client backs
// off together.
type gate struct {
	limiter *rate.Limiter // nil when the limit is off
	rps     float64       // the target
	turn    chan struct{} // held by the one caller taking the next token

	mu       sync.Mutex
	until    time.Time     // the shared pause ends
	headroom float64       // the headroom set at raised; it decays towards minHeadroom
	raised   time.Time     // when the headroom was last raised
	last429  time.Time     // when the last 429 was reported
	lastWait time.Duration // and the wait it asked for
}

// newGate returns a gate pacing at rps (0 for none) with bursts of burst.
func newGate(rps float64, burst int) *gate {
	g := &gate{rps: rps, headroom: minHeadroom, turn: make(chan struct{}, 1)}
	if rps > 0 {
		g.limiter = rate.NewLimiter(rate.Limit(rps/(1+minHeadroom)), burst)
	}
	return g
}

// headroomAt is the headroom at now: the one set at the last raise, decayed towards minHeadroom.
// The caller holds g.mu.
func (g *gate) headroomAt(now time.Time) float64 {
	extra := g.headroom - minHeadroom
	if extra <= 0 {
		return minHeadroom
	}
	return minHeadroom + extra*math.Exp2(-float64(now.Sub(g.raised))/float64(headroomHalfLife))
}

// Throttled implements [Limiter] (see the pacing comment above minHeadroom).
func (g *gate) Throttled(_ context.Context, wait time.Duration) {
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	pause := wait
	if g.limiter != nil {
		if now.Sub(g.raised) >= raiseEvery {
			g.headroom = min(maxHeadroom, g.headroomAt(now)+throttledHeadroom)
			g.raised = now
			g.limiter.SetLimitAt(now, rate.Limit(g.rps/(1+g.headroom)))
		}
		lone := g.last429.IsZero() || now.Sub(g.last429) > g.lastWait
		if lone && wait <= pacingRetryAfter {
			pause = min(wait, time.Duration(float64(time.Second)*(1+g.headroom)/g.rps))
		}
	}
	g.last429, g.lastWait = now, wait
	if t := now.Add(pause); t.After(g.until) {
		g.until = t
	}
}

// Wait implements [Limiter]: it blocks until an attempt may be sent, or ctx ends. Callers take
// turns; the one whose turn it is waits for the pause a 429 set, if any, and then for a token. A wait
// that would outlast the caller's deadline fails at once (with a rate-limit error when it is a
// pause) instead of sleeping into the timeout.
func (g *gate) Wait(ctx context.Context) error {
	select {
	case g.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-g.turn }()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := g.paused()
		pause := d > 0
		if !pause && g.limiter != nil {
			now := time.Now()
			g.adapt(now)
			if g.limiter.AllowN(now, 1) {
				return nil
			}
			d = max(time.Millisecond/10, time.Duration((1-g.limiter.TokensAt(now))/float64(g.limiter.Limit())*float64(time.Second)))
		}
		if d <= 0 {
			return nil
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
			if pause {
				return fmt.Errorf("compute: the service asked for a pause of %s, past the context deadline: %w (%w)",
					d.Round(time.Millisecond), ErrRateLimited, context.DeadlineExceeded)
			}
			return fmt.Errorf("compute: rate limiter: %w", context.DeadlineExceeded)
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// adapt moves the token bucket's rate to the target less the decayed headroom, once the two differ
// by more than 0.1% of the target.
func (g *gate) adapt(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	want := g.rps / (1 + g.headroomAt(now))
	if math.Abs(want-float64(g.limiter.Limit())) > g.rps/1000 {
		g.limiter.SetLimitAt(now, rate.Limit(want))
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
