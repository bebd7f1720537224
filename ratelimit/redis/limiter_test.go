package redis_test

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testToken = "tok-SECRET-0123456789abcdef"

// uniquePrefix keeps every test's budget apart on a shared Redis.
func uniquePrefix(t testing.TB) string {
	return fmt.Sprintf("compute-go-test:%s:%d:", t.Name(), time.Now().UnixNano())
}

// wait waits for l to let an attempt go and drops the attempt's done.
func wait(ctx context.Context, l compute.Limiter) error {
	_, err := l.Wait(ctx)
	return err
}

// grantTimes runs workers goroutines, each on its own limiter (as if in its own process), calling
// Wait until ctx ends, and returns the grant times, sorted.
func grantTimes(ctx context.Context, t *testing.T, limiters []*ratelimit.Limiter, perLimiter int) []time.Time {
	var mu sync.Mutex
	var times []time.Time
	var wg sync.WaitGroup
	for _, l := range limiters {
		for range perLimiter {
			wg.Go(func() {
				for {
					if err := wait(ctx, l); err != nil {
						assert.ErrorIs(t, err, context.DeadlineExceeded)
						return
					}
					mu.Lock()
					times = append(times, time.Now())
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	return times
}

func TestLimitersOnOneTokenShareOneBudget(t *testing.T) {
	rdb, _ := sharedRedis(t)
	const rps = 100
	prefix := uniquePrefix(t)
	var limiters []*ratelimit.Limiter
	for range 4 {
		l, err := ratelimit.New(rdb, testToken, ratelimit.WithRate(rps), ratelimit.WithKeyPrefix(prefix))
		require.NoError(t, err)
		limiters = append(limiters, l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	times := grantTimes(ctx, t, limiters, 4)
	// 4 limiters x 4 goroutines, one budget: 100 per second, not 400. Redis grants on its own clock,
	// at least an interval after the grant before; a caller asks again only after its timer and a
	// round trip, so on a loaded machine (CI runs this under -race) the fleet gets less than the rate,
	// never more. Hence a tight upper bound, the property sharing exists for, and a loose lower one.
	require.Greater(t, len(times), 1)
	span := times[len(times)-1].Sub(times[0])
	got := float64(len(times)-1) / span.Seconds()
	assert.LessOrEqual(t, got, rps*1.1, "%d grants in %s: more than one budget", len(times), span)
	assert.GreaterOrEqual(t, got, rps*0.5, "%d grants in %s: the budget is wasted", len(times), span)
	// Redis grants 10 ms apart; the callers see them within the scheduling jitter, so a few gaps
	// may look short on a busy machine, but not many.
	short := 0
	for i := 1; i < len(times); i++ {
		if times[i].Sub(times[i-1]) < 5*time.Millisecond {
			short++
		}
	}
	assert.LessOrEqual(t, short, len(times)/10, "grants closer than half an interval")
}

func TestTokensHaveTheirOwnBudgetAndTheKeyHidesTheToken(t *testing.T) {
	rdb, _ := sharedRedis(t)
	prefix := uniquePrefix(t)
	a, err := ratelimit.New(rdb, testToken, ratelimit.WithRate(1), ratelimit.WithKeyPrefix(prefix))
	require.NoError(t, err)
	b, err := ratelimit.New(rdb, testToken+"-other", ratelimit.WithRate(1), ratelimit.WithKeyPrefix(prefix))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.NoError(t, wait(ctx, a))
	require.NoError(t, wait(ctx, b), "another token's budget is untouched")
	err = wait(ctx, a)
	require.ErrorIs(t, err, context.DeadlineExceeded, "one per second: the next grant is past the deadline")

	keys, err := rdb.Keys(context.Background(), prefix+"*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 2)
	assert.Contains(t, keys, ratelimit.Key(prefix, testToken))
	for _, k := range keys {
		assert.NotContains(t, k, "SECRET")
		assert.Regexp(t, "^"+prefix+"[0-9a-f]{64}$", k)
		fields, err := rdb.HGetAll(context.Background(), k).Result()
		require.NoError(t, err)
		for f, v := range fields {
			assert.NotContains(t, f+v, "SECRET")
		}
	}
	assert.NotContains(t, fmt.Sprintf("%v %+v", a, a), "SECRET")
}

// TestA429InOneProcessPausesTheOthers: the first 429 that any process reports only turns the pacing
// from responses on; each later one pauses every process for its Retry-After.
func TestA429InOneProcessPausesTheOthers(t *testing.T) {
	rdb, _ := sharedRedis(t)
	prefix := uniquePrefix(t)
	seen, err := ratelimit.New(rdb, testToken, ratelimit.WithKeyPrefix(prefix))
	require.NoError(t, err)
	other, err := ratelimit.New(rdb, testToken, ratelimit.WithKeyPrefix(prefix))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, wait(ctx, seen))
	start := time.Now()
	seen.Throttled(ctx, 700*time.Millisecond)
	require.NoError(t, wait(ctx, other))
	assert.Less(t, time.Since(start), 500*time.Millisecond, "the first 429 pauses nobody")

	start = time.Now()
	seen.Throttled(ctx, 700*time.Millisecond)
	require.NoError(t, wait(ctx, other))
	assert.GreaterOrEqual(t, time.Since(start), 650*time.Millisecond, "a later one pauses every process")
	assert.Less(t, time.Since(start), 2*time.Second)
}

// script runs one of the limiter's scripts on key at the time now (microseconds), for a rate of 10
// per second, with args after the arguments every script takes.
func script(t *testing.T, rdb *goredis.Client, s *goredis.Script, key string, now int64, args ...any) []int64 {
	t.Helper()
	r, err := s.Run(context.Background(), rdb, []string{key}, append([]any{now, 100000, 60000}, append(args, "member-1")...)...).Int64Slice()
	require.NoError(t, err)
	return r
}

// TestScriptsScheduleAndPause drives the scripts on a clock of the test's own: grants are due an
// interval (100 ms + 0.3%) apart on a schedule fixed in advance, and reserved at most a quarter
// interval before they are due; one due past the
// caller's deadline is refused without being reserved; the first 429 pauses nobody, a later one
// everyone, and a shorter pause never shortens a longer one.
func TestScriptsScheduleAndPause(t *testing.T) {
	rdb, _ := sharedRedis(t)
	key := ratelimit.Key(uniquePrefix(t), testToken)
	const step, ahead = 100300, 25075
	now := int64(1_000_000_000)
	assert.Equal(t, []int64{0, 0, 1, 0, 1, 0}, script(t, rdb, ratelimit.WaitScript, key, now, -1))
	assert.Equal(t, []int64{2, step - ahead, 1, 0}, script(t, rdb, ratelimit.WaitScript, key, now, -1),
		"the next is due an interval later: ask again a quarter interval before")
	assert.Equal(t, []int64{0, ahead, 2, 0, 1, 0}, script(t, rdb, ratelimit.WaitScript, key, now+step-ahead, -1),
		"reserved a quarter interval ahead")
	assert.Equal(t, []int64{3, 2 * step, 1, 0}, script(t, rdb, ratelimit.WaitScript, key, now, 2*step-1), "due past the deadline")
	assert.Equal(t, []int64{0, 0, 3, 0, 1, 0}, script(t, rdb, ratelimit.WaitScript, key, now+2*step, 0), "the refused caller reserved nothing")

	now += 3 * step
	assert.Equal(t, []int64{0, 0}, script(t, rdb, ratelimit.ThrottledScript, key, now, 1_000_000), "the first 429 only arms")
	assert.Equal(t, []int64{0, 0, 4, 1, 1, 0}, script(t, rdb, ratelimit.WaitScript, key, now, -1), "nobody is paused")
	assert.Equal(t, []int64{1, 1_000_000}, script(t, rdb, ratelimit.ThrottledScript, key, now, 1_000_000))
	assert.Equal(t, []int64{1, 600_000, 1, 0}, script(t, rdb, ratelimit.WaitScript, key, now+400_000, -1), "paused")
	assert.Equal(t, []int64{1, 600_000}, script(t, rdb, ratelimit.ThrottledScript, key, now+400_000, 100_000), "not shortened")
}

// TestScriptsWidenTheSpacingAfterEachLater429: each 429 after the first widens the fleet's spacing
// by 5% of an interval (at most half an interval), and it narrows back by as much for each two
// minutes without one.
func TestScriptsWidenTheSpacingAfterEachLater429(t *testing.T) {
	rdb, _ := sharedRedis(t)
	key := ratelimit.Key(uniquePrefix(t), testToken)
	const step, widen = 100300, 5000
	now := int64(1_000_000_000)
	// The spacing is what the next grant is due after the one before: read it off the schedule.
	spacing := func() int64 {
		t.Helper()
		r := script(t, rdb, ratelimit.WaitScript, key, now, -1)
		require.Equal(t, int64(0), r[0], "granted: %v", r)
		first := now + r[1]
		r = script(t, rdb, ratelimit.WaitScript, key, first, 0) // a caller that cannot wait
		require.Equal(t, int64(3), r[0], "refused: %v", r)
		now = first + 2_000_000
		return r[1]
	}
	assert.Equal(t, int64(step), spacing())
	script(t, rdb, ratelimit.ThrottledScript, key, now, 1000)
	assert.Equal(t, int64(step), spacing(), "the first 429 only arms")
	script(t, rdb, ratelimit.ThrottledScript, key, now, 1000)
	now += 1000
	assert.InDelta(t, int64(step+widen), spacing(), 2, "a later one widens by 5% of an interval")
	for range 20 {
		script(t, rdb, ratelimit.ThrottledScript, key, now, 1000)
	}
	now += 1000
	assert.InDelta(t, int64(step+10*widen), spacing(), 2, "by half an interval at most")
	now += compute.PacingNarrow.Microseconds() - 2_000_000
	assert.InDelta(t, int64(step+9*widen), spacing(), 2, "two minutes without one narrow it by 5%")
	now += 3600_000_000
	assert.Equal(t, int64(step), spacing(), "and back")
}

// TestScriptsPaceFromResponses: once armed, a grant waits until an interval after the last grant's
// response less the fastest round trip (not the last one), and at most a quarter interval past its
// due time, or up to an interval past it while the allowance for late responses lasts (the share
// of the time since it was spent), whether the response is late or missing (asking again every 5%
// of an interval meanwhile); what a caller waited past the quarter interval, from when it first
// asked, is spent; each hold is bounded from both sides, a microsecond before its end and at it; a
// report for an earlier grant anchors nothing.
func TestScriptsPaceFromResponses(t *testing.T) {
	rdb, _ := sharedRedis(t)
	key := ratelimit.Key(uniquePrefix(t), testToken)
	const step, hold, poll, late = 100300, 125375, 5015, 75225 // late: three quarters of an interval
	wait := func(now, asked int64) []int64 {
		t.Helper()
		return script(t, rdb, ratelimit.WaitScript, key, now, -1, "member-1", "", "", "", "", "", asked)
	}
	sent := int64(1_000_000_000)
	script(t, rdb, ratelimit.ThrottledScript, key, sent, 1_000_000)
	require.Equal(t, []int64{0, 0, 1, 1, 1, 0}, wait(sent, sent))
	script(t, rdb, ratelimit.RespondedScript, key, sent+2000, 1) // the fastest round trip: 2 ms
	assert.Equal(t, []int64{2, step - 2000, 1, 0}, wait(sent+2000, sent+2000),
		"an interval after the response less the fastest round trip")
	require.Equal(t, []int64{0, 0, 2, 1, 1, 0}, wait(sent+step, sent+2000))

	sent += step // grant 2's response never comes
	asked := sent + 10
	assert.Equal(t, []int64{2, poll, 1, 0}, wait(asked, asked), "ask again soon")
	assert.Equal(t, []int64{2, poll, 1, 0}, wait(sent+hold, asked), "held past the quarter interval")
	assert.Equal(t, []int64{2, 1, 1, 0}, wait(sent+hold+late-1, asked))
	require.Equal(t, []int64{0, 0, 3, 1, 1, 0}, wait(sent+hold+late, asked),
		"a missing response holds the next grant an interval past its due time at most")

	sent += hold + late // grant 3's response never comes either, and the allowance is spent
	asked = sent + 10
	// Held a quarter interval past its due time and the share of the time since the allowance was
	// spent: 1% of 126.64 ms.
	assert.Equal(t, []int64{2, 1, 1, 0}, wait(sent+126_641, asked))
	require.Equal(t, []int64{0, 0, 4, 1, 1, 0}, wait(sent+126_642, asked))

	sent += 10_000_000 // ten seconds later the allowance is whole again: no hold
	require.Equal(t, []int64{0, 0, 5, 1, 1, 0}, wait(sent, sent))
	script(t, rdb, ratelimit.RespondedScript, key, sent+60_000, 5) // a late response
	assert.Equal(t, []int64{2, step - 2000, 1, 0}, wait(sent+60_000, sent+60_000),
		"an interval after the late response less the fastest round trip")
	require.Equal(t, []int64{0, 0, 6, 1, 1, 0}, wait(sent+60_000+step-2000, sent+60_000))

	sent += 60_000 + step - 2000
	script(t, rdb, ratelimit.RespondedScript, key, sent+1000, 5) // grant 5's again: not the last
	assert.Equal(t, []int64{2, poll, 1, 0}, wait(sent+1000, sent+1000), "still held for grant 6's")

	script(t, rdb, ratelimit.RespondedScript, key, sent+5000, 6) // a 5 ms round trip: not the fastest
	const due = 5000 + step - 2000
	assert.Equal(t, []int64{2, step - 2000, 1, 0}, wait(sent+5000, sent+1000),
		"an interval after the response less the fastest round trip, not the last")
	assert.Equal(t, []int64{2, 1, 1, 0}, wait(sent+due-1, sent+1000), "held until then")
	assert.Equal(t, []int64{0, 0, 7, 1, 1, 0}, wait(sent+due, sent+1000), "and no longer")
}

// TestTheMemberScriptCountsTheProcessesAndSharesTheSlots: each heartbeat records its limiter in
// the budget and replies the count of members, the limiter's rank among them by id, and the slots
// of the frame it may hold: slot i is the member's whose rank is i modulo the count, but only once
// no other member may hold it (the slots a member reported holding, and those Redis last sent it).
// A member silent for 3 s of the time Redis served the others is dropped; a silence of Redis
// longer than a second (an outage) does not count.
func TestTheMemberScriptCountsTheProcessesAndSharesTheSlots(t *testing.T) {
	rdb, _ := sharedRedis(t)
	key := ratelimit.Key(uniquePrefix(t), testToken)
	type reply struct {
		n, rank int64
		slots   string
	}
	cseq := map[string]int{}
	beat := func(now int64, id, held string) reply {
		t.Helper()
		cseq[id]++
		v, err := ratelimit.MemberScript.Run(context.Background(), rdb, []string{key}, now, 100000, 60000, "", id, 0,
			110000, "", 1000000, 100000, cseq[id], held, 0, 0, 0, "r").Slice()
		require.NoError(t, err)
		require.Len(t, v, 5)
		return reply{v[1].(int64), v[2].(int64), v[4].(string)}
	}
	all := strings.Repeat("1", ratelimit.Frame)
	none := strings.Repeat("0", ratelimit.Frame)
	every := func(n, i int) string { // slot j for j = i modulo n
		b := []byte(none)
		for j := i; j < len(b); j += n {
			b[j] = '1'
		}
		return string(b)
	}
	now := int64(1_000_000_000)
	assert.Equal(t, reply{1, 0, all}, beat(now, "b", ""), "alone: every slot")
	assert.Equal(t, reply{2, 0, none}, beat(now+1, "a", ""), "a ranks before b, and b may hold every slot")
	assert.Equal(t, reply{2, 1, every(2, 1)}, beat(now+2, "b", all), "b keeps its own")
	assert.Equal(t, reply{2, 0, none}, beat(now+3, "a", ""), "b may still hold a's: it did not say it let them go")
	assert.Equal(t, reply{2, 1, every(2, 1)}, beat(now+4, "b", every(2, 1)))
	assert.Equal(t, reply{2, 0, every(2, 0)}, beat(now+5, "a", ""), "now a's are free")
	assert.Equal(t, reply{3, 2, none}, beat(now+6, "c", ""))
	assert.Equal(t, reply{3, 0, every(6, 0)}, beat(now+7, "a", every(2, 0)), "a keeps what it holds of its new share")

	// a and b go on beating every 200 ms for 3.2 s; c says nothing: it is dropped.
	at := now + 7
	for range 16 {
		at += 200_000
		beat(at, "a", every(6, 0))
		beat(at, "b", every(6, 1))
	}
	r := beat(at+1, "b", every(6, 1))
	assert.Equal(t, int64(2), r.n, "c is no longer counted")
	fields, err := rdb.HKeys(context.Background(), key).Result()
	require.NoError(t, err)
	assert.NotContains(t, fields, "p:c", "and is dropped")

	// Redis is silent for a minute (an outage): nobody ages out through it.
	at += 60_000_000
	assert.Equal(t, int64(2), beat(at, "a", every(6, 0)).n)
}

// TestARestartedBudgetIsArmedAgain: a limiter that saw the pacing from responses on says so to
// every script (ARGV[6] = 1), so that a budget that lost it, Redis having restarted empty, turns it
// on again at once: the next grant is armed, and the next 429 pauses instead of only arming.
func TestARestartedBudgetIsArmedAgain(t *testing.T) {
	rdb, _ := sharedRedis(t)
	run := func(s *goredis.Script, key string, now, arg int64, armed int) []int64 {
		t.Helper()
		r, err := s.Run(context.Background(), rdb, []string{key}, now, 100000, 60000, arg, "member-1", armed).Int64Slice()
		require.NoError(t, err)
		return r
	}
	now := int64(1_000_000_000)
	fresh := ratelimit.Key(uniquePrefix(t)+"a:", testToken)
	assert.Equal(t, []int64{0, 0, 1, 1, 1, 0}, run(ratelimit.WaitScript, fresh, now, -1, 1), "armed again")
	assert.Equal(t, []int64{1, 1_000_000}, run(ratelimit.ThrottledScript, fresh, now, 1_000_000, 0), "so a 429 pauses")

	fresh = ratelimit.Key(uniquePrefix(t)+"b:", testToken)
	assert.Equal(t, []int64{1, 1_000_000}, run(ratelimit.ThrottledScript, fresh, now, 1_000_000, 1), "a 429 on a fresh budget pauses")
	assert.Equal(t, []int64{1, 1_000_000, 1, 0}, run(ratelimit.WaitScript, fresh, now, -1, 0), "paused, and armed")

	fresh = ratelimit.Key(uniquePrefix(t)+"c:", testToken)
	assert.Equal(t, []int64{0, 0, 1, 0, 1, 0}, run(ratelimit.WaitScript, fresh, now, -1, 0), "never armed: not armed")
	assert.Equal(t, []int64{0, 0}, run(ratelimit.ThrottledScript, fresh, now, 1_000_000, 0), "the first 429 only arms")
}

// TestTheScriptsUseTheComputePackagesConstants: the Lua header is generated from the compute
// package's pacing constants; this fails when it is written by hand and drifts.
func TestTheScriptsUseTheComputePackagesConstants(t *testing.T) {
	m := regexp.MustCompile(`local HEADROOM, HOLD, POLL, AHEAD, LATE, SHARE = ([0-9.e-]+), ([0-9.e-]+), [0-9.e-]+, [0-9.e-]+, ([0-9.e-]+), ([0-9.e-]+)\n`).FindStringSubmatch(ratelimit.ScriptHeader)
	require.NotNil(t, m, "the header declares the constants")
	for i, want := range []float64{compute.PacingHeadroom, compute.PacingHold, compute.PacingHoldLate, compute.PacingHoldShare} {
		got, err := strconv.ParseFloat(m[i+1], 64)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

func TestContextEndsTheWait(t *testing.T) {
	rdb, _ := sharedRedis(t)
	l, err := ratelimit.New(rdb, testToken, ratelimit.WithKeyPrefix(uniquePrefix(t)))
	require.NoError(t, err)
	require.NoError(t, wait(context.Background(), l))
	l.Throttled(context.Background(), time.Millisecond) // arms
	l.Throttled(context.Background(), 10*time.Second)   // a long pause for everyone
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err = wait(ctx, l)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)

	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start = time.Now()
	assert.ErrorIs(t, wait(ctx, l), context.DeadlineExceeded, "a pause past the deadline fails at once")
	assert.Less(t, time.Since(start), 500*time.Millisecond)
}

func TestOptionsAreChecked(t *testing.T) {
	rdb := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	for name, opts := range map[string][]ratelimit.Option{
		"zero rate":     {ratelimit.WithRate(0)},
		"zero timeout":  {ratelimit.WithTimeout(0)},
		"zero recheck":  {ratelimit.WithRecheck(0)},
		"nil fallback":  {ratelimit.WithFallback(nil)},
		"negative rate": {ratelimit.WithRate(-1)},
	} {
		_, err := ratelimit.New(rdb, testToken, opts...)
		assert.Error(t, err, name)
	}
	_, err := ratelimit.New(rdb, "")
	assert.Error(t, err)
	_, err = ratelimit.New(nil, testToken)
	assert.Error(t, err)
}

// TestRedisThatStopsMidRunDoesNotHangCallers runs 8 goroutines against a Redis of the test's own,
// which stops mid-run: frozen (SIGSTOP: connections stay open and nothing comes back, the worst
// case for a client) or killed. Every Wait must return within the Redis timeouts plus the
// fallback's queue, the handler must be told once, and requests must keep being granted, by the
// fallback.
func TestRedisThatStopsMidRunDoesNotHangCallers(t *testing.T) {
	for name, sig := range map[string]syscall.Signal{"frozen": syscall.SIGSTOP, "killed": syscall.SIGKILL} {
		t.Run(name, func(t *testing.T) {
			addr, proc := startRedis(t)
			rdb := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
			t.Cleanup(func() { _ = rdb.Close() })
			const rps, timeout = 20, 50 * time.Millisecond
			var mu sync.Mutex
			var reports []error
			l, err := ratelimit.New(rdb, testToken, ratelimit.WithRate(rps), ratelimit.WithTimeout(timeout),
				ratelimit.WithErrorHandler(func(err error) { mu.Lock(); reports = append(reports, err); mu.Unlock() }))
			require.NoError(t, err)

			// A 429 arms the pacing from responses, so that each attempt's done reports its
			// response to Redis too: that command must not hang a caller either.
			l.Throttled(context.Background(), time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
			defer cancel()
			stopAt := time.Now().Add(500 * time.Millisecond)
			time.AfterFunc(time.Until(stopAt), func() { _ = proc.Signal(sig) })
			var longest, longestDone atomic.Int64
			var before, after, reported atomic.Int64
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for {
						t0 := time.Now()
						done, err := l.Wait(ctx)
						took := time.Since(t0)
						if done != nil {
							t1 := time.Now()
							done() // the response arrived at once
							if d := time.Since(t1); d > time.Duration(longestDone.Load()) {
								longestDone.Store(int64(d))
							}
							reported.Add(1)
						}
						if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
							return // the run is over, or the next grant would come after it
						}
						if !assert.NoError(t, err) {
							return
						}
						if took > time.Duration(longest.Load()) {
							longest.Store(int64(took))
						}
						if time.Now().Before(stopAt) {
							before.Add(1)
						} else {
							after.Add(1)
						}
					}
				})
			}
			wg.Wait()
			if sig == syscall.SIGSTOP {
				_ = proc.Signal(syscall.SIGCONT)
			}
			// 8 callers take turns on the fallback at the rate (50 ms at 20 per second): a caller's
			// wait is its queue (8 turns) plus, once, the Redis timeout, plus what a busy machine adds
			// under -race (the bound leaves it 9 timeouts); far from the 2 s of the outage that a hung
			// caller would take.
			const slot = 1100 * time.Millisecond / rps
			assert.Less(t, time.Duration(longest.Load()), 10*slot+7*timeout, "a caller hung on Redis")
			assert.Greater(t, before.Load(), int64(rps*0.5*0.6), "granted through Redis before it stopped")
			// A process alone holds every slot: through the outage it keeps at least 90% of the rate,
			// losing the Redis timeout once (an interval at 20 per second).
			assert.GreaterOrEqual(t, after.Load(), int64(rps*2.0*0.9), "granted by the fallback in the 2 s after it stopped")
			assert.Positive(t, reported.Load(), "responses were reported to Redis")
			assert.Less(t, time.Duration(longestDone.Load()), 4*timeout, "a response's report hung on Redis")
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, reports, "the fallback is reported")
			assert.Error(t, reports[0])
			assert.Contains(t, reports[0].Error(), "falling back to the local limiter")
			for _, r := range reports {
				if r != nil {
					assert.NotContains(t, r.Error(), "SECRET")
				}
			}
			assert.Len(t, slices.DeleteFunc(slices.Clone(reports), func(e error) bool { return e == nil }), 1,
				"one report for the one outage: %v", reports)
		})
	}
}

// TestFallbackRecoversWhenRedisComesBack: after an outage the limiter uses Redis again, and says so
// with a nil error.
func TestFallbackRecoversWhenRedisComesBack(t *testing.T) {
	addr, proc := startRedis(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	var mu sync.Mutex
	var reports []error
	l, err := ratelimit.New(rdb, testToken, ratelimit.WithRate(100), ratelimit.WithTimeout(50*time.Millisecond),
		ratelimit.WithRecheck(50*time.Millisecond),
		ratelimit.WithErrorHandler(func(err error) { mu.Lock(); reports = append(reports, err); mu.Unlock() }))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, wait(ctx, l))
	require.NoError(t, proc.Signal(syscall.SIGSTOP))
	require.NoError(t, wait(ctx, l), "the fallback grants")
	require.NoError(t, proc.Signal(syscall.SIGCONT))
	back := false
	for deadline := time.Now().Add(2 * time.Second); !back && time.Now().Before(deadline); { // each wait takes an interval (10 ms)
		require.NoError(t, wait(ctx, l))
		mu.Lock()
		back = len(reports) == 2
		mu.Unlock()
	}
	require.True(t, back, "the limiter reported its return to Redis within 2 s")
	mu.Lock()
	defer mu.Unlock()
	assert.Error(t, reports[0])
	assert.NoError(t, reports[1], "back on Redis")
	n, err := rdb.Exists(ctx, ratelimit.Key(ratelimit.DefaultKeyPrefix, testToken)).Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
}

var _ compute.Limiter = (*ratelimit.Limiter)(nil)

func TestMain(m *testing.M) {
	if os.Getenv(envFleetWorker) != "" {
		os.Exit(fleetWorker())
	}
	os.Exit(m.Run())
}

// TestThePackageDocSaysRedisMustBeTrusted: what the limiter cannot bound is said where users read
// it, with what it can cost.
func TestThePackageDocSaysRedisMustBeTrusted(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "limiter.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc, "limiter.go holds the package doc")
	text := f.Doc.Text()
	assert.Contains(t, text, "# Redis must be trusted")
	assert.Contains(t, text, "allocate as much memory as it claims to send")
	assert.Contains(t, text, "stall every process's")
}

// TestALoneProcessKeepsItsRateThroughASlowThenAbsentRedis: one process, 4 goroutines calling Wait
// with 1.5 s deadlines, on a real redis-server that is slowed (CLIENT PAUSE: commands wait, then
// run) for a second, then stopped for a second, then back. A process alone holds every slot: it
// keeps at least 90% of the rate in each second, and never goes faster than the rate.
func TestALoneProcessKeepsItsRateThroughASlowThenAbsentRedis(t *testing.T) {
	addr, proc := startRedis(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	admin := goredis.NewClient(&goredis.Options{Addr: addr})
	t.Cleanup(func() { _ = admin.Close() })
	const rps = 10
	l, err := ratelimit.New(rdb, testToken, ratelimit.WithRate(rps), ratelimit.WithKeyPrefix(uniquePrefix(t)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })

	start := time.Now()
	at := func(d time.Duration) { time.Sleep(time.Until(start.Add(d))) }
	var wg sync.WaitGroup
	wg.Go(func() {
		at(time.Second)
		assert.NoError(t, admin.Do(context.Background(), "CLIENT", "PAUSE", 1000, "ALL").Err())
		at(2 * time.Second)
		assert.NoError(t, proc.Signal(syscall.SIGSTOP))
		at(3 * time.Second)
		assert.NoError(t, proc.Signal(syscall.SIGCONT))
	})
	end := start.Add(4 * time.Second)
	var mu sync.Mutex
	var grants []time.Duration
	var longest time.Duration
	for range 4 {
		wg.Go(func() {
			for time.Now().Before(end) {
				ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
				t0 := time.Now()
				_, err := l.Wait(ctx)
				cancel()
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				grants = append(grants, time.Since(start))
				longest = max(longest, time.Since(t0))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var per [4]int
	for _, g := range grants {
		if i := int(g / time.Second); i < len(per) {
			per[i]++
		}
	}
	for i, name := range []string{"normal", "slow", "down", "back"} {
		assert.GreaterOrEqual(t, per[i], int(0.9*rps), "grants in the %s second: %v", name, per)
		assert.LessOrEqual(t, per[i], rps+1, "grants in the %s second: %v", name, per)
	}
	assert.Less(t, longest, time.Second, "the longest Wait")
}
