package redis_test

import (
	"context"
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
			fake := newFakeRedis(map[string]func(redisCall) answer{"wait": replies([]int64{1, pause.Microseconds()})})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(fake, fallback, rep)
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
				"wait": replies([]int64{1, pause.Microseconds()}, []int64{0, 0, 1, 0})})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(fake, fallback, rep)
			require.NoError(t, err)
			start := time.Now()
			var wg sync.WaitGroup
			wg.Go(func() { // no deadline: waits the pause out, holding the process's turn
				assert.NoError(t, wait(t.Context(), l))
				assert.Equal(t, pause, time.Since(start))
			})
			synctest.Wait()
			require.Len(t, fake.Calls("wait"), 1)

			failsAtOnce(t, l)
			assert.Len(t, fake.Calls("wait"), 1, "the pause is known: Redis is not asked")

			ctx, cancel := context.WithTimeout(t.Context(), pause+time.Second)
			defer cancel()
			require.NoError(t, wait(ctx, l), "a deadline past the pause waits it out")
			assert.GreaterOrEqual(t, time.Since(start), pause)
			wg.Wait()
			assert.Zero(t, fallback.Waits())
			assert.Empty(t, rep.All())
		})
	})

	t.Run("learned from a 429", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := newFakeRedis(map[string]func(redisCall) answer{
				"wait":      replies([]int64{0, 0, 1, 1}),
				"throttled": replies([]int64{1, pause.Microseconds()}),
			})
			fallback, rep := &recordingLimiter{}, &reports{}
			l, err := fakeLimiter(fake, fallback, rep)
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
				"wait": replies([]int64{1, 500_000}, []int64{0, 0, 1, 0})})
			l, err := fakeLimiter(fake, &recordingLimiter{}, &reports{})
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
