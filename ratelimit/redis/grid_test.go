package redis_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fleet on the bubble's clock: processes limiters at 10 per second on one budget in a real Redis
// (the scripts run there, on the bubble's clock, which the limiters pass them), each with its own
// connection, as if in its own process, each with callers goroutines calling Wait. Time stands
// still while a command is on its way, so the times below are exact. The bubble's clock starts on
// a whole second, so the recheck instants (the default period, 1 s) are the whole seconds of the
// run. Redis can be killed for all (every command fails at once), restarted empty (the budget's
// key is gone), or paused for one process (its commands wait, and run once the pause ends, as
// CLIENT PAUSE does, long after the process gave up on them).

const fleetRate, fleetInterval = 10, time.Second / 10

// fleetGrant is one grant of a fleet's run: when, after the start, and to which process.
type fleetGrant struct {
	at      time.Duration
	process int
}

func (g fleetGrant) String() string { return fmt.Sprintf("%s (process %d)", g.at, g.process) }

// bubbleBudget is the budget the fleet shares.
type bubbleBudget struct {
	t    *testing.T
	rdb  *goredis.Client
	key  string
	mu   sync.Mutex
	down bool
}

// newBubbleBudget returns a budget in the Redis of the tests (a redis-server of their own when
// COMPUTE_TEST_REDIS_ADDR is unset). Call it inside the bubble.
func newBubbleBudget(t *testing.T, addr string) *bubbleBudget {
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return &bubbleBudget{t: t, rdb: rdb}
}

func (b *bubbleBudget) kill() { b.mu.Lock(); b.down = true; b.mu.Unlock() }

// restart brings Redis back without the budget, as a Redis without persistence restarts.
func (b *bubbleBudget) restart() {
	b.mu.Lock()
	defer b.mu.Unlock()
	require.NoError(b.t, b.rdb.Del(context.Background(), b.key).Err())
	b.down = false
}

// proc is one process's connection to the budget.
type proc struct {
	b      *bubbleBudget
	mu     sync.Mutex
	paused chan struct{} // non-nil while Redis is paused for this process: closed when it ends
	calls  int
	dead   bool // the process is gone: its commands never reach Redis
	// afterFirst, when set, runs once the process's first command has returned.
	afterFirst func()
	ghosts     sync.WaitGroup
}

// pause holds this process's commands for d: each runs when the pause ends.
func (p *proc) pause(d time.Duration) {
	p.mu.Lock()
	ch := make(chan struct{})
	p.paused = ch
	p.mu.Unlock()
	time.AfterFunc(d, func() {
		p.mu.Lock()
		p.paused = nil
		p.mu.Unlock()
		close(ch)
	})
}

func (p *proc) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *goredis.Cmd {
	p.b.mu.Lock()
	down := p.b.down
	p.b.key = keys[0]
	p.b.mu.Unlock()
	if down {
		return goredis.NewCmdResult(nil, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused"))
	}
	p.mu.Lock()
	if p.dead {
		p.mu.Unlock()
		return goredis.NewCmdResult(nil, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused"))
	}
	paused := p.paused
	p.calls++
	first := p.calls == 1
	after := p.afterFirst
	p.mu.Unlock()
	if paused != nil {
		p.ghosts.Add(1)
		go func() { // the command runs when the pause ends, whoever waits for it
			defer p.ghosts.Done()
			<-paused
			p.b.rdb.EvalSha(context.Background(), sha, keys, args...)
		}()
		<-ctx.Done()
		return goredis.NewCmdResult(nil, ctx.Err())
	}
	r := p.b.rdb.EvalSha(ctx, sha, keys, args...)
	if first && after != nil {
		after()
	}
	return r
}

func (p *proc) Eval(ctx context.Context, src string, keys []string, args ...any) *goredis.Cmd {
	p.b.mu.Lock()
	down := p.b.down
	p.b.mu.Unlock()
	if down {
		return goredis.NewCmdResult(nil, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused"))
	}
	return p.b.rdb.Eval(ctx, src, keys, args...)
}

func (p *proc) EvalRO(ctx context.Context, src string, keys []string, args ...any) *goredis.Cmd {
	return p.Eval(ctx, src, keys, args...)
}

func (p *proc) EvalShaRO(ctx context.Context, sha string, keys []string, args ...any) *goredis.Cmd {
	return p.EvalSha(ctx, sha, keys, args...)
}

func (p *proc) ScriptExists(ctx context.Context, hashes ...string) *goredis.BoolSliceCmd {
	return p.b.rdb.ScriptExists(ctx, hashes...)
}

func (p *proc) ScriptLoad(ctx context.Context, src string) *goredis.StringCmd {
	return p.b.rdb.ScriptLoad(ctx, src)
}

// fleet is a run's limiters and connections.
type fleet struct {
	prefix   string
	limiters []*ratelimit.Limiter
	procs    []*proc
}

// newFleet builds processes limiters on one budget, with opts(i) for the i-th, each closed when
// the test ends. Call it inside the bubble.
func newFleet(t *testing.T, b *bubbleBudget, processes int, opts func(i int) []ratelimit.Option) *fleet {
	f := &fleet{prefix: uniquePrefix(t)}
	for i := range processes {
		f.add(t, b, opts, i)
	}
	return f
}

// add adds a process to the fleet.
func (f *fleet) add(t *testing.T, b *bubbleBudget, opts func(i int) []ratelimit.Option, i int) *proc {
	p := &proc{b: b}
	o := []ratelimit.Option{ratelimit.WithRate(fleetRate), ratelimit.WithKeyPrefix(f.prefix)}
	if opts != nil {
		o = append(o, opts(i)...)
	}
	l, err := ratelimit.New(p, testToken, o...)
	require.NoError(t, err)
	l.SetClock(func() string { return strconv.FormatInt(time.Now().UnixMicro(), 10) })
	t.Cleanup(func() {
		_ = l.Close()
		p.mu.Lock()
		if p.paused != nil {
			p.mu.Unlock()
			time.Sleep(time.Second) // the pause ends
		} else {
			p.mu.Unlock()
		}
		p.ghosts.Wait()
	})
	f.limiters = append(f.limiters, l)
	f.procs = append(f.procs, p)
	return p
}

// run runs callers goroutines per limiter (those of processes in idle not at all) until run has
// passed since start, calling at (after start) each of events, and returns the grants in order.
func (f *fleet) run(t *testing.T, start time.Time, callers int, run time.Duration, events map[time.Duration]func()) []fleetGrant {
	return f.runSome(t, start, callers, run, events, func(int, time.Duration) bool { return true })
}

// runSome is run, where process i's callers call only while busy(i, the time since the start).
func (f *fleet) runSome(t *testing.T, start time.Time, callers int, run time.Duration, events map[time.Duration]func(),
	busy func(i int, at time.Duration) bool) []fleetGrant {
	for at, fn := range events {
		time.AfterFunc(time.Until(start.Add(at)), fn)
	}
	ctx, cancel := context.WithDeadline(t.Context(), start.Add(run))
	defer cancel()
	var mu sync.Mutex
	var grants []fleetGrant
	var wg sync.WaitGroup
	for i, l := range f.limiters {
		for range callers {
			wg.Go(func() {
				for ctx.Err() == nil {
					if !busy(i, time.Since(start)) {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					if err := wait(ctx, l); err != nil {
						assert.ErrorIs(t, err, context.DeadlineExceeded)
						return
					}
					mu.Lock()
					grants = append(grants, fleetGrant{time.Since(start), i})
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	slices.SortStableFunc(grants, func(a, b fleetGrant) int { return int(a.at - b.at) })
	return grants
}

// closeGrants returns the grants of different processes that come less than an interval after the
// one before (a process's own grants are an interval apart by its ceiling).
func closeGrants(grants []fleetGrant) []string {
	var close []string
	for i := 1; i < len(grants); i++ {
		if grants[i].at-grants[i-1].at < fleetInterval {
			close = append(close, fmt.Sprintf("%s after %s", grants[i], grants[i-1]))
		}
	}
	return close[:min(len(close), 10)]
}

// between returns the grants from a to b (after the start).
func between(grants []fleetGrant, a, b time.Duration) []fleetGrant {
	var out []fleetGrant
	for _, g := range grants {
		if g.at >= a && g.at < b {
			out = append(out, g)
		}
	}
	return out
}

// perProcess counts the grants of each of n processes.
func perProcess(grants []fleetGrant, n int) []int {
	c := make([]int, n)
	for _, g := range grants {
		c[g.process]++
	}
	return c
}

// bubble runs f in a synctest bubble with the address of the tests' Redis.
func bubble(t *testing.T, f func(t *testing.T, addr string)) {
	_, addr := sharedRedis(t)
	synctest.Test(t, func(t *testing.T) { f(t, addr) })
}

// TestTheFallbacksOfAFleetNeverFireTogether: 8 processes of 4 callers share a budget on Redis,
// which is killed 3.05 s in. On their default fallbacks, each process sends in its own slots: no
// two requests of the fleet, from the last ones Redis granted to the end, less than an interval
// apart, and every process keeps most of its share, a slot in 8 (0.88 s), from its promise on.
func TestTheFallbacksOfAFleetNeverFireTogether(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const processes, kill, run = 8, 3050 * time.Millisecond, 10 * time.Second
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, processes, nil)
		grants := f.run(t, time.Now(), 4, run, map[time.Duration]func(){kill: b.kill})

		require.GreaterOrEqual(t, len(between(grants, 0, kill)), 28, "Redis granted at the rate before it was killed")
		assert.Empty(t, closeGrants(grants), "requests of the fleet less than an interval apart")
		outage := perProcess(between(grants, kill, run), processes)
		// 6.95 s of slots of 125 ms, one in 8 for each process: 6 or 7, less those before its
		// promise ends (a second at most).
		for i, n := range outage {
			assert.GreaterOrEqual(t, n, 6, "process %d's share of the outage: %v", i, outage)
		}
	})
}

// TestAProcessLateForItsSlotGivesItUp: the same fleet on its fallbacks, one process waking 40 ms
// late for every other slot of its (a loaded machine): that is more than the slot's margin, and a
// request sent then would land less than an interval before the next process's. It gives those
// slots up: still no two requests of the fleet less than an interval apart.
func TestAProcessLateForItsSlotGivesItUp(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const processes, kill, run = 8, 3050 * time.Millisecond, 10 * time.Second
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, processes, nil)
		var woke atomic.Int64
		ratelimit.SetSlotWoke(t, func(l *ratelimit.Limiter) {
			if l == f.limiters[3] && woke.Add(1)%2 == 0 {
				time.Sleep(40 * time.Millisecond)
			}
		})
		grants := f.run(t, time.Now(), 4, run, map[time.Duration]func(){kill: b.kill})
		require.Greater(t, woke.Load(), int64(4), "process 3 woke for its slots")
		assert.Empty(t, closeGrants(grants), "requests of the fleet less than an interval apart")
		outage := perProcess(between(grants, kill, run), processes)
		assert.GreaterOrEqual(t, outage[3], 2, "process 3 kept the slots it woke on time for: %v", outage)
	})
}

// TestAFleetSwitchesWithoutCloseRequests: the same fleet, Redis killed about 3 s in (at ten
// points of an interval) and restarted empty at 6.03 s: across both switches no two requests of
// the fleet go out less than an interval apart, and once every process is back (the recheck
// instant, 7 s), the fleet takes about the whole rate from Redis again.
func TestAFleetSwitchesWithoutCloseRequests(t *testing.T) {
	for kill := 3000 * time.Millisecond; kill < 3100*time.Millisecond; kill += 20 * time.Millisecond {
		t.Run(fmt.Sprint("killed at ", kill), func(t *testing.T) {
			bubble(t, func(t *testing.T, addr string) {
				const restart, run = 6030 * time.Millisecond, 11 * time.Second
				b := newBubbleBudget(t, addr)
				f := newFleet(t, b, 8, nil)
				grants := f.run(t, time.Now(), 4, run, map[time.Duration]func(){kill: b.kill, restart: b.restart})

				assert.Empty(t, closeGrants(grants), "requests of the fleet less than an interval apart")
				require.NotEmpty(t, between(grants, kill, restart), "the fallbacks granted during the outage")
				back := between(grants, 9*time.Second, run)
				assert.GreaterOrEqual(t, len(back), 18, "at about the rate, 2 s, once back: %v", perProcess(back, 8))
			})
		})
	}
}

// TestARedisStallSeenByOneProcess: Redis stalls for one process only, three times for 220 ms
// (its commands run when the stall ends), while the other keeps its grants from Redis: the one
// that stalled sends on its fallback only in its own slots, from its promise on, and Redis keeps
// the other's grants clear of them. No two requests less than an interval apart, and never more
// than the rate.
func TestARedisStallSeenByOneProcess(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const run = 8 * time.Second
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, 2, nil)
		stall := func() { f.procs[1].pause(220 * time.Millisecond) }
		grants := f.run(t, time.Now(), 4, run, map[time.Duration]func(){
			2030 * time.Millisecond: stall, 4050 * time.Millisecond: stall, 6070 * time.Millisecond: stall})

		assert.Empty(t, closeGrants(grants), "requests less than an interval apart")
		for s := time.Duration(0); s+time.Second <= run; s += 500 * time.Millisecond {
			assert.LessOrEqual(t, len(between(grants, s, s+time.Second)), fleetRate+1, "grants in the second from %s", s)
		}
		assert.GreaterOrEqual(t, len(grants), 60, "the fleet keeps most of the rate: %v", perProcess(grants, 2))
	})
}

// TestANewcomerJustBeforeAnOutage: two processes learned their slots from Redis; a third joins and
// Redis dies as soon as it answered the newcomer's first command, before the others heard of it.
// The newcomer holds no slot yet (the others hold them all): it sends nothing until Redis is back,
// and the others keep their own slots, so no two requests are less than an interval apart.
func TestANewcomerJustBeforeAnOutage(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const join, run = 2040 * time.Millisecond, 6 * time.Second
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, 2, nil)
		start := time.Now()
		f.add(t, b, nil, 2).afterFirst = b.kill
		grants := f.runSome(t, start, 4, run, nil, func(i int, at time.Duration) bool { return i < 2 || at >= join })

		assert.Empty(t, closeGrants(grants), "requests less than an interval apart")
		outage := perProcess(between(grants, join, run), 3)
		assert.Zero(t, outage[2], "the newcomer holds no slot: %v", outage)
		assert.Positive(t, outage[0], "the others keep theirs: %v", outage)
		assert.Positive(t, outage[1], "the others keep theirs: %v", outage)
	})
}

// TestAProcessThatStopsLeavesTheBudgetPromptly: a process shares the budget with another for two
// seconds and stops, by Close or by exiting (its heartbeats stop); then Redis dies. The one left
// holds every slot again by then, so on its fallback it keeps about the whole rate, not the half
// that a count of processes still holding the gone one would leave it: at once after Close, and 3 s
// (of Redis serving the others) after an exit.
func TestAProcessThatStopsLeavesTheBudgetPromptly(t *testing.T) {
	for name, tc := range map[string]struct {
		stop func(f *fleet)
		kill time.Duration // after the stop
	}{
		"Close": {func(f *fleet) { assert.NoError(t, f.limiters[1].Close()) }, 500 * time.Millisecond},
		"exit": {func(f *fleet) {
			f.procs[1].mu.Lock()
			f.procs[1].dead = true
			f.procs[1].mu.Unlock()
		}, 3500 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			bubble(t, func(t *testing.T, addr string) {
				const stop = 3 * time.Second
				b := newBubbleBudget(t, addr)
				f := newFleet(t, b, 2, nil)
				kill := stop + tc.kill
				run := kill + 3*time.Second
				grants := f.runSome(t, time.Now(), 4, run, map[time.Duration]func(){
					stop: func() { tc.stop(f) }, kill: b.kill},
					func(i int, at time.Duration) bool { return i == 0 || (at >= time.Second && at < stop) })

				assert.Empty(t, closeGrants(grants), "requests less than an interval apart")
				require.NotEmpty(t, between(grants, time.Second, stop), "both shared the budget")
				outage := between(grants, kill+time.Second, run)
				assert.GreaterOrEqual(t, len(outage), 18, "the one left keeps about the rate on its fallback: %v", outage)
			})
		})
	}
}

// TestAnIdleLimiterLeavesTheBudget: a limiter nobody waited on for a minute leaves the budget (its
// heartbeat ends), and comes back with its next Wait.
func TestAnIdleLimiterLeavesTheBudget(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, 1, nil)
		members := func() int {
			b.mu.Lock()
			key := b.key
			b.mu.Unlock()
			fields, err := b.rdb.HKeys(context.Background(), key).Result()
			require.NoError(t, err)
			n := 0
			for _, f := range fields {
				if strings.HasPrefix(f, "p:") {
					n++
				}
			}
			return n
		}
		require.NoError(t, wait(t.Context(), f.limiters[0]))
		time.Sleep(2 * time.Second) // it joins a second after its first Wait
		assert.Equal(t, 1, members(), "a member while used")
		time.Sleep(time.Minute)
		assert.Equal(t, 0, members(), "gone a minute after its last Wait")
		require.NoError(t, wait(t.Context(), f.limiters[0]))
		time.Sleep(2 * time.Second)
		assert.Equal(t, 1, members(), "back with its next Wait")
	})
}

// TestAShortLivedProcessLeavesNothingBehind: command-line runs one after the other, each alone on
// the token for half a second and gone without Close: none joins the budget (a process joins a
// second after its first Wait), so none leaves slots behind that the next one would have to keep
// clear of, and each takes its requests at the rate at once.
func TestAShortLivedProcessLeavesNothingBehind(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, 3, nil)
		for i := range 3 {
			start := time.Now()
			for range 5 {
				require.NoError(t, wait(t.Context(), f.limiters[i]))
			}
			assert.Less(t, time.Since(start), 500*time.Millisecond, "run %d took its 5 requests at the rate", i)
			f.procs[i].mu.Lock()
			f.procs[i].dead = true // gone, without Close
			f.procs[i].mu.Unlock()
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// TestAProcessThatReachesARestartedRedisLate: Redis restarts empty, and one process's client
// cannot reach it for 3.5 s more (a Redis client waits between its dials after a run of failed
// ones): it stays on its fallback, in its own slots, which the restarted Redis keeps clear while
// it recovers the budget, although nobody reported holding them. No two requests less than an
// interval apart, and the fleet is back to about the rate once all returned.
func TestAProcessThatReachesARestartedRedisLate(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const kill, restart, run = 3050 * time.Millisecond, 6030 * time.Millisecond, 14 * time.Second
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, 8, nil)
		late := f.procs[7]
		setDead := func(dead bool) func() {
			return func() {
				late.mu.Lock()
				late.dead = dead
				late.mu.Unlock()
			}
		}
		grants := f.run(t, time.Now(), 4, run, map[time.Duration]func(){
			kill: b.kill, restart: func() { setDead(true)(); b.restart() }, restart + 3500*time.Millisecond: setDead(false)})

		assert.Empty(t, closeGrants(grants), "requests of the fleet less than an interval apart")
		require.NotEmpty(t, between(grants, restart, restart+3500*time.Millisecond), "granted while one process was still away")
		back := between(grants, 12*time.Second, run)
		assert.GreaterOrEqual(t, len(back), 18, "at about the rate, 2 s, once all are back: %v", perProcess(back, 8))
	})
}

// TestACallerWaitingLongerThanAMinuteKeepsTheHeartbeat: a newcomer joins just before an outage,
// so it holds no slot and its callers wait in Wait for Redis to come back; the outage lasts more
// than a minute. The limiter is not idle while callers wait in it: its heartbeat goes on asking
// Redis at each recheck instant, and once Redis is back the newcomer's callers are served again.
// (A heartbeat that took a minute without a new Wait for idleness ended, and nothing brought the
// limiter back: its callers waited until their deadlines, as one process of the scale run did.)
func TestACallerWaitingLongerThanAMinuteKeepsTheHeartbeat(t *testing.T) {
	bubble(t, func(t *testing.T, addr string) {
		const join, down, run = 2040 * time.Millisecond, 70 * time.Second, 6 * time.Second
		b := newBubbleBudget(t, addr)
		f := newFleet(t, b, 2, nil)
		start := time.Now()
		var back time.Duration
		f.add(t, b, nil, 2).afterFirst = func() {
			b.kill()
			time.AfterFunc(down, b.restart)
			back = time.Since(start) + down
		}
		grants := f.runSome(t, start, 4, join+down+run, nil, func(i int, at time.Duration) bool { return i < 2 || at >= join })

		require.Positive(t, back, "the newcomer's first command reached Redis")
		// The package's doc leaves out the first 6 s and a recheck period after Redis restarted
		// empty for the process that reaches it first (here the newcomer, whose callers wait in
		// Wait, often is), while the others may still be on their fallbacks.
		var outside []fleetGrant
		for _, g := range grants {
			if g.at < back || g.at >= back+7*time.Second {
				outside = append(outside, g)
			}
		}
		assert.Empty(t, closeGrants(outside), "requests less than an interval apart")
		outage := perProcess(between(grants, join, back), 3)
		assert.Zero(t, outage[2], "the newcomer holds no slot: %v", outage)
		after := perProcess(between(grants, back+2*time.Second, join+down+run), 3)
		assert.Positive(t, after[2], "the newcomer is served once Redis is back: %v", after)
	})
}
