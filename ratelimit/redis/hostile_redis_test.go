package redis_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Go side of the limiter against a fake Redis (fakeredis_test.go) that replies what each test
// says, inside testing/synctest: the limiter's sleeps, the Redis timeout, the recheck period and the
// fallback's pacing run on the bubble's clock, so the times below are exact.

// TestAShortDeadlineFailsAtOnceOnAPause pins issue #27's item 15 in this limiter: a caller whose
// deadline ends before a pause fails at once with an error matching both compute.ErrRateLimited and
// context.DeadlineExceeded, whether Redis replies the pause to it, or the pause is one the process
// already learned (another caller waiting it out, holding the process's turn, or a 429 reported
// through Throttled), in which case it does not queue or ask Redis at all. A caller whose deadline
// outlasts the pause waits it out and is granted.
func TestAShortDeadlineFailsAtOnceOnAPause(t *testing.T) {
	const pause = 10 * time.Second
	failsAtOnce := func(t *testing.T, l *ratelimit.Limiter) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		_, err := l.Wait(ctx)
		assert.Equal(t, time.Duration(0), time.Since(start), "at once, not at the deadline")
		assert.ErrorIs(t, err, compute.ErrRateLimited)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	}

	t.Run("replied to it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{"wait": replies([]int64{1, pause.Microseconds(), 1, 0})})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep)
			require.NoError(t, err)
			failsAtOnce(t, l)
			calls := fake.Calls("wait")
			require.Len(t, calls, 1)
			assert.Equal(t, time.Second.Microseconds(), calls[0].Arg(4), "Redis is told the longest the caller can wait")
			assert.Zero(t, fallback.Waits())
			assert.Empty(t, rep.All())
		})
	})

	t.Run("queued behind a caller waiting it out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"wait": replies([]int64{1, pause.Microseconds(), 1, 0}, []int64{0, 0, 1, 0, 1, 0})})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep)
			require.NoError(t, err)
			start := time.Now()
			var wg sync.WaitGroup
			var first time.Duration
			wg.Go(func() { // no deadline: waits the pause out, holding the process's turn
				assert.NoError(t, wait(t.Context(), l))
				first = time.Since(start)
			})
			synctest.Wait()
			require.Len(t, fake.Calls("wait"), 1)

			failsAtOnce(t, l)
			assert.Len(t, fake.Calls("wait"), 1, "the pause is known: Redis is not asked")

			ctx, cancel := context.WithTimeout(t.Context(), pause+time.Second)
			defer cancel()
			require.NoError(t, wait(ctx, l), "a deadline past the pause waits it out")
			second := time.Since(start)
			wg.Wait()
			// Both ask Redis again when the pause ends, and take the next two grants at the rate,
			// in either order.
			assert.ElementsMatch(t, []time.Duration{pause, pause + 100*time.Millisecond}, []time.Duration{first, second})
			assert.Zero(t, fallback.Waits())
			assert.Empty(t, rep.All())
		})
	})

	t.Run("learned from a 429", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"wait":      replies([]int64{0, 0, 1, 1, 1, 0}),
				"throttled": replies([]int64{1, pause.Microseconds()}),
			})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep)
			require.NoError(t, err)
			l.Throttled(t.Context(), pause)
			failsAtOnce(t, l)
			assert.Empty(t, fake.Calls("wait"), "the pause is known: Redis is not asked")
			assert.Empty(t, fallback.ThrottledWaits())
			assert.Empty(t, rep.All())
		})
	})

	t.Run("shorter than the deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"wait": replies([]int64{1, 500_000, 1, 0}, []int64{0, 0, 1, 0, 1, 0})})
			l, err := fakeLimiter(t, fake, &recordingLimiter{}, &reports{})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			start := time.Now()
			require.NoError(t, wait(ctx, l))
			assert.Equal(t, 500*time.Millisecond, time.Since(start), "the pause waited out, then granted")
			calls := fake.Calls("wait")
			require.Len(t, calls, 2)
			assert.Equal(t, int64(500_000), calls[1].Arg(4), "asked again after the pause with what is left")
		})
	})
}

// TestARepliesNoScriptSendsFallBack pins issue #27's item 16: a reply to the wait script that the
// script never sends (a wait past time.Duration's range or past a day, a negative one, a pause or
// hold of nothing, which would make the caller ask again at once, an unknown
// kind, a grant numbered 0 or less, an armed flag other than 0 or 1, a reply too short or too long,
// a refusal past a deadline the caller does not have, or within its deadline) makes Wait fall back (the fallback grants),
// is reported exactly once to the error handler with an error naming the reply (at most 6 of its
// values), and Redis is asked nothing more until the recheck period has passed, then once per
// period while it keeps replying so.
func TestARepliesNoScriptSendsFallBack(t *testing.T) {
	const recheck = time.Second
	for name, reply := range map[string][]int64{
		"a wait past time.Duration":    {0, 1 << 62, 1, 0, 1, 0},
		"a wait past a day":            {0, 24*3600*1_000_000 + 1, 1, 0, 1, 0},
		"a pause past time.Duration":   {1, 1<<63 - 1, 1, 0},
		"a negative pause":             {1, -5, 1, 0},
		"a negative hold":              {2, -1, 1, 0},
		"a pause of nothing":           {1, 0, 1, 0},
		"a hold of nothing":            {2, 0, 1, 0},
		"an unknown kind":              {7, 1, 1, 0},
		"a negative kind":              {-1, 1, 1, 0},
		"grant number 0":               {0, 10, 0, 0, 1, 0},
		"a negative grant number":      {0, 10, -3, 0, 1, 0},
		"armed flag 2":                 {0, 10, 1, 2, 1, 0},
		"a short reply":                {2},
		"an empty reply":               {},
		"a grant without its number":   {0, 10, 1, 0},
		"a grant without its members":  {0, 10, 1, 0},
		"a hold without its members":   {2, 10},
		"no members":                   {0, 10, 1, 0, 0, 0},
		"a negative count of members":  {0, 10, 1, 0, -1, 0},
		"members past the bound":       {0, 10, 1, 0, 1<<16 + 1, 0},
		"a rank past the members":      {0, 10, 1, 0, 3, 3},
		"a negative rank":              {0, 10, 1, 0, 3, -1},
		"a hold's rank past them":      {2, 10, 2, 2},
		"a grant with more":            {0, 10, 1, 0, 1, 0, 0},
		"a hold with more":             {2, 10, 1, 1, 0},
		"ten values":                   {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
		"a refusal without a deadline": {3, 1000, 1, 0},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := newFakeRedis(map[string]func(redisCall) answer{"wait": always(answer{reply: reply})})
				fallback, rep := &recordingLimiter{}, &reports{}
				l, err := fakeLimiter(t, fake, fallback, rep, ratelimit.WithRecheck(recheck))
				require.NoError(t, err)

				start := time.Now()
				require.NoError(t, wait(t.Context(), l), "the fallback grants")
				assert.Equal(t, time.Duration(0), time.Since(start))
				assert.Equal(t, 1, fallback.Waits())
				errs := rep.All()
				require.Len(t, errs, 1)
				require.Error(t, errs[0])
				assert.Contains(t, errs[0].Error(), "a reply no script sends: "+fmt.Sprint(reply[:min(len(reply), 6)]))
				assert.NotContains(t, errs[0].Error(), "SECRET")

				// 4 callers until 2.45 s: the fallback grants them all, at the rate; Redis is asked
				// again at each recheck instant, 1 s and 2 s (a heartbeat, and then a grant).
				ctx, cancel := context.WithTimeout(t.Context(), 2450*time.Millisecond)
				defer cancel()
				granted := 1 + len(grantTimes(ctx, t, []*ratelimit.Limiter{l}, 4))
				assert.Equal(t, 25, granted, "granted at the rate, from 0 to 2.4 s")
				assert.GreaterOrEqual(t, len(fallback.Grants()), granted, "every grant is the fallback's")
				calls := fake.Calls("wait")
				require.Equal(t, 3, len(calls), "asked at the start, then once a recheck period")
				for i := 1; i < len(calls); i++ {
					assert.GreaterOrEqual(t, calls[i].At.Sub(calls[i-1].At), recheck, "asked again before the recheck period")
				}
				assert.Len(t, rep.All(), 1, "one report for the one outage")
			})
		})
	}
	t.Run("a refusal within the deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{"wait": always(answer{reply: []int64{3, 500_000, 1, 0}})})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			require.NoError(t, wait(ctx, l), "the fallback grants")
			assert.Equal(t, 1, fallback.Waits())
			errs := rep.All()
			require.Len(t, errs, 1)
			assert.ErrorContains(t, errs[0], "a reply no script sends: [3 500000 1 0]")
		})
	})
}

// TestAThrottledReplyNoScriptSendsFallsBack: a reply to the 429's script that the script never
// sends (anything but {0, 0} and {1, a pause from 0 to a day}) falls back like a failure: the 429
// reaches the fallback, it is reported once, no pause comes of it, and the next 429 within the
// recheck period goes to the fallback without asking Redis.
func TestAThrottledReplyNoScriptSendsFallsBack(t *testing.T) {
	for name, reply := range map[string][]int64{
		"a pause past time.Duration": {1, 1 << 62},
		"a pause past a day":         {1, 24*3600*1_000_000 + 1},
		"a negative pause":           {1, -1},
		"an unknown kind":            {9, 0},
		"the wait script's hold":     {2, 5},
		"arming with a wait":         {0, 5},
		"a grant":                    {0, 0, 1, 0, 1, 0},
		"too long":                   {1, 1_000_000, 7},
		"an empty reply":             {},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := newFakeRedis(map[string]func(redisCall) answer{
					"throttled": always(answer{reply: reply}),
					"wait":      always(answer{reply: []int64{0, 0, 1, 0, 1, 0}}),
				})
				fallback, rep := &recordingLimiter{}, &reports{}
				l, err := fakeLimiter(t, fake, fallback, rep)
				require.NoError(t, err)
				l.Throttled(t.Context(), 2*time.Second)
				assert.Equal(t, []time.Duration{2 * time.Second}, fallback.ThrottledWaits(), "the 429 reaches the fallback")
				errs := rep.All()
				require.Len(t, errs, 1)
				require.Error(t, errs[0])
				assert.Contains(t, errs[0].Error(), "a reply no script sends: "+fmt.Sprint(reply[:min(len(reply), 6)]))

				ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
				defer cancel()
				require.NoError(t, wait(ctx, l), "no pause came of the reply")
				l.Throttled(t.Context(), 3*time.Second)
				assert.Equal(t, []time.Duration{2 * time.Second, 3 * time.Second}, fallback.ThrottledWaits())
				assert.Len(t, fake.Calls(""), 1, "Redis is not asked within the recheck period")
				assert.Len(t, rep.All(), 1)
			})
		})
	}
}

// TestARespondedReplyNoScriptSendsFallsBack: a reply to the script that reports a response other
// than its {0} falls back like a failure: it is reported once, and the next Wait is the fallback's.
func TestARespondedReplyNoScriptSendsFallsBack(t *testing.T) {
	for name, reply := range map[string][]int64{
		"a pause":        {1, 5},
		"two values":     {0, 0},
		"not zero":       {1},
		"an empty reply": {},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := newFakeRedis(map[string]func(redisCall) answer{
					"wait":      always(answer{reply: []int64{0, 0, 1, 1, 1, 0}}),
					"responded": always(answer{reply: reply}),
				})
				fallback, rep := &recordingLimiter{}, &reports{}
				l, err := fakeLimiter(t, fake, fallback, rep)
				require.NoError(t, err)
				done, err := l.Wait(t.Context())
				require.NoError(t, err)
				require.NotNil(t, done, "armed: the response is reported")
				done()
				require.Len(t, fake.Calls("responded"), 1)
				errs := rep.All()
				require.Len(t, errs, 1)
				assert.ErrorContains(t, errs[0], "a reply no script sends: "+fmt.Sprint(reply))
				require.NoError(t, wait(t.Context(), l))
				assert.Equal(t, 1, fallback.Waits(), "the next Wait is the fallback's")
				assert.Len(t, fake.Calls("wait"), 1)
			})
		})
	}
}

// TestSwitchingBetweenRedisAndTheFallbackNeverBursts pins issue #27's item 17: one process, 8
// goroutines, 4 s at 10 per second, against a Redis that keeps going slow (past the timeout) and
// coming back, so that the limiter keeps switching between Redis's schedule and its fallback's: the
// process takes at most 41 grants (4 s at the rate and the burst of 1), none less than an interval
// after the one before.
func TestSwitchingBetweenRedisAndTheFallbackNeverBursts(t *testing.T) {
	for name, isSlow := range map[string]func(since time.Duration, n int) bool{
		"slow 300 ms every second": func(since time.Duration, _ int) bool { return since%time.Second >= 700*time.Millisecond },
		"every other command slow": func(_ time.Duration, n int) bool { return n%2 == 1 },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const rps, run = 10, 4 * time.Second
				start := time.Now()
				// Redis's schedule, as the wait script keeps it: each grant an interval (and the
				// headroom) after the one before, or now.
				var mu sync.Mutex
				var tat, seq int64
				n := 0
				fake := newFakeRedis(map[string]func(redisCall) answer{"wait": func(c redisCall) answer {
					mu.Lock()
					defer mu.Unlock()
					now := time.Since(start).Microseconds()
					n++
					if isSlow(time.Since(start), n) {
						return slow
					}
					at := max(tat, now)
					if maxWait := c.Arg(4); maxWait >= 0 && at-now > maxWait {
						return answer{reply: []int64{3, at - now, 1, 0}}
					}
					tat = at + 100_300
					seq++
					return answer{reply: []int64{0, at - now, seq, 0, 1, 0}}
				}})
				inner, err := compute.NewLimiter(rps, 1)
				require.NoError(t, err)
				fallback, rep := &recordingLimiter{inner: inner}, &reports{}
				l, err := fakeLimiter(t, fake, fallback, rep,
					ratelimit.WithTimeout(50*time.Millisecond), ratelimit.WithRecheck(500*time.Millisecond))
				require.NoError(t, err)

				ctx, cancel := context.WithTimeout(t.Context(), run)
				defer cancel()
				times := grantTimes(ctx, t, []*ratelimit.Limiter{l}, 8)
				assert.LessOrEqual(t, len(times), int(run.Seconds()*rps)+1, "more grants than the rate allows")
				var close []string
				for i := 1; i < len(times); i++ {
					if times[i].Sub(times[i-1]) < time.Second/rps-time.Microsecond {
						close = append(close, fmt.Sprintf("%s after %s", times[i].Sub(start), times[i-1].Sub(start)))
					}
				}
				assert.Empty(t, close, "grants closer than an interval to the one before")
				// Both ways of pacing were used, and switched between more than once.
				assert.Greater(t, len(fallback.Grants()), 0, "the fallback granted")
				mu.Lock()
				assert.Positive(t, seq, "Redis granted")
				mu.Unlock()
				assert.Greater(t, len(rep.All()), 2, "the limiter switched more than once")
				assert.GreaterOrEqual(t, len(times), int(run.Seconds()*rps)*3/4, "the rate is not wasted")
			})
		})
	}
}

// TestTheFirst429OnlyArms: on the Go side too, the 429 that turns the pacing from responses on
// pauses nobody and changes nothing of the schedule (there is no headroom to raise: every command
// sends Redis the same interval); from then on each grant's done reports its response, with its
// number. A later 429 whose reply is a pause pauses the process.
func TestTheFirst429OnlyArms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		armed := false
		var seq int64
		fake := newFakeRedis(map[string]func(redisCall) answer{
			"wait": func(redisCall) answer {
				mu.Lock()
				defer mu.Unlock()
				seq++
				flag := int64(0)
				if armed {
					flag = 1
				}
				return answer{reply: []int64{0, 0, seq, flag, 1, 0}}
			},
			"throttled": func(c redisCall) answer {
				mu.Lock()
				defer mu.Unlock()
				if !armed {
					armed = true
					return answer{reply: []int64{0, 0}}
				}
				return answer{reply: []int64{1, c.Arg(4)}}
			},
		})
		fallback, rep := &recordingLimiter{}, &reports{}
		l, err := fakeLimiter(t, fake, fallback, rep)
		require.NoError(t, err)

		done, err := l.Wait(t.Context())
		require.NoError(t, err)
		assert.Nil(t, done, "not armed: no response to report")
		time.Sleep(100 * time.Millisecond) // the rate's interval

		l.Throttled(t.Context(), 2*time.Second)
		throttled := fake.Calls("throttled")
		require.Len(t, throttled, 1)
		assert.Equal(t, int64(2_000_000), throttled[0].Arg(4), "Redis is told the 429's wait")
		ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
		defer cancel()
		start := time.Now()
		done, err = l.Wait(ctx)
		require.NoError(t, err, "the first 429 pauses nobody")
		assert.Equal(t, time.Duration(0), time.Since(start))
		require.NotNil(t, done, "armed: the response is reported")
		done()
		responded := fake.Calls("responded")
		require.Len(t, responded, 1)
		assert.Equal(t, int64(2), responded[0].Arg(4), "the grant's number")

		for _, c := range fake.Calls("") {
			assert.Equal(t, int64(100_000), c.Arg(2), "%s: the interval at the rate, before and after the 429", c.Script)
		}
		assert.Empty(t, fallback.ThrottledWaits())
		assert.Zero(t, fallback.Waits())
		assert.Empty(t, rep.All())

		time.Sleep(100 * time.Millisecond)
		l.Throttled(t.Context(), 2*time.Second)
		ctx, cancel = context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err = l.Wait(ctx)
		assert.ErrorIs(t, err, compute.ErrRateLimited, "a later 429 pauses")
		assert.Len(t, fake.Calls("wait"), 2, "the pause is known: Redis is not asked")
	})
}

// TestTheLimiterTellsRedisThePacingWasArmed: the limiter tells every script (ARGV[6]) whether it
// saw the pacing from responses on, from a grant that says so or a 429 that Redis took, so that a
// Redis restarted empty gets it back.
func TestTheLimiterTellsRedisThePacingWasArmed(t *testing.T) {
	armedArgs := func(calls []redisCall) []any {
		var out []any
		for _, c := range calls {
			out = append(out, c.Args[5])
		}
		return out
	}
	t.Run("from a grant", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"wait": replies([]int64{0, 0, 1, 0, 1, 0}, []int64{0, 0, 2, 1, 1, 0}, []int64{0, 0, 3, 1, 1, 0})})
			l, err := fakeLimiter(t, fake, &recordingLimiter{}, &reports{})
			require.NoError(t, err)
			for range 3 {
				require.NoError(t, wait(t.Context(), l))
			}
			assert.Equal(t, []any{0, 0, 1}, armedArgs(fake.Calls("wait")))
		})
	})
	t.Run("from a 429", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"wait":      replies([]int64{0, 0, 1, 0, 1, 0}),
				"throttled": replies([]int64{0, 0}),
			})
			l, err := fakeLimiter(t, fake, &recordingLimiter{}, &reports{})
			require.NoError(t, err)
			require.NoError(t, wait(t.Context(), l))
			l.Throttled(t.Context(), time.Second)
			require.NoError(t, wait(t.Context(), l))
			assert.Equal(t, []any{0, 1}, armedArgs(fake.Calls("wait")))
			assert.Equal(t, []any{0}, armedArgs(fake.Calls("throttled")))
		})
	})
}

// TestACallersOwnContextIsNotARedisFailure: a caller's context that ends (cancelled or past its
// deadline) while Redis is slow, while the caller queues for the process's turn, waits for its grant
// or waits out a pause, or before it calls, ends its Wait with the context's error, and is no Redis
// failure: no fallback, no report, and the next caller asks Redis. A 429 or a response reported
// under a context that has ended still reaches Redis.
func TestACallersOwnContextIsNotARedisFailure(t *testing.T) {
	const timeout = 100 * time.Millisecond
	check := func(t *testing.T, answers map[string]func(redisCall) answer, end func(context.Context) (context.Context, context.CancelFunc), want error) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(answers)
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep, ratelimit.WithTimeout(timeout))
			require.NoError(t, err)
			ctx, cancel := end(t.Context())
			defer cancel()
			start := time.Now()
			done, err := l.Wait(ctx)
			assert.Nil(t, done)
			assert.Equal(t, ctx.Err(), err, "the context's own error")
			assert.ErrorIs(t, err, want)
			assert.Less(t, time.Since(start), timeout, "ended by the context, not by the Redis timeout")
			assert.Zero(t, fallback.Waits(), "no fallback")
			assert.Empty(t, rep.All(), "no report")

			before := len(fake.Calls("wait"))
			fake.SetAnswer("wait", replies([]int64{0, 0, 1, 0, 1, 0}))
			time.Sleep(time.Second) // past any pause and the recheck period
			require.NoError(t, wait(t.Context(), l))
			assert.Len(t, fake.Calls("wait"), before+1, "the next caller asks Redis")
			assert.Zero(t, fallback.Waits())
			assert.Empty(t, rep.All())
		})
	}
	cancelAt := func(d time.Duration) func(context.Context) (context.Context, context.CancelFunc) {
		return func(parent context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(parent)
			time.AfterFunc(d, cancel)
			return ctx, cancel
		}
	}
	deadlineIn := func(d time.Duration) func(context.Context) (context.Context, context.CancelFunc) {
		return func(parent context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(parent, d)
		}
	}
	slowRedis := map[string]func(redisCall) answer{"wait": always(slow)}
	t.Run("cancelled while Redis is slow", func(t *testing.T) {
		check(t, slowRedis, cancelAt(30*time.Millisecond), context.Canceled)
	})
	t.Run("past its deadline while Redis is slow", func(t *testing.T) {
		check(t, slowRedis, deadlineIn(30*time.Millisecond), context.DeadlineExceeded)
	})
	t.Run("cancelled before it calls", func(t *testing.T) {
		check(t, slowRedis, func(parent context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(parent)
			cancel()
			return ctx, cancel
		}, context.Canceled)
	})
	t.Run("cancelled while it waits for its grant", func(t *testing.T) {
		check(t, map[string]func(redisCall) answer{"wait": replies([]int64{0, 500_000, 1, 0, 1, 0})},
			cancelAt(30*time.Millisecond), context.Canceled)
	})
	t.Run("cancelled while it waits out a pause", func(t *testing.T) {
		check(t, map[string]func(redisCall) answer{"wait": replies([]int64{1, 500_000, 1, 0})},
			cancelAt(30*time.Millisecond), context.Canceled)
	})
	t.Run("cancelled while it queues for the turn", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{"wait": replies([]int64{2, 500_000, 1, 0}, []int64{0, 0, 1, 0, 1, 0})})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep, ratelimit.WithTimeout(timeout))
			require.NoError(t, err)
			var wg sync.WaitGroup
			wg.Go(func() { assert.NoError(t, wait(t.Context(), l)) }) // held for 500 ms, holding the turn
			synctest.Wait()
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(30*time.Millisecond, cancel)
			err = wait(ctx, l)
			assert.Equal(t, context.Canceled, err)
			assert.Len(t, fake.Calls("wait"), 1, "it never asked Redis")
			wg.Wait()
			assert.Zero(t, fallback.Waits())
			assert.Empty(t, rep.All())
		})
	})

	t.Run("a 429 and a response reported under an ended context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"wait":      replies([]int64{0, 0, 1, 1, 1, 0}),
				"throttled": replies([]int64{0, 0}),
				"responded": replies([]int64{0}),
			})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep, ratelimit.WithTimeout(timeout))
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(t.Context())
			done, err := l.Wait(ctx)
			require.NoError(t, err)
			require.NotNil(t, done)
			cancel() // the attempt's context ends before its response is reported
			done()
			l.Throttled(ctx, time.Second)
			assert.Len(t, fake.Calls("responded"), 1)
			assert.Len(t, fake.Calls("throttled"), 1)
			assert.Empty(t, fallback.ThrottledWaits(), "Redis took the 429")
			assert.Empty(t, rep.All(), "no Redis failure")
		})
	})
}

// TestA429WhoseReportFailsReachesTheFallback: a 429 that Redis cannot take (an error, no reply
// within the timeout) or is not asked to take (it failed less than the recheck period ago) reaches
// the fallback, with its wait, and Redis's failure is reported once; one that Redis takes goes
// nowhere else. With the default fallback, the 429s pace the process as compute.NewLimiter does:
// the first arms it, a later one pauses it.
func TestA429WhoseReportFailsReachesTheFallback(t *testing.T) {
	for name, a := range map[string]answer{
		"an error": {err: errors.New("READONLY You can't write against a read only replica")},
		"too slow": slow,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := newFakeRedis(map[string]func(redisCall) answer{"throttled": always(a)})
				fallback, rep := &recordingLimiter{}, &reports{}
				l, err := fakeLimiter(t, fake, fallback, rep, ratelimit.WithTimeout(100*time.Millisecond))
				require.NoError(t, err)
				start := time.Now()
				l.Throttled(t.Context(), 3*time.Second)
				assert.LessOrEqual(t, time.Since(start), 100*time.Millisecond, "bounded by the timeout")
				assert.Equal(t, []time.Duration{3 * time.Second}, fallback.ThrottledWaits())
				l.Throttled(t.Context(), 4*time.Second) // within the recheck period
				assert.Equal(t, []time.Duration{3 * time.Second, 4 * time.Second}, fallback.ThrottledWaits())
				assert.Len(t, fake.Calls("throttled"), 1, "Redis is not asked within the recheck period")
				errs := rep.All()
				require.Len(t, errs, 1)
				assert.ErrorContains(t, errs[0], "falling back to the local limiter")
			})
		})
	}
	t.Run("Redis takes it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{"throttled": replies([]int64{0, 0}, []int64{1, 3_000_000})})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(t, fake, fallback, rep)
			require.NoError(t, err)
			l.Throttled(t.Context(), 3*time.Second)
			l.Throttled(t.Context(), 3*time.Second)
			assert.Empty(t, fallback.ThrottledWaits())
			assert.Empty(t, rep.All())
		})
	})
	t.Run("the default fallback", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"throttled": always(answer{err: errors.New("LOADING Redis is loading the dataset in memory")}),
				"wait":      always(answer{err: errors.New("LOADING Redis is loading the dataset in memory")}),
			})
			rep := &reports{}
			l, err := ratelimit.New(fake, testToken, ratelimit.WithRate(10), ratelimit.WithErrorHandler(rep.handler))
			require.NoError(t, err)
			t.Cleanup(func() { _ = l.Close() })
			l.Throttled(t.Context(), 3*time.Second) // arms the fallback
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			require.NoError(t, wait(ctx, l), "the first 429 pauses nobody")
			start := time.Now()
			l.Throttled(t.Context(), 3*time.Second) // pauses it
			_, err = l.Wait(ctx)
			assert.ErrorIs(t, err, compute.ErrRateLimited, "the fallback's pause, past the deadline")
			assert.Equal(t, time.Duration(0), time.Since(start))
			require.NoError(t, wait(t.Context(), l))
			assert.GreaterOrEqual(t, time.Since(start), 3*time.Second, "the fallback waited the 429's pause out")
			assert.Less(t, time.Since(start), 3*time.Second+110*time.Millisecond, "then took its next slot")
			assert.Len(t, rep.All(), 1)
		})
	})
}

// TestASlowRedisFallsBackForTheRecheckPeriod: a Redis that does not answer within the timeout costs
// a caller exactly the timeout, once per recheck period: the caller is granted by the fallback when
// the timeout ends, the outage is reported once, Redis is asked again only at the next multiple of
// the recheck period, and when it answers again the limiter uses it and reports its return with
// nil.
func TestASlowRedisFallsBackForTheRecheckPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout, recheck = 100 * time.Millisecond, time.Second
		start := time.Now()
		var mu sync.Mutex
		var seq int64
		fake := newFakeRedis(map[string]func(redisCall) answer{"wait": func(redisCall) answer {
			if time.Since(start) < 1500*time.Millisecond {
				return slow
			}
			mu.Lock()
			defer mu.Unlock()
			seq++
			return answer{reply: []int64{0, 0, seq, 0, 1, 0}}
		}})
		fallback, rep := &recordingLimiter{}, &reports{}
		l, err := fakeLimiter(t, fake, fallback, rep, ratelimit.WithTimeout(timeout), ratelimit.WithRecheck(recheck))
		require.NoError(t, err)

		require.NoError(t, wait(t.Context(), l))
		assert.Equal(t, timeout, time.Since(start), "the timeout, then the fallback")
		assert.Equal(t, 1, fallback.Waits())
		errs := rep.All()
		require.Len(t, errs, 1)
		assert.ErrorContains(t, errs[0], "falling back to the local limiter, trying Redis again every 1s: ratelimit/redis: no response from Redis within 100ms")

		for time.Since(start) < 3*time.Second {
			t0 := time.Now()
			require.NoError(t, wait(t.Context(), l))
			assert.LessOrEqual(t, time.Since(t0), timeout+100*time.Millisecond,
				"the timeout and the rate's interval at most")
		}
		var at []time.Duration
		for _, c := range fake.Calls("wait") {
			at = append(at, c.At.Sub(start))
		}
		require.GreaterOrEqual(t, len(at), 3)
		assert.Equal(t, []time.Duration{0, time.Second, 2 * time.Second}, at[:3],
			"asked again at the next multiple of the recheck period after each failure")
		assert.Len(t, at, 12, "then asked by every Wait, one every interval")
		// From 0.1 to 1.0 s and from 1.1 to 2.0 s, at the rate (a heartbeat at 1 s finds Redis, whose
		// wait script is still slow then), with the waits the heartbeats cut short.
		assert.InDelta(t, 20, len(fallback.Grants()), 2, "granted by the fallback until Redis came back")
		for _, g := range fallback.Grants() {
			assert.Less(t, g.Sub(start), 2100*time.Millisecond, "the fallback granted after Redis came back")
		}
		errs = rep.All()
		require.Len(t, errs, 2, "one report for the outage, one for its end")
		assert.NoError(t, errs[1], "back on Redis")
	})
}

// TestAClientThatIgnoresTheTimeoutDoesNotHoldTheCaller: a Redis client that does not honour the
// command's context (a connection that hangs) costs a caller the timeout and no more: the limiter
// falls back when it ends.
func TestAClientThatIgnoresTheTimeoutDoesNotHoldTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := make(chan struct{})
		defer close(hang)
		fake := newFakeRedis(map[string]func(redisCall) answer{"wait": always(answer{hang: hang, reply: []int64{0, 0, 1, 0, 1, 0}})})
		fallback, rep := &recordingLimiter{}, &reports{}
		l, err := fakeLimiter(t, fake, fallback, rep, ratelimit.WithTimeout(50*time.Millisecond))
		require.NoError(t, err)
		start := time.Now()
		require.NoError(t, wait(t.Context(), l))
		assert.Equal(t, 50*time.Millisecond, time.Since(start))
		assert.Equal(t, 1, fallback.Waits())
		assert.Len(t, rep.All(), 1)
	})
}

// TestTheGoSideFollowsTheReplies: one goroutine of a process asks Redis at a time (Redis sees one
// waiter per process), and waits until its grant is due before the next caller asks; a caller
// waits its grant's due time exactly, and a hold exactly before asking
// again; an armed grant's done reports the response; every command keeps the budget's key ten
// minutes past its last use.
func TestTheGoSideFollowsTheReplies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newFakeRedis(map[string]func(redisCall) answer{
			"wait": always(answer{reply: []int64{0, 0, 1, 0, 1, 0}, delay: 10 * time.Millisecond})})
		l, err := fakeLimiter(t, fake, &recordingLimiter{}, &reports{}, ratelimit.WithRate(1000))
		require.NoError(t, err)
		start := time.Now()
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { assert.NoError(t, wait(t.Context(), l)) })
		}
		wg.Wait()
		var at []time.Duration
		for _, c := range fake.Calls("wait") {
			at = append(at, c.At.Sub(start))
		}
		assert.Equal(t, []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond}, at,
			"one command at a time")
	})
	synctest.Test(t, func(t *testing.T) {
		fake := newFakeRedis(map[string]func(redisCall) answer{"wait": replies(
			[]int64{0, 20_000, 1, 0, 1, 0}, []int64{0, 100_000, 2, 0, 1, 0}, // reserved: due in 20 and 100 ms
			[]int64{2, 5015, 1, 0}, []int64{2, 5015, 1, 0}, []int64{0, 0, 3, 1, 1, 0}, // held twice, then granted
		)})
		fallback, rep := &recordingLimiter{}, &reports{}
		l, err := fakeLimiter(t, fake, fallback, rep)
		require.NoError(t, err)
		start := time.Now()
		var wg sync.WaitGroup
		var granted [2]time.Duration
		for i := range 2 {
			wg.Go(func() {
				assert.NoError(t, wait(t.Context(), l))
				granted[i] = time.Since(start)
			})
			synctest.Wait()
		}
		wg.Wait()
		calls := fake.Calls("wait")
		require.Len(t, calls, 2)
		assert.Equal(t, 20*time.Millisecond, calls[1].At.Sub(calls[0].At), "the second caller asks once the first's grant is due")
		assert.Equal(t, [2]time.Duration{20 * time.Millisecond, 120 * time.Millisecond}, granted)

		time.Sleep(100 * time.Millisecond) // the rate's interval after the last grant
		start = time.Now()
		done, err := l.Wait(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 10030*time.Microsecond, time.Since(start), "two holds of 5015 µs")
		calls = fake.Calls("wait")
		require.Len(t, calls, 5)
		assert.Equal(t, []time.Duration{0, 5015 * time.Microsecond, 10030 * time.Microsecond},
			[]time.Duration{calls[2].At.Sub(start), calls[3].At.Sub(start), calls[4].At.Sub(start)}, "asked again after each hold")
		require.NotNil(t, done)
		done()
		responded := fake.Calls("responded")
		require.Len(t, responded, 1)
		assert.Equal(t, int64(3), responded[0].Arg(4))
		for _, c := range append(calls, responded...) {
			assert.Equal(t, (24 * time.Hour).Milliseconds(), c.Arg(3), "the budget's state, armed pacing included, outlives its last use by a day")
		}
		assert.Zero(t, fallback.Waits())
		assert.Empty(t, rep.All())
	})
}

// TestAMemberReplyNoScriptSendsIsRefused: the heartbeat's reply is read whole and refused unless
// it is one the member script sends: five values, a code of 0 (or 1, for a command Redis ran after
// a later one), a count of members from 1 to 65,536 and a rank below it, an epoch, and the slots as
// 240 characters of '0' and '1' (none of it when leaving, or for code 1).
func TestAMemberReplyNoScriptSendsIsRefused(t *testing.T) {
	slots := strings.Repeat("01", ratelimit.Frame/2)
	for name, v := range map[string]any{
		"not a list":          int64(3),
		"short":               []any{int64(0), int64(1), int64(0), int64(1)},
		"long":                []any{int64(0), int64(1), int64(0), int64(1), slots, int64(0)},
		"an unknown code":     []any{int64(2), int64(1), int64(0), int64(1), slots},
		"no members":          []any{int64(0), int64(0), int64(0), int64(1), slots},
		"members past bound":  []any{int64(0), int64(1<<16 + 1), int64(0), int64(1), slots},
		"a rank past them":    []any{int64(0), int64(2), int64(2), int64(1), slots},
		"a negative rank":     []any{int64(0), int64(2), int64(-1), int64(1), slots},
		"no epoch":            []any{int64(0), int64(1), int64(0), int64(0), slots},
		"slots too short":     []any{int64(0), int64(1), int64(0), int64(1), slots[1:]},
		"slots too long":      []any{int64(0), int64(1), int64(0), int64(1), slots + "1"},
		"slots not 0 and 1":   []any{int64(0), int64(1), int64(0), int64(1), strings.Repeat("2", ratelimit.Frame)},
		"a count as a string": []any{int64(0), "1", int64(0), int64(1), slots},
		"slots as a number":   []any{int64(0), int64(1), int64(0), int64(1), int64(7)},
		"code 1 with slots":   []any{int64(1), int64(0), int64(0), int64(1), slots},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, _, _, err := ratelimit.CheckMember(v, "r")
			assert.ErrorContains(t, err, "a reply no script sends")
		})
	}
	_, n, epoch, sent, err := ratelimit.CheckMember([]any{int64(0), int64(2), int64(1), int64(7), slots}, "r")
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
	assert.Equal(t, int64(7), epoch)
	assert.Equal(t, slots, sent)
	_, _, _, _, err = ratelimit.CheckMember([]any{int64(0), int64(0), int64(0), int64(7), ""}, "l")
	assert.NoError(t, err, "leaving")
}

// TestANilContextIsRefusedWithoutAPanic: Wait refuses a nil context with an error matching
// compute.ErrInvalidRequest (a *compute.ValidationError naming ctx), and Throttled ignores a call
// with one; neither panics nor sends Redis anything, and the limiter goes on serving.
func TestANilContextIsRefusedWithoutAPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newFakeRedis(map[string]func(redisCall) answer{"wait": replies([]int64{0, 0, 1, 0, 1, 0}), "member": always(alone)})
		fallback, rep := &recordingLimiter{}, &reports{}
		l, err := fakeLimiter(t, fake, fallback, rep)
		require.NoError(t, err)
		var nilCtx context.Context
		require.NotPanics(t, func() { _, err = l.Wait(nilCtx) })
		var verr *compute.ValidationError
		require.ErrorAs(t, err, &verr)
		assert.Equal(t, "ctx", verr.Field)
		assert.ErrorIs(t, err, compute.ErrInvalidRequest)
		require.NotPanics(t, func() {
			l.Throttled(nilCtx, 10*time.Second)
			l.Throttled(nilCtx, 10*time.Second)
		})
		assert.Empty(t, fake.Calls(""), "nothing sent to Redis")
		assert.Empty(t, fallback.ThrottledWaits(), "nor told the fallback")

		start := time.Now()
		_, err = l.Wait(t.Context())
		require.NoError(t, err)
		assert.Zero(t, time.Since(start), "no pause was recorded")
		assert.Empty(t, rep.All())
	})
}
