package compute

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The constants of the pacing [NewLimiter] describes, which the Redis limiter (ratelimit/redis) uses.
const (
	PacingHeadroom  = 0.003           // how far under the rate the schedule runs
	PacingHold      = 0.25            // intervals a request waits past its due time for the last response
	PacingHoldLate  = 1.0             // intervals it waits at most for a late response, within PacingHoldShare
	PacingHoldShare = 0.01            // the share of the time the waits past PacingHold may take
	PacingWiden     = 0.05            // intervals each 429 after the first widens the spacing by
	PacingWidenMax  = 0.5             // intervals the spacing widens by at most
	PacingNarrow    = 2 * time.Minute // how long without a 429 narrows the spacing by PacingWiden
	PacingMargin    = 0.015           // intervals more than one left after a write or a response
)

// NewLimiter returns the limiter a client builds from [WithRateLimit]: rps requests per second on
// average with bursts of burst (rps > 0, burst >= 1). Pass one to several clients ([WithLimiter])
// to hold them all to one rate. Callers take turns, paced two ways:
//
//   - The schedule: a token bucket at rps less [PacingHeadroom], whose turns are fixed in advance,
//     so a caller that wakes late does not delay the next.
//   - From the first 429 on, pacing from responses: a service that allows no burst refuses a
//     request that reaches it less than an interval after the one before. So each request also
//     waits until an interval after the previous response arrived, less the fastest round trip
//     seen (the service counted the request before it responded), but at most [PacingHold] of an
//     interval past its due time; or, for a response that comes later (a request that a busy
//     machine, a jittery network or the service itself held up), up to [PacingHoldLate], while
//     these longer waits have taken less than [PacingHoldShare] of the time. So a request that
//     reached the service late delays the next one by its lateness, and no more; a service whose
//     every response is slow, which counted each request long before it responded, costs at most
//     that share more than a quarter interval per response. A client tells its limiter when each
//     request was written to its connection: these waits count from that instant, not from the
//     request's turn, and the next request waits (up to a second) for the last one to be written.
//     So a request that a busy process writes late delays the next one by its lateness, whatever
//     the allowance holds. With a burst of one, the schedule counts from the last write too,
//     before the first 429 as after it; and after a request written on a new connection, which
//     the service reads only once it has accepted the connection, the next one waits for its
//     response and an interval after it (at most [PacingHoldLate] of an interval past its due time).
//     The spacing these waits count from a write or a response is an interval and [PacingMargin],
//     since the time between a write and the service's reading of it varies by a millisecond or so.
//
// Each later 429 pauses every caller for its Retry-After, since the budget is spent (another client
// on the token, a lower limit); a caller whose deadline ends before the pause fails at once with an
// error matching [ErrRateLimited]. It also widens the spacing of both mechanisms by [PacingWiden] of
// an interval (up to [PacingWidenMax]): a request that a busy machine or a jittery network delivers
// late lands less than an interval before the next one, and a service that allows no burst refuses
// that one. The widening narrows back by [PacingWiden] for each [PacingNarrow] without a 429.
//
// opts change the pacing (see [PaceFromResponses]); a nil one is ignored.
func NewLimiter(rps float64, burst int, opts ...LimiterOption) (Limiter, error) {
	if !(rps > 0) || math.IsInf(rps, 0) || burst < 1 {
		return nil, fmt.Errorf("compute: NewLimiter: rps must be > 0 and finite and burst >= 1, got %v and %d", rps, burst)
	}
	g := newGate(rps, burst)
	for _, o := range opts {
		if o != nil {
			o(g)
		}
	}
	return g, nil
}

// LimiterOption changes the pacing of the limiter [NewLimiter] returns.
type LimiterOption func(*gate)

// PaceFromResponses turns the pacing from responses on from the first request, not from the first
// 429. Use it in a short-lived process against a service that allows no burst: a command, or a
// Terraform provider, which Terraform starts anew for each plan and each apply. On a busy machine
// the service may read a request some milliseconds after it was written; before the pacing from
// responses is on, the next request, an interval after that write, then reaches it less than an
// interval after, and draws a 429: one in each process. What it costs: each request waits for the
// response to the one before, at most [PacingHold] of an interval past its turn (more for a late
// response, within [PacingHoldShare] of the time), so a slow service slows a burst; and the first
// 429, which then means that the budget is spent, pauses every caller for its Retry-After.
func PaceFromResponses() LimiterOption {
	return func(g *gate) {
		if g.schedule != nil {
			g.armed = true
		}
	}
}

// gate is the default [Limiter]. With the limit off (no schedule) every 429 pauses every caller.
type gate struct {
	schedule *rate.Limiter // nil when the limit is off
	turn     chan struct{} // held by the caller taking the next grant

	mu        sync.Mutex
	rps       float64       // the rate; 0 when the limit is off
	wide      float64       // the spacing's widening, in intervals, as of wideAt
	wideAt    time.Time     // when wide was last set
	until     time.Time     // the pause ends
	armed     bool          // the pacing from responses is on
	seq       uint64        // the last attempt let go
	sent      time.Time     // when
	responded time.Time     // when its response arrived; zero until then
	minRTT    time.Duration // the fastest round trip; -1 before the first
	late      time.Duration // what the waits past PacingHold may still take, as of lateAt
	lateAt    time.Time     // when late was last set; zero for the whole allowance
	wrote     bool          // the last attempt let go was written, or ended: no write to wait for
	fresh     bool          // the last attempt let go was written on a new connection
	traced    bool          // the client tells when its requests are written (see writeNote)
	told      bool          // a writeNote has fired: traced is known
}

// writeWaitMax bounds how long the pacing from responses waits for the last attempt's request to
// be written before it lets the next one go anyway.
const writeWaitMax = time.Second

func newGate(rps float64, burst int) *gate {
	g := &gate{turn: make(chan struct{}, 1), minRTT: -1, rps: rps}
	if rps > 0 {
		g.schedule = rate.NewLimiter(rate.Limit(rps/(1+PacingHeadroom)), burst)
	}
	return g
}

// Throttled implements [Limiter]. A call with a nil ctx is ignored.
func (g *gate) Throttled(ctx context.Context, wait time.Duration) {
	if ctx == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.schedule != nil && !g.armed {
		g.armed = true
		return
	}
	now := time.Now()
	if t := now.Add(wait); t.After(g.until) {
		g.until = t
	}
	if g.schedule != nil {
		g.wide, g.wideAt = min(PacingWidenMax, g.widening(now)+PacingWiden), now
		g.respace(now)
	}
}

// widening is the spacing's widening at now, in intervals: wide less what it narrowed since wideAt.
// Call it with g.mu held.
func (g *gate) widening(now time.Time) float64 {
	return max(0, g.wide-PacingWiden*float64(now.Sub(g.wideAt))/float64(PacingNarrow))
}

// respace sets the schedule's rate to the rate less the headroom and the widening at now. Call it
// with g.mu held.
func (g *gate) respace(now time.Time) {
	limit := rate.Limit(g.rps / (1 + PacingHeadroom + g.widening(now)))
	if g.schedule.Limit() != limit {
		g.schedule.SetLimitAt(now, limit)
	}
}

// Wait implements [Limiter]. Callers take turns; one whose deadline ends before the pause does
// fails at once, before queueing. A nil ctx is refused with a [*ValidationError].
func (g *gate) Wait(ctx context.Context) (func(), error) {
	if ctx == nil {
		return nil, errNilContext
	}
	if _, err := g.hold(ctx); err != nil {
		return nil, err
	}
	select {
	case g.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-g.turn }()
	asked := time.Now()
	for {
		d, err := g.hold(ctx)
		switch {
		case err != nil:
			return nil, err
		case d > 0:
			if err := sleep(ctx, d); err != nil {
				return nil, err
			}
		case g.schedule == nil:
			return nil, ctx.Err()
		default:
			return g.letGo(ctx, asked)
		}
	}
}

// hold is how long the next attempt waits: the pause left (an error when it outlasts ctx's
// deadline), the last request's write (with no burst, an interval and the margin after it), or the
// pacing from responses (polling every millisecond for a missing response or write).
func (g *gate) hold(ctx context.Context) (time.Duration, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if g.schedule != nil {
		g.respace(now) // the widening narrows as time passes
	}
	if pause := g.until.Sub(now); pause > 0 {
		if deadline, ok := ctx.Deadline(); ok && deadline.Sub(now) < pause {
			return 0, fmt.Errorf("compute: the service asked for a pause of %s, past the context deadline: %w (%w)",
				pause.Round(time.Millisecond), ErrRateLimited, context.DeadlineExceeded)
		}
		return pause, nil
	}
	// Without a burst, or with the pacing from responses on, the next request goes after the last
	// one was written: one written late reaches the service late. Until the first attempt's note
	// tells whether the client says when it writes, the next waits for that word too: a process's
	// first request, on a new connection, is the one most often written late.
	byWrites := (g.traced || !g.told) && g.seq > 0 && (g.armed || g.schedule != nil && g.schedule.Burst() == 1)
	if byWrites && !g.wrote && now.Before(g.sent.Add(writeWaitMax)) {
		return time.Millisecond, nil // the last request is not written yet
	}
	if byWrites && g.fresh {
		return g.holdFresh(now), nil
	}
	if !g.armed || g.minRTT < 0 {
		if byWrites {
			return g.sent.Add(g.spaced()).Sub(now), nil // an interval and the margin after the last write
		}
		return 0, nil
	}
	_, end := g.holdEnd(now)
	if d := end.Sub(now); g.responded.IsZero() && d > 0 {
		return min(d, time.Millisecond), nil
	}
	return end.Sub(now), nil
}

// holdFresh is how long the next attempt waits after one written on a new connection: the service
// reads such a request later than it was written, since it accepts the connection first (a busy
// machine's service, many milliseconds later), so an interval after the write may be less than
// one after the service counted it. The next attempt waits for its response, then an interval
// and the margin after it; but at most PacingHoldLate of an interval past its due time, as for a
// late response. A new connection is rare (a process's first requests, a burst past the idle
// pool): the wait costs a round trip then. Call it with g.mu held.
func (g *gate) holdFresh(now time.Time) time.Duration {
	interval := g.interval()
	end := g.sent.Add(interval + time.Duration(PacingHoldLate*float64(interval)))
	if g.responded.IsZero() {
		if now.Before(end) {
			return min(end.Sub(now), time.Millisecond) // look again for the response
		}
		return 0
	}
	return earliest(g.responded.Add(g.spaced()), end).Sub(now)
}

// holdEnd is when the pacing from responses lets the next attempt go, as it stands at now: an
// interval and the margin after the last response less the fastest round trip, at most PacingHold
// of an interval past the last attempt's time (base), or later by what the allowance for late
// responses holds at now (up to PacingHoldLate). Call it with g.mu held and the pacing from
// responses on.
func (g *gate) holdEnd(now time.Time) (base, end time.Time) {
	interval := g.interval()
	base = g.sent.Add(interval + time.Duration(PacingHold*float64(interval)))
	end = base.Add(g.allowance(now, interval))
	if r := g.responded.Add(g.spaced() - g.minRTT); !g.responded.IsZero() && r.Before(end) {
		end = r
	}
	return base, end
}

// interval is the schedule's spacing. Call it with g.mu held.
func (g *gate) interval() time.Duration {
	return time.Duration(float64(time.Second) / float64(g.schedule.Limit()))
}

// spacingMargin is how much more than an interval, in intervals, the limiter leaves between the
// instant it counts from (the last write, or the last response less the fastest round trip) and
// the next attempt. The service counts a request when it reads it, and the time between a write
// and that reading varies by a millisecond or so on a busy machine: an attempt spaced by exactly
// an interval is refused now and then.
const spacingMargin = PacingMargin

// spaced is an interval and the margin: the least time between the instant the spacing counts from
// and the next attempt. Call it with g.mu held.
func (g *gate) spaced() time.Duration {
	return time.Duration(float64(g.interval()) * (1 + spacingMargin))
}

// allowance is how much longer than PacingHold past its due time an attempt may wait for a late
// response at now: what is left of the share of the time PacingHoldShare gives these waits, at
// most the rest of PacingHoldLate. Call it with g.mu held.
func (g *gate) allowance(now time.Time, interval time.Duration) time.Duration {
	most := time.Duration((PacingHoldLate - PacingHold) * float64(interval))
	if g.lateAt.IsZero() {
		return most
	}
	return min(most, g.late+time.Duration(PacingHoldShare*float64(now.Sub(g.lateAt))))
}

// letGo waits for the schedule and lets the attempt go; its done records the response. asked is
// when the caller began to wait for it: the time it waited past PacingHold for the last response
// comes out of the allowance for late responses.
func (g *gate) letGo(ctx context.Context, asked time.Time) (func(), error) {
	if err := g.schedule.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("compute: rate limiter: %w", context.DeadlineExceeded) // it would outlast the deadline
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if g.armed && g.minRTT >= 0 && g.seq > 0 {
		base, end := g.holdEnd(now)
		waited := max(0, earliest(now, end).Sub(latest(base, asked)))
		g.late, g.lateAt = max(0, g.allowance(now, g.interval())-waited), now
	}
	g.seq++
	seq, sent := g.seq, &now
	g.sent, g.responded, g.wrote, g.fresh = now, time.Time{}, true, false
	if n := writeNoteOf(ctx); n != nil {
		g.wrote = false
		n.on(func(at time.Time, traced, fresh bool) { g.written(seq, sent, at, traced, fresh) })
	}
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		now := time.Now()
		if rtt := now.Sub(*sent); g.minRTT < 0 || rtt < g.minRTT {
			g.minRTT = rtt
		}
		if seq == g.seq && g.responded.IsZero() { // only the last attempt anchors the next
			g.responded = now
		}
	}, nil
}

// written records that attempt seq, let go at *sent, was written at at (traced), on a new
// connection (fresh), or ended with no word of a write. The pacing from responses counts from when
// the last attempt was written, and an attempt's round trip from its write.
func (g *gate) written(seq uint64, sent *time.Time, at time.Time, traced, fresh bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.told = true
	if traced {
		g.traced = true
		if at.After(*sent) {
			*sent = at
		}
	}
	if seq == g.seq {
		g.wrote = true
		g.fresh = traced && fresh
		if traced && at.After(g.sent) {
			g.sent = at
		}
	}
}

// earliest returns the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
