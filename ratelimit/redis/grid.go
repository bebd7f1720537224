package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// gridMargin is how much longer than an interval a slot lasts, in intervals: room for the jitter
// of requests on their way to the service. A process on its fallback that wakes for its slot later
// than half of it gives the slot up (slack), leaving the other half for the network and the
// service.
const gridMargin = 0.25

// errRecheck says that a caller left the fallback to ask Redis again.
var errRecheck = errors.New("ratelimit/redis: back on Redis")

// The default fallback. Wall-clock time is cut into slots of an interval and the margin, numbered
// from the Unix epoch, the same in every process; slot k is slot k modulo frame of the frame. Redis
// gives each member a set of the frame's slots that no other member may hold (memberScript): a
// process on its fallback sends only at the start of its slots, or anywhere between the starts of
// two of its slots in a row, so that its requests are always a slot away from any other process's
// on its fallback. Redis keeps every grant it makes a slot away from the slots of a member that
// may be on its fallback, and from the fallback grants each member reported.

// fallback is the pacing of the default fallback; the limiter's mu guards it.
type fallback struct {
	prev, last time.Time     // the last two fallback grants, as reserved
	lastAt     time.Time     // when the last one went
	seq        uint64        // the last grant's number
	responded  time.Time     // when its response arrived; zero until then
	minRTT     time.Duration // the fastest round trip; -1 before the first
	armed      bool          // a 429 was seen: pacing from responses, and the next ones pause
	until      time.Time     // a pause ends
	wide       float64       // the spacing's widening, in intervals, as of wideAt
	wideAt     time.Time
	late       time.Duration // the allowance for late responses, as of lateAt
	lateAt     time.Time     // zero for the whole allowance
	skipped    bool          // the last grant was given up: no response to wait for
}

// spacing is the fallback's spacing at now: the schedule's, widened by the 429s it met.
func (f *fallback) spacing(step time.Duration, now time.Time) time.Duration {
	w := max(0, f.wide-compute.PacingWiden*float64(now.Sub(f.wideAt))/float64(compute.PacingNarrow))
	return step + time.Duration(w*float64(step))
}

// throttledSlots notes a 429 while on the fallback: the first arms the pacing from responses, as
// compute.NewLimiter does; each later one pauses the process and widens its spacing.
func (l *Limiter) throttledSlots(wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.fb.armed && !l.armed {
		l.fb.armed = true
		return
	}
	l.fb.armed = true
	now := time.Now()
	if t := now.Add(wait); t.After(l.fb.until) {
		l.fb.until = t
	}
	w := max(0, l.fb.wide-compute.PacingWiden*float64(now.Sub(l.fb.wideAt))/float64(compute.PacingNarrow))
	l.fb.wide, l.fb.wideAt = min(compute.PacingWidenMax, w+compute.PacingWiden), now
}

// waitSlots waits for the process's next slot on the fallback, one caller at a time, and returns
// errRecheck when the limiter goes back to Redis first. A grant is reserved (reported to Redis by
// the next heartbeat) before the caller sleeps until it.
func (l *Limiter) waitSlots(ctx context.Context) (func(), error) {
	l.mu.Lock()
	back, until := l.back, l.fb.until
	l.mu.Unlock()
	if err := pastDeadline(ctx, time.Until(until)); err != nil {
		return nil, err // before queueing behind a caller that waits the pause out
	}
	select {
	case l.fturn <- struct{}{}:
	case <-back:
		return nil, errRecheck
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.fturn }()
	deadline, hasDeadline := ctx.Deadline()
	asked := time.Now()
	for {
		l.mu.Lock()
		if !l.failing {
			l.mu.Unlock()
			return nil, errRecheck
		}
		back = l.back
		now := time.Now()
		if err := pastDeadline(ctx, l.fb.until.Sub(now)); err != nil {
			l.mu.Unlock()
			return nil, err
		}
		at, poll, ok := l.nextSlot(now)
		switch {
		case !ok: // this process holds no slot: wait for Redis
			l.mu.Unlock()
			select {
			case <-back:
				return nil, errRecheck
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case poll > 0: // a response may end the hold: look again soon
			l.mu.Unlock()
			if err := sleep(ctx, poll); err != nil {
				return nil, err
			}
			continue
		case hasDeadline && at.After(deadline):
			l.mu.Unlock()
			return nil, fmt.Errorf("ratelimit/redis: the next request may go in %s, past the context deadline: %w",
				at.Sub(now).Round(time.Millisecond), context.DeadlineExceeded)
		}
		if base, end, ok := l.fbHold(now); ok { // what the caller waited past PacingHold is spent
			waited := max(0, minTime(now, end).Sub(latest(base, asked)))
			l.fb.late, l.fb.lateAt = max(0, l.fbAllowance(now)-waited), now
		}
		l.fb.prev, l.fb.last = l.fb.last, at
		l.fb.seq++
		seq := l.fb.seq
		l.fb.responded = time.Time{}
		l.mu.Unlock()
		if err := sleep(ctx, time.Until(at)); err != nil {
			return nil, err
		}
		if err := l.paced(ctx); err != nil {
			return nil, err
		}
		if f := slotWoke.Load(); f != nil {
			(*f)(l)
		}
		sent := time.Now()
		l.mu.Lock()
		if sent.Sub(at) > l.slack(at)/2 { // too late for the slot: the next process's is near
			l.fb.skipped = true
			l.mu.Unlock()
			continue
		}
		l.fb.lastAt, l.fb.skipped = sent, false
		l.mu.Unlock()
		return func() { l.respondedSlots(seq, sent) }, nil
	}
}

// respondedSlots notes the response to fallback grant seq, sent at sent.
func (l *Limiter) respondedSlots(seq uint64, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if rtt := now.Sub(sent); l.fb.minRTT < 0 || rtt < l.fb.minRTT {
		l.fb.minRTT = rtt
	}
	if seq == l.fb.seq && l.fb.responded.IsZero() {
		l.fb.responded = now
	}
}

// nextSlot returns when the next fallback grant may go, at or after now: after the promise, the
// pause, an interval after this process's last grant (Redis's or the fallback's) and, once a 429
// was seen, an interval after the last response less the fastest round trip (or, with no response
// yet, poll > 0: look again then), in one of this process's slots; ok is false when it holds
// none. Call it with l.mu held.
func (l *Limiter) nextSlot(now time.Time) (at time.Time, poll time.Duration, ok bool) {
	step := l.fb.spacing(l.step, now)
	// The schedule is fixed in advance, as Redis's is: a caller that wakes late does not delay the
	// next (the pacing from responses covers a request that leaves late).
	t := latest(now, l.promise, l.fb.until, l.lastDue.Add(step), l.fb.last.Add(step))
	if _, end, ok := l.fbHold(now); ok {
		switch {
		case !l.fb.responded.IsZero():
			t = latest(t, end)
		case end.After(t):
			return end, min(end.Sub(now), max(time.Millisecond, step/20)), true
		}
	}
	at, ok = l.slotFrom(t)
	return at, 0, ok
}

// fbHold is, once a 429 was seen and a fallback grant went, when the pacing from responses lets
// the next fallback grant go, as it stands at now: an interval after the last response less the
// fastest round trip, at most PacingHold of an interval past the last grant's time (base), or
// later by what the allowance for late responses holds (up to PacingHoldLate), as
// compute.NewLimiter does. Call it with l.mu held.
func (l *Limiter) fbHold(now time.Time) (base, end time.Time, ok bool) {
	if !(l.fb.armed || l.armed) || l.fb.lastAt.IsZero() || l.fb.skipped {
		return time.Time{}, time.Time{}, false
	}
	step := l.fb.spacing(l.step, now)
	base = l.fb.last.Add(step + time.Duration(compute.PacingHold*float64(step)))
	end = base.Add(l.fbAllowance(now))
	if !l.fb.responded.IsZero() {
		end = minTime(end, l.fb.responded.Add(step-max(0, l.fb.minRTT)))
	}
	return base, end, true
}

// fbAllowance is how much longer than PacingHold past its time a fallback grant may wait for a late
// response at now: the share PacingHoldShare of the time since it was last spent, up to the rest of
// PacingHoldLate. Call it with l.mu held.
func (l *Limiter) fbAllowance(now time.Time) time.Duration {
	most := time.Duration((compute.PacingHoldLate - compute.PacingHold) * float64(l.fb.spacing(l.step, now)))
	if l.fb.lateAt.IsZero() {
		return most
	}
	return min(most, l.fb.late+time.Duration(compute.PacingHoldShare*float64(now.Sub(l.fb.lateAt))))
}

// slack is how late a fallback grant due at at may leave: until an interval (and the widening)
// before the first slot after it that this process does not hold; for a process that holds them
// all, or none, a frame. Call it with l.mu held.
func (l *Limiter) slack(at time.Time) time.Duration {
	s := int64(l.slot)
	k := at.UnixNano() / s
	if l.held != "" {
		for j := k + 1; j <= k+frame; j++ {
			if l.held[j%frame] != '1' {
				return time.Unix(0, j*s).Sub(at) - l.fb.spacing(l.step, at)
			}
		}
	}
	return frame * l.slot
}

// slotWoke, when set, runs when a caller woke for its fallback grant; a test makes a process wake
// late.
var slotWoke atomic.Pointer[func(*Limiter)]

// slotFrom returns the first time at or after t when this process may send on its fallback: at
// the start of one of its slots, or between the starts of two of its slots in a row. A process
// that Redis gave no share (it never heard back from Redis, or it left the budget) holds every
// slot when it knows of no other process, and none when it does; one that holds none has no such
// time.
func (l *Limiter) slotFrom(t time.Time) (time.Time, bool) {
	held := l.held
	if held == "" {
		if l.seen && l.waitN > 1 {
			return time.Time{}, false
		}
		held = strings.Repeat("1", frame)
	}
	s := int64(l.slot)
	k := t.UnixNano() / s
	has := func(k int64) bool { return held[k%frame] == '1' }
	if has(k) && (k*s == t.UnixNano() || has(k+1)) {
		return t, true
	}
	for j := k + 1; j <= k+frame; j++ {
		if has(j) {
			return time.Unix(0, j*s), true
		}
	}
	return time.Time{}, false
}

// latest returns the latest of ts.
func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// minTime returns the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
