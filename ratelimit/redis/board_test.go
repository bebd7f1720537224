package redis_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var _ compute.ListBoard = (*ratelimit.Limiter)(nil)

// boardNow is the clock the board tests set: a fixed instant in the middle of a generation, so
// that the tests know the keys the board writes.
const boardNow = int64(1_700_000_015_000_000)

// boardGenKey is the key of list's sightings at boardNow, for the budget under prefix.
func boardGenKey(prefix, token, list string, back int64) string {
	return ratelimit.Key(prefix, token) + ":board:" + list + ":" + strconv.FormatInt(boardNow/30_000_000-back, 10)
}

// boardValue is a stored sighting as a process with token writes it, for the tests that put
// values straight into Redis.
func boardValue(token, list, id string, mark int64, js string) string {
	return boardRaw(token, list, id, fmt.Sprintf("%020d", mark), js)
}

// boardRaw is boardValue with the mark as written, m.
func boardRaw(token, list, id, m, js string) string {
	key := sha256.Sum256([]byte("compute-go list board v1\x00" + token))
	h := hmac.New(sha256.New, key[:])
	h.Write([]byte(list + "\x00" + id + "\x00" + m + "\x00" + js))
	return m + " " + hex.EncodeToString(h.Sum(nil)) + " " + js
}

// boardLimiters returns n limiters of token on one budget of rdb under prefix, as n processes,
// each on the clock of the tests, closed when the test ends.
func boardLimiters(t *testing.T, rdb goredis.Scripter, prefix, token string, n int, opts ...ratelimit.Option) []*ratelimit.Limiter {
	var ls []*ratelimit.Limiter
	for range n {
		l, err := ratelimit.New(rdb, token, append([]ratelimit.Option{ratelimit.WithKeyPrefix(prefix)}, opts...)...)
		require.NoError(t, err)
		l.SetClock(func() string { return strconv.FormatInt(boardNow, 10) })
		t.Cleanup(func() { _ = l.Close() })
		ls = append(ls, l)
	}
	return ls
}

// TestMarksOnlyGrow: the marks of two processes on one Redis increase strictly across both, also
// when Redis's clock stands still or goes back, when Redis restarts empty (FLUSHALL) and when it
// restores an older mark: they follow Redis's clock, which moved on.
func TestMarksOnlyGrow(t *testing.T) {
	rdb, ctx := ownRedis(t)
	prefix := uniquePrefix(t)
	ls := boardLimiters(t, rdb, prefix, testToken, 2)
	var last int64
	next := func(l *ratelimit.Limiter, why string) int64 {
		t.Helper()
		m, err := l.Mark(ctx)
		require.NoError(t, err)
		require.Greater(t, m, last, why)
		last = m
		return m
	}
	for i := range 20 {
		next(ls[i%2], "the clock stands still")
	}
	assert.Equal(t, boardNow+19, last, "a mark is one more than the last while the clock stands still")
	for _, l := range ls {
		l.SetClock(func() string { return strconv.FormatInt(boardNow-time.Hour.Microseconds(), 10) })
	}
	for i := range 4 { // the marks stay ahead of the clock, which this process's clock is too
		_, err := ls[i%2].Mark(ctx)
		require.ErrorContains(t, err, "more than a second away", "the clock went back")
	}

	// Redis's own clock from here: the real time, well past boardNow's.
	for _, l := range ls {
		l.SetClock(func() string { return "" })
	}
	before := next(ls[0], "Redis's clock")
	require.NoError(t, rdb.FlushAll(ctx).Err())
	next(ls[1], "after a restart without persistence")
	markKey := ratelimit.Key(prefix, testToken) + ":board-mark"
	require.NoError(t, rdb.Set(ctx, markKey, strconv.FormatInt(before-1_000_000, 10), 0).Err())
	next(ls[0], "after a restore of an older mark")
	ttl, err := rdb.PTTL(ctx, markKey).Result()
	require.NoError(t, err)
	assert.InDelta(t, 10*time.Minute, ttl, float64(time.Minute), "the last mark's time to live")
}

// TestSightingsGoBetweenProcesses: what one process posts, another of the same token reads, with
// its mark; a sighting replaces one of a smaller mark only.
func TestSightingsGoBetweenProcesses(t *testing.T) {
	rdb, ctx, prefix := sharedBoard(t)
	ls := boardLimiters(t, rdb, prefix, testToken, 2)
	a1, b1 := `{"id":"a","status":"creating"}`, `{"id":"b","status":"active"}`
	require.NoError(t, ls[0].Post(ctx, "instances", 100, map[string][]byte{"a": []byte(a1), "b": []byte(b1)}))
	seen, err := ls[1].Seen(ctx, "instances", []string{"a", "b", "c"})
	require.NoError(t, err)
	assert.Equal(t, map[string]compute.Sighting{"a": {Mark: 100, JSON: []byte(a1)}, "b": {Mark: 100, JSON: []byte(b1)}}, seen)

	older := `{"id":"a","status":"queued"}`
	require.NoError(t, ls[1].Post(ctx, "instances", 99, map[string][]byte{"a": []byte(older)}))
	require.NoError(t, ls[1].Post(ctx, "instances", 100, map[string][]byte{"a": []byte(older)}))
	seen, err = ls[0].Seen(ctx, "instances", []string{"a"})
	require.NoError(t, err)
	assert.Equal(t, map[string]compute.Sighting{"a": {Mark: 100, JSON: []byte(a1)}}, seen, "a smaller or equal mark replaces nothing")

	a2 := `{"id":"a","status":"active"}`
	require.NoError(t, ls[1].Post(ctx, "instances", 101, map[string][]byte{"a": []byte(a2)}))
	seen, err = ls[0].Seen(ctx, "instances", []string{"a", "b"})
	require.NoError(t, err)
	assert.Equal(t, map[string]compute.Sighting{"a": {Mark: 101, JSON: []byte(a2)}, "b": {Mark: 100, JSON: []byte(b1)}}, seen,
		"a greater mark replaces")

	seen, err = ls[0].Seen(ctx, "volumes", []string{"a", "b"})
	require.NoError(t, err)
	assert.Empty(t, seen, "each list has its own sightings")

	ttl, err := rdb.PTTL(ctx, boardGenKey(prefix, testToken, "instances", 0)).Result()
	require.NoError(t, err)
	assert.InDelta(t, 90*time.Second, ttl, float64(5*time.Second), "the sightings' time to live")
}

// TestSeenReadsTheGenerationBefore: a sighting posted in the previous 30 s generation is read, the
// greater mark of the two generations wins, and one two generations old is gone.
func TestSeenReadsTheGenerationBefore(t *testing.T) {
	rdb, _ := sharedRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ls := boardLimiters(t, rdb, uniquePrefix(t), testToken, 1)
	l := ls[0]
	l.SetClock(func() string { return strconv.FormatInt(boardNow-60_000_000, 10) })
	require.NoError(t, l.Post(ctx, "instances", 5, map[string][]byte{"old": []byte(`{}`)}))
	l.SetClock(func() string { return strconv.FormatInt(boardNow-30_000_000, 10) })
	require.NoError(t, l.Post(ctx, "instances", 10, map[string][]byte{"a": []byte(`{"v":10}`), "b": []byte(`{"v":10}`)}))
	l.SetClock(func() string { return strconv.FormatInt(boardNow, 10) })
	require.NoError(t, l.Post(ctx, "instances", 9, map[string][]byte{"a": []byte(`{"v":9}`)}))
	require.NoError(t, l.Post(ctx, "instances", 11, map[string][]byte{"b": []byte(`{"v":11}`)}))
	seen, err := l.Seen(ctx, "instances", []string{"a", "b", "old"})
	require.NoError(t, err)
	assert.Equal(t, map[string]compute.Sighting{"a": {Mark: 10, JSON: []byte(`{"v":10}`)}, "b": {Mark: 11, JSON: []byte(`{"v":11}`)}}, seen)
}

// TestTheBoardTrustsOnlyItsOwnMACs: a limiter of another token sees nothing of the board, and
// values written straight into Redis (a wrong MAC, a valid one moved to another ID or list, an
// altered JSON, a greater forged mark) are never returned.
func TestTheBoardTrustsOnlyItsOwnMACs(t *testing.T) {
	rdb, ctx, prefix := sharedBoard(t)
	l := boardLimiters(t, rdb, prefix, testToken, 1)[0]
	other := boardLimiters(t, rdb, prefix, testToken+"-other", 1)[0]
	a := `{"id":"a","status":"active"}`
	require.NoError(t, l.Post(ctx, "instances", 100, map[string][]byte{"a": []byte(a)}))
	seen, err := other.Seen(ctx, "instances", []string{"a"})
	require.NoError(t, err)
	assert.Empty(t, seen, "another token's board")

	key := boardGenKey(prefix, testToken, "instances", 0)
	valid, err := rdb.HGet(ctx, key, "a").Result()
	require.NoError(t, err)
	require.Equal(t, boardValue(testToken, "instances", "a", 100, a), valid)
	wrongMAC := []byte(boardValue(testToken, "instances", "w", 100, a))
	wrongMAC[25] ^= 1
	require.NoError(t, rdb.HSet(ctx, key,
		"w", string(wrongMAC),
		"copied", valid,
		"altered", strings.Replace(boardValue(testToken, "instances", "altered", 100, a), "active", "deleted", 1),
		"remarked", "00000000000000000200"+boardValue(testToken, "instances", "remarked", 100, a)[20:],
		"othertoken", boardValue(testToken+"-other", "instances", "othertoken", 100, a),
	).Err())
	require.NoError(t, rdb.HSet(ctx, boardGenKey(prefix, testToken, "volumes", 0), "a", valid).Err())
	// A forged sighting of a with a greater mark, in the generation before: the valid one stays.
	require.NoError(t, rdb.HSet(ctx, boardGenKey(prefix, testToken, "instances", 1),
		"a", "00000000000000000900"+valid[20:]).Err())

	seen, err = l.Seen(ctx, "instances", []string{"a", "w", "copied", "altered", "remarked", "othertoken"})
	require.NoError(t, err)
	assert.Equal(t, map[string]compute.Sighting{"a": {Mark: 100, JSON: []byte(a)}}, seen)
	seen, err = l.Seen(ctx, "volumes", []string{"a"})
	require.NoError(t, err)
	assert.Empty(t, seen, "a sighting moved to another list")
}

// TestSeenReturnsOnlyWhatItWasAskedAndDropsGarbage: Seen returns the IDs asked, once each, and drops
// values too long or malformed without an error.
func TestSeenReturnsOnlyWhatItWasAskedAndDropsGarbage(t *testing.T) {
	rdb, ctx, prefix := sharedBoard(t)
	l := boardLimiters(t, rdb, prefix, testToken, 1)[0]
	require.NoError(t, l.Post(ctx, "instances", 7, map[string][]byte{"a": []byte(`{}`), "b": []byte(`{}`)}))
	key := boardGenKey(prefix, testToken, "instances", 0)
	huge := `"` + strings.Repeat("x", 64<<10) + `"` // a MAC that holds, on a JSON over 64 KiB
	require.NoError(t, rdb.HSet(ctx, key,
		"huge", boardValue(testToken, "instances", "huge", 7, huge),
		"short", "0000000",
		"sign", boardRaw(testToken, "instances", "sign", "+0000000000000000007", `{}`),
		"nospace", strings.Replace(boardValue(testToken, "instances", "nospace", 7, `{}`), " ", "_", 1),
		"empty", "",
	).Err())
	seen, err := l.Seen(ctx, "instances", []string{"a", "a", "huge", "short", "sign", "nospace", "empty", "missing", "", "a\x00b"})
	require.NoError(t, err)
	assert.Equal(t, map[string]compute.Sighting{"a": {Mark: 7, JSON: []byte(`{}`)}}, seen)

	seen, err = l.Seen(ctx, "instances", nil)
	require.NoError(t, err)
	assert.Empty(t, seen)
}

// TestBoardRefusesWhatItCannotBound: a bad list name, too many resources or IDs, a JSON too long, a
// bad ID or a negative mark is refused, and nothing reaches Redis.
func TestBoardRefusesWhatItCannotBound(t *testing.T) {
	rdb, ctx, prefix := sharedBoard(t)
	l := boardLimiters(t, rdb, prefix, testToken, 1)[0]
	ok := map[string][]byte{"a": []byte(`{}`)}
	many := map[string][]byte{}
	for i := range 1001 {
		many[strconv.Itoa(i)] = []byte(`{}`)
	}
	var nilCtx context.Context
	ids := make([]string, 1001)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	for name, post := range map[string]func() error{
		"empty list":      func() error { return l.Post(ctx, "", 1, ok) },
		"upper case list": func() error { return l.Post(ctx, "Instances", 1, ok) },
		"colon in list":   func() error { return l.Post(ctx, "a:b", 1, ok) },
		"glob in list":    func() error { return l.Post(ctx, "a*", 1, ok) },
		"long list":       func() error { return l.Post(ctx, strings.Repeat("a", 65), 1, ok) },
		"1001 resources":  func() error { return l.Post(ctx, "instances", 1, many) },
		"oversize JSON": func() error {
			return l.Post(ctx, "instances", 1, map[string][]byte{"a": []byte(`{}`), "b": make([]byte, 64<<10+1)})
		},
		"empty ID":  func() error { return l.Post(ctx, "instances", 1, map[string][]byte{"": []byte(`{}`)}) },
		"NUL in ID": func() error { return l.Post(ctx, "instances", 1, map[string][]byte{"a\x00b": []byte(`{}`)}) },
		"long ID": func() error {
			return l.Post(ctx, "instances", 1, map[string][]byte{strings.Repeat("a", 257): []byte(`{}`)})
		},
		"negative mark": func() error { return l.Post(ctx, "instances", -1, ok) },
		"nil context":   func() error { return l.Post(nilCtx, "instances", 1, ok) },
		"seen 1001 IDs": func() error { _, err := l.Seen(ctx, "instances", ids); return err },
		"seen bad list": func() error { _, err := l.Seen(ctx, "in stances", []string{"a"}); return err },
	} {
		assert.Error(t, post(), name)
	}
	keys, err := rdb.Keys(ctx, ratelimit.Key(prefix, testToken)+"*").Result()
	require.NoError(t, err)
	assert.Empty(t, keys, "nothing written")
	require.NoError(t, l.Post(ctx, "in_stan-ces9", 1, map[string][]byte{strings.Repeat("a", 256): make([]byte, 64<<10)}),
		"the bounds themselves pass")
}

// TestABoardThatFailsNeverHoldsTheLimiter: while Redis does not answer, Mark, Post and Seen fail
// within about the timeout, without making the limiter fall back or report anything: once Redis
// answers, the next Wait is Redis's. On a closed limiter they fail at once.
func TestABoardThatFailsNeverHoldsTheLimiter(t *testing.T) {
	addr, proc := startRedis(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	var mu sync.Mutex
	var reports []error
	l, err := ratelimit.New(rdb, testToken, ratelimit.WithTimeout(50*time.Millisecond), ratelimit.WithKeyPrefix(uniquePrefix(t)),
		ratelimit.WithErrorHandler(func(err error) { mu.Lock(); reports = append(reports, err); mu.Unlock() }))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, wait(ctx, l))

	require.NoError(t, proc.Signal(syscall.SIGSTOP))
	calls := map[string]func() error{
		"Mark": func() error { _, err := l.Mark(ctx); return err },
		"Post": func() error { return l.Post(ctx, "instances", 1, map[string][]byte{"a": []byte(`{}`)}) },
		"Seen": func() error { _, err := l.Seen(ctx, "instances", []string{"a"}); return err },
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		assert.ErrorContains(t, err, "no response from Redis within 50ms", name)
		assert.Less(t, time.Since(start), time.Second, name)
	}
	require.NoError(t, proc.Signal(syscall.SIGCONT))
	require.NoError(t, wait(ctx, l))
	mu.Lock()
	assert.Empty(t, reports, "the limiter never fell back")
	mu.Unlock()
	_, err = l.Mark(ctx)
	require.NoError(t, err, "the board answers again")

	require.NoError(t, l.Close())
	for name, call := range calls {
		assert.ErrorContains(t, call(), "closed", name)
	}
}

// TestBoardErrorsNeverHoldTheToken: no error of the board, and no printing of the limiter, holds
// the token or the board's key.
func TestBoardErrorsNeverHoldTheToken(t *testing.T) {
	const token = "tok-BOARD-SECRET-a1b2c3d4e5"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	rdb := goredis.NewClient(&goredis.Options{Addr: closed, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	l, err := ratelimit.New(rdb, token, ratelimit.WithTimeout(50*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	add := func(err error) { require.Error(t, err); errs = append(errs, err) }
	_, err = l.Mark(ctx)
	add(err)
	add(l.Post(ctx, "instances", 1, map[string][]byte{"a": []byte(`{}`)}))
	add(l.Post(ctx, "Bad", 1, nil))
	add(l.Post(ctx, "instances", 1, map[string][]byte{"a": make([]byte, 64<<10+1)}))
	_, err = l.Seen(ctx, "instances", []string{"a"})
	add(err)
	add(l.Close()) // it cannot leave the budget
	_, err = l.Seen(ctx, "instances", []string{"a"})
	add(err)

	key := sha256.Sum256([]byte("compute-go list board v1\x00" + token))
	secrets := []string{token, hex.EncodeToString(key[:]), string(key[:]), fmt.Sprint(key[:]), fmt.Sprintf("%#v", key)[len("[32]uint8{"):]}
	texts := []string{fmt.Sprintf("%v %+v %#v %s", l, l, l, l)}
	for _, err := range errs {
		texts = append(texts, fmt.Sprintf("%v %+v %#v", err, err, err))
	}
	for _, text := range texts {
		for _, s := range secrets {
			assert.NotContains(t, text, s)
		}
	}
}

// TestALyingMarkTurnsTheBoardOff: a mark far from the process's clock (a Redis whose stored mark
// is an hour ahead), or one not above a mark the process got before (a Redis that forgot it while
// its clock stood still), is refused, so that no older sighting can pass for a newer one.
func TestALyingMarkTurnsTheBoardOff(t *testing.T) {
	rdb, ctx := ownRedis(t)
	prefix := uniquePrefix(t)
	l := boardLimiters(t, rdb, prefix, testToken, 1)[0]
	m, err := l.Mark(ctx)
	require.NoError(t, err)
	require.NoError(t, rdb.FlushAll(ctx).Err())
	_, err = l.Mark(ctx) // the clock stands still: the same mark again
	require.ErrorContains(t, err, "not above")

	markKey := ratelimit.Key(prefix, testToken) + ":board-mark"
	require.NoError(t, rdb.Set(ctx, markKey, strconv.FormatInt(m+time.Hour.Microseconds(), 10), 0).Err())
	_, err = l.Mark(ctx)
	require.ErrorContains(t, err, "more than a second away")
	assert.NotContains(t, err.Error(), testToken)
}

// sharedBoard returns a client of the tests' Redis, a context that ends with the test, within
// 10 s, and a key prefix of the test's own.
func sharedBoard(t *testing.T) (*goredis.Client, context.Context, string) {
	rdb, _ := sharedRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return rdb, ctx, uniquePrefix(t)
}

// ownRedis starts a redis-server of the test's own (one the test may flush or restart) and returns
// a client of it and a context that ends with the test, within 10 s.
func ownRedis(t *testing.T) (*goredis.Client, context.Context) {
	addr, _ := startRedis(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return rdb, ctx
}

// TestMarksAnsweredOutOfOrderAreKept: two Mark calls at once, the first's reply held until the
// second's is in, so that the smaller mark, given first, arrives last (a fleet's waits ask for marks
// by the dozen at once). It is no sign of a Redis that went back, and is kept; a later call given a
// mark not above one the process got before it asked is still refused.
func TestMarksAnsweredOutOfOrderAreKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		var mu sync.Mutex
		calls := 0
		fake := newFakeRedis(map[string]func(redisCall) answer{"mark": func(redisCall) answer {
			mu.Lock()
			defer mu.Unlock()
			calls++
			switch calls {
			case 1:
				return answer{one: boardNow + 1, hang: hold}
			case 2:
				return answer{one: boardNow + 2}
			default:
				return answer{one: boardNow + 1} // a Redis that went back
			}
		}})
		l, err := fakeLimiter(t, fake, &recordingLimiter{}, &reports{})
		require.NoError(t, err)
		l.SetClock(func() string { return strconv.FormatInt(boardNow, 10) })
		ctx := context.Background()
		first := make(chan error, 1)
		go func() {
			_, err := l.Mark(ctx)
			first <- err
		}()
		synctest.Wait() // the first call is in Redis, its reply held
		m, err := l.Mark(ctx)
		require.NoError(t, err)
		assert.Equal(t, boardNow+2, m)
		close(hold)
		assert.NoError(t, <-first, "the first call's mark, given before the second's, arrived after it")
		_, err = l.Mark(ctx)
		assert.ErrorContains(t, err, "not above", "a mark not above one the process got before asking")
	})
}
