package redis

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The modes of a heartbeat command (memberScript's ARGV[16]).
const (
	modeRenew = "r" // on Redis: renews the promise
	modeProbe = "p" // on the fallback, at a recheck instant: promises nothing
	modeLeave = "l" // leaves the budget
)

// lendAfter is how long after a heartbeat a member of a budget shared with others promises to send
// nothing on its fallback, so that Redis may give its slots to the others meanwhile: two heartbeats
// (one may come late) and the few slots around a grant Redis reserves. A process alone promises
// nothing: nobody else needs its slots, and it keeps them all through an outage.
func (l *Limiter) lendAfter() time.Duration {
	return 2*heartbeatEvery + 3*l.slot
}

// heartbeat runs while the limiter is used, from joinAfter after its first Wait: on Redis, a
// heartbeat every heartbeatEvery renews the process's promise and its slots; on the fallback, one
// at each recheck instant asks Redis again, and the first that Redis answers takes the limiter back
// to it. It leaves the budget when nobody has waited for idleLeave (no caller is in Wait, and none
// began or ended a Wait meanwhile), and ends at Close. A caller that waits longer than that (its
// process holds no slot while Redis is down, or its turn is far in a long queue) keeps it: else
// nothing would bring the limiter back to Redis.
func (l *Limiter) heartbeat(done chan struct{}) {
	defer close(done)
	if !l.pause(joinAfter, nil) {
		return
	}
	var probed time.Time // the last recheck instant a heartbeat was sent at
	for {
		l.mu.Lock()
		failing, closed := l.failing, l.closed
		idle := l.waiting == 0 && time.Since(l.lastWait) > idleLeave
		if idle && !closed {
			l.beating = false
		}
		l.mu.Unlock()
		switch {
		case closed:
			return
		case idle:
			_ = l.beat(context.Background(), modeLeave)
			return
		case failing: // at the next recheck instant, or at this one if it is one
			now := time.Now()
			p := int64(l.recheck)
			at := time.Unix(0, (now.UnixNano()+p-1)/p*p)
			if !at.After(probed) {
				at = probed.Add(l.recheck)
			}
			probed = at
			if !l.pause(at.Sub(now), nil) {
				return
			}
			if l.beat(context.Background(), modeProbe) == nil {
				l.recovered()
				continue // at once, a heartbeat that renews the promise and reports the fallback's grants
			}
		default:
			_ = l.beat(context.Background(), modeRenew)
			if !l.pause(heartbeatEvery, l.kick) {
				return
			}
		}
	}
}

// pause waits d, or until kick, and reports false when the limiter is closed meanwhile.
func (l *Limiter) pause(d time.Duration, kick <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-l.stop:
		return false
	case <-t.C:
	case <-kick:
	}
	return true
}

// beat sends one heartbeat command in mode and notes what Redis replies: the count of members, the
// slots this process may hold, the budget's epoch.
func (l *Limiter) beat(ctx context.Context, mode string) error {
	l.hb.Lock()
	defer l.hb.Unlock()
	l.mu.Lock()
	l.cseq++
	cseq, held, fb1, fb2 := l.cseq, l.held, l.fb.prev, l.fb.last
	promise := int64(0) // lends nothing: a process alone, or one that does not know the others yet
	if mode == modeRenew && l.n >= 2 {
		p := time.Now().Add(l.lendAfter())
		if p.After(l.promise) {
			l.promise = p
		}
		promise = p.UnixMicro()
	}
	l.mu.Unlock()
	args := append(l.args(""), cseq, held, promise, micro(fb1), micro(fb2), mode)
	v, err := l.run(ctx, memberScript, args)
	if err != nil {
		return err
	}
	code, n, epoch, sent, err := checkMember(v, mode)
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("ratelimit/redis: Redis ran a heartbeat after a later one")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen, l.epoch = true, epoch
	if mode == modeLeave {
		l.n, l.held = 0, ""
		return nil
	}
	if l.n < 2 && n >= 2 { // others came: promise at once, so that they may have this one's slots
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
	l.n, l.held = n, sent
	return nil
}

// micro is t in microseconds since the Unix epoch, 0 for the zero time.
func micro(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// checkMember reads memberScript's reply, and refuses one it never sends: {0 or 1, a count of
// members from 1 to maxMembers (0 when leaving, or for 1), a rank below it, an epoch > 0, the slots
// of the frame as '0' and '1' (empty when leaving, or for 1)}.
func checkMember(v any, mode string) (code, n, epoch int64, sent string, err error) {
	r, _ := v.([]any)
	bad := func() (int64, int64, int64, string, error) {
		return 0, 0, 0, "", fmt.Errorf("ratelimit/redis: a reply no script sends: %.80v", v)
	}
	if len(r) != 5 {
		return bad()
	}
	var ints [4]int64
	for i := range ints {
		x, ok := r[i].(int64)
		if !ok {
			return bad()
		}
		ints[i] = x
	}
	sent, ok := r[4].(string)
	code, n, rank, epoch := ints[0], ints[1], ints[2], ints[3]
	switch {
	case !ok || epoch <= 0:
		return bad()
	case code == 1 || mode == modeLeave:
		if code > 1 || n != 0 || rank != 0 || sent != "" {
			return bad()
		}
	case code != 0 || n < 1 || n > maxMembers || rank < 0 || rank >= n ||
		len(sent) != frame || strings.Trim(sent, "01") != "":
		return bad()
	}
	return code, n, epoch, sent, nil
}
