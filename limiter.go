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
	// may fail early when it knows the wait would outlast ctx's deadline. When it lets an attempt
	// go it may return done, which the client then calls once, as soon as the attempt's response
	// has arrived (its status line and headers), and not at all when the attempt fails without a
	// response (whose timing says nothing of when the service saw it): a limiter can pace from the
	// responses, which arrive after the service counted the request, rather than from its own
	// grants (see [WithRateLimit]). A limiter that has no use for it returns nil.
	Wait(ctx context.Context) (done func(), err error)
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
//   - takes each token when it is actually there, one caller at a time (x/time/rate's reservations
//     are a schedule computed in advance, on which a caller that wakes late makes the next one
//     early by as much). A caller that slept for the token and woke at most catchUp (a quarter of an
//     interval) late is caught up: the bucket counts its grant from when the token was there, so
//     the next one is due an interval after that. Timers and schedulers wake a goroutine late by
//     tenths of a millisecond, more on a busy VM, and without catching up that is lost for good;
//     it is no burst, since only a caller that waited for its token is caught up, never one that
//     comes after an idle time. The pacing from responses, armed by a 429, catches nothing up;
//   - paces a little under the target, by a headroom of minHeadroom (0.3%), which a service with
//     any burst never notices;
//   - after a 429, for anchorFor (ten minutes, renewed by every 429), also paces from the responses:
//     an attempt goes no sooner than an interval after the response to the one before it arrived,
//     less the shortest round trip seen. A request that reached the service late (a vCPU that woke
//     late on either side, a slow hop) cannot make the next one early: the service counted it
//     before it responded, so an interval after its response, less the fastest possible round trip,
//     is at least an interval after the service counted it. Pacing from the grants alone would need
//     a headroom as wide as the worst delay, which on a busy VM is 5-20 ms of a 100 ms interval. It
//     costs the round trip's variation, so it is armed only once a 429 shows that the service is
//     strict. The gate holds the next attempt for the previous response at most anchorHold (a
//     quarter of an interval) past its due time, and does not anchor when the shortest round trip
//     is over half an interval: a slow operation, or a far service, then falls back to the grants
//     and the headroom;
//   - on any other 429 (one while the pacing from responses is armed, or where it cannot anchor)
//     raises the headroom by throttledHeadroom (3 points), up to maxHeadroom, at most once a second
//     (the 429s of one moment count once), and lets the extra decay by half every headroomHalfLife
//     (two minutes), so the rate recovers gradually;
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
	anchorFor         = 10 * time.Minute
	anchorHold        = 0.25 // of an interval
	catchUp           = 0.25 // of an interval
)

// gate is the client's default [Limiter]: the x/time/rate token bucket at the target rate less the
// adaptive headroom, plus a pause that a 429 sets so that every goroutine using the client backs
// off together, plus the pacing from responses that a 429 arms.
type gate struct {
	limiter *rate.Limiter // nil when the limit is off
	rps     float64       // the target
	turn    chan struct{} // held by the one caller taking the next token
	// sleep is the package's sleep, or a test's.
	sleep func(ctx context.Context, d time.Duration, wake <-chan struct{}) error

	mu       sync.Mutex
	until    time.Time     // the shared pause ends
	headroom float64       // the headroom set at raised; it decays towards minHeadroom
	raised   time.Time     // when the headroom was last raised
	last429  time.Time     // when the last 429 was reported
	lastWait time.Duration // and the wait it asked for

	anchorUntil time.Time     // pacing is anchored on responses until then
	seq         uint64        // the number of the last attempt let go
	sent        time.Time     // when it was let go
	responded   time.Time     // when its response arrived; zero until then
	arrived     chan struct{} // closed when it arrives
	minRTT      time.Duration // the shortest time from letting an attempt go to its response
}

// newGate returns a gate pacing at rps (0 for none) with bursts of burst.
func newGate(rps float64, burst int) *gate {
	g := &gate{rps: rps, headroom: minHeadroom, turn: make(chan struct{}, 1), minRTT: math.MaxInt64, sleep: sleep}
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
		// The 429 that arms the pacing from responses does not raise the headroom: that pacing is
		// the remedy for it.
		arming := now.After(g.anchorUntil) && !g.far()
		if !arming && now.Sub(g.raised) >= raiseEvery {
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
	g.anchorUntil = now.Add(anchorFor)
	if t := now.Add(pause); t.After(g.until) {
		g.until = t
	}
}

// Wait implements [Limiter]: it blocks until an attempt may be sent, or ctx ends. Callers take
// turns; the one whose turn it is waits for the pause a 429 set, if any, then (when a 429 armed it)
// for the previous attempt's response and an interval after it, and then for a token. A wait
// that would outlast the caller's deadline fails at once (with a rate-limit error when it is a
// pause) instead of sleeping into the timeout.
func (g *gate) Wait(ctx context.Context) (func(), error) {
	select {
	case g.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-g.turn }()
	var due time.Time // when the token this caller last slept for was there
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := g.paused()
		pause := d > 0
		var wake <-chan struct{}
		if !pause && g.limiter != nil {
			now := time.Now()
			if g.adapt(now) {
				due = time.Time{} // the bucket was just updated at now: it has nothing to catch up
			}
			d, wake = g.anchored(now)
			if d <= 0 {
				// A grant caught up at an earlier time may fall short of the token by a rounding
				// error; it then goes at now.
				if at := g.grantTime(now, due); g.limiter.AllowN(at, 1) || at.Before(now) && g.limiter.AllowN(now, 1) {
					return g.letGo(now), nil
				}
				d = max(time.Millisecond/10, time.Duration(math.Ceil((1-g.limiter.TokensAt(now))/float64(g.limiter.Limit())*float64(time.Second))))
				due = now.Add(d)
			} else {
				due = time.Time{}
			}
		}
		if d <= 0 {
			return nil, nil
		}
		// A wait for a response (wake) usually ends long before d, so it does not fail early.
		if deadline, ok := ctx.Deadline(); ok && wake == nil && time.Until(deadline) < d {
			if pause {
				return nil, fmt.Errorf("compute: the service asked for a pause of %s, past the context deadline: %w (%w)",
					d.Round(time.Millisecond), ErrRateLimited, context.DeadlineExceeded)
			}
			return nil, fmt.Errorf("compute: rate limiter: %w", context.DeadlineExceeded)
		}
		if err := g.sleep(ctx, d, wake); err != nil {
			return nil, err
		}
	}
}

// grantTime is when a grant at now counts as made in the token bucket: at due, when the token
// the caller slept for was there then and the caller woke at most catchUp of an interval late, so
// that the next token is due an interval after due and the late wake-up is caught up; otherwise now.
// No late wake-up is caught up while the pacing from responses is armed: a strict service would
// refuse the next request, which would leave early by as much.
func (g *gate) grantTime(now, due time.Time) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	late := now.Sub(due)
	if due.IsZero() || late <= 0 || late > time.Duration(catchUp*float64(g.interval())) || !now.After(g.anchorUntil) {
		return now
	}
	return due
}

// anchored is how long the pacing from responses holds the next attempt at now, at most until a
// quarter interval past its due time, and a channel closed when the response it waits for arrives
// (see the pacing comment above minHeadroom).
func (g *gate) anchored(now time.Time) (time.Duration, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.After(g.anchorUntil) || g.minRTT == math.MaxInt64 || g.far() {
		return 0, nil
	}
	interval := g.interval()
	holdEnd := g.sent.Add(interval + time.Duration(anchorHold*float64(interval)))
	if g.responded.IsZero() {
		return holdEnd.Sub(now), g.arrived
	}
	// A response slower than the hold does not hold the next attempt longer than a missing one.
	return min(g.responded.Add(interval-g.minRTT).Sub(now), holdEnd.Sub(now)), nil
}

// interval is the pace's current interval. The caller holds g.mu.
func (g *gate) interval() time.Duration {
	return time.Duration(float64(time.Second) / float64(g.limiter.Limit()))
}

// far is whether the shortest round trip seen is over half an interval: a response then often
// arrives after the next attempt is due, and the pacing does not anchor on responses. The caller
// holds g.mu.
func (g *gate) far() bool {
	return g.minRTT != math.MaxInt64 && g.minRTT > g.interval()/2
}

// letGo records the attempt let go at now and returns the done function that records its
// response.
func (g *gate) letGo(now time.Time) func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	g.sent, g.responded, g.arrived = now, time.Time{}, make(chan struct{})
	seq := g.seq
	return func() { g.respond(seq, time.Now()) }
}

// respond records that the response to attempt seq arrived at now. Only the last attempt let go
// anchors the pacing; an earlier one's response comes too late to matter.
func (g *gate) respond(seq uint64, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq != g.seq || !g.responded.IsZero() {
		return
	}
	g.responded = now
	g.minRTT = min(g.minRTT, now.Sub(g.sent))
	close(g.arrived)
}

// adapt moves the token bucket's rate to the target less the decayed headroom, once the two differ
// by more than 0.1% of the target, and reports whether it did.
func (g *gate) adapt(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	want := g.rps / (1 + g.headroomAt(now))
	if math.Abs(want-float64(g.limiter.Limit())) > g.rps/1000 {
		g.limiter.SetLimitAt(now, rate.Limit(want))
		return true
	}
	return false
}

// paused is how long the current pause still lasts.
func (g *gate) paused() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return time.Until(g.until)
}

// sleep waits d, or until wake is closed (a nil wake never is), or until ctx ends, whichever comes
// first.
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	case <-wake:
		return nil
	}
}
