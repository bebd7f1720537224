package redis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// gridMargin is how much longer than an interval a slot of the grid lasts, in intervals: room for
// the jitter of requests on their way to the service.
const gridMargin = 0.1

// errRecheck says that a caller left the fallback to ask Redis again at the recheck instant.
var errRecheck = errors.New("ratelimit/redis: no fallback grant before the recheck")

// grid is the default fallback. Wall-clock time is cut into slots of an interval and the margin,
// numbered from the Unix epoch; process i of the n that Redis last counted fires only in the slots
// whose number is i modulo n, so the fleet sends at most one request a slot, never two at once,
// while each process keeps its share of the rate. Before Redis counted any (n = 0), the process
// takes every slot.
// The limiter lets one caller at a time wait on it.
type grid struct {
	slot time.Duration

	mu    sync.Mutex
	n, i  int64     // the processes Redis counted and this one's rank; n = 0 before any count
	armed bool      // a 429 was seen: the next ones pause
	next  time.Time // no grant before this: a slot after the last grant
	until time.Time // a pause ends
}

func newGrid(slot time.Duration) *grid {
	return &grid{slot: slot}
}

// member notes the count of processes and this one's rank that Redis replied, and whether the
// pacing from responses is on there.
func (g *grid) member(n, i int64, armed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n, g.i = n, i
	g.armed = g.armed || armed
}

// throttled notes a 429: the first arms the grid, as the pacing of compute.NewLimiter does (the
// grid's slots already leave an interval between requests); each later one pauses the process.
func (g *grid) throttled(wait time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.armed {
		g.armed = true
		return
	}
	if t := time.Now().Add(wait); t.After(g.until) {
		g.until = t
	}
}

// pastDeadline fails when the pause outlasts ctx's deadline.
func (g *grid) pastDeadline(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return pastDeadline(ctx, time.Until(g.until))
}

// wait blocks until this process's next slot at or after from, and returns errRecheck at once
// when that slot is after cutoff. A pause that outlasts ctx's deadline fails at once.
func (g *grid) wait(ctx context.Context, from, cutoff time.Time) error {
	deadline, hasDeadline := ctx.Deadline()
	for {
		if err := g.pastDeadline(ctx); err != nil {
			return err
		}
		g.mu.Lock()
		at, ok := g.slotAt(latest(time.Now(), from, g.next, g.until))
		g.mu.Unlock()
		switch {
		case !ok || at.After(cutoff):
			return errRecheck
		case hasDeadline && at.After(deadline):
			return fmt.Errorf("ratelimit/redis: the next request may go in %s, past the context deadline: %w",
				time.Until(at).Round(time.Millisecond), context.DeadlineExceeded)
		}
		if err := sleep(ctx, time.Until(at)); err != nil {
			return err
		}
		g.mu.Lock()
		if g.until.After(time.Now()) { // a 429 paused the process meanwhile
			g.mu.Unlock()
			continue
		}
		g.next = at.Add(g.slot)
		g.mu.Unlock()
		return nil
	}
}

// slotAt returns the start of the first slot of this process at or after t; false when it is too
// far to count in nanoseconds since the Unix epoch. Call it with g.mu held.
func (g *grid) slotAt(t time.Time) (time.Time, bool) {
	n, i := max(g.n, 1), g.i%max(g.n, 1)
	s := int64(g.slot)
	k := t.UnixNano() / s
	if k*s < t.UnixNano() {
		k++
	}
	k += ((i-k%n)%n + n) % n
	if k > math.MaxInt64/s {
		return time.Time{}, false
	}
	return time.Unix(0, k*s), true
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
