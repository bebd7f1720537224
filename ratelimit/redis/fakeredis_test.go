package redis_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
)

// fakeRedis is a goredis.Scripter that answers the limiter's scripts as the test says, by the
// script's SHA, and records every call. It runs no Lua: the tests that need the scripts' logic use
// a real Redis; this one lets the Go side meet any reply, error or delay, on testing/synctest's
// clock.
type fakeRedis struct {
	mu      sync.Mutex
	answers map[string]func(redisCall) answer // by script name: "wait", "responded", "written", "throttled"
	calls   []redisCall
	// limit bounds the calls the fake answers; past it, it answers an error naming it, so that a
	// limiter that loops on Redis ends (and fails the test) instead of spinning forever.
	limit int
}

// redisCall is one command the fake received.
type redisCall struct {
	Script string    // "wait", "responded", "written" or "throttled"
	At     time.Time // on the bubble's clock
	Args   []any     // ARGV: the clock, the interval, the key's time to live, the script's own
}

// Arg returns ARGV[i] (from 1, as in Lua) as an integer; ARGV[1], the clock, is a string.
func (c redisCall) Arg(i int) int64 {
	v, _ := c.Args[i-1].(int64)
	return v
}

// answer is what the fake replies to a call: the reply, or the error, after delay (forever, until
// the command's context ends, when delay < 0), and not before hang is closed, whatever the context
// (a client that does not honour it).
type answer struct {
	reply []int64
	vals  []any // the reply when reply is nil: a member script's has a string
	one   any   // the reply when reply and vals are nil and it is not: a single value (a mark)
	err   error
	delay time.Duration
	hang  <-chan struct{}
}

// slow is the answer of a Redis that does not answer within any timeout.
var slow = answer{delay: -1}

// replies answers the replies in turn, the last one again and again.
func replies(rs ...[]int64) func(redisCall) answer {
	var mu sync.Mutex
	i := 0
	return func(redisCall) answer {
		mu.Lock()
		defer mu.Unlock()
		r := rs[min(i, len(rs)-1)]
		i++
		return answer{reply: r}
	}
}

// always answers a every time.
func always(a answer) func(redisCall) answer { return func(redisCall) answer { return a } }

// scriptNames names the limiter's scripts by their SHA.
var scriptNames = map[string]string{
	ratelimit.WaitScript.Hash():      "wait",
	ratelimit.RespondedScript.Hash(): "responded",
	ratelimit.WrittenScript.Hash():   "written",
	ratelimit.ThrottledScript.Hash(): "throttled",
	ratelimit.MemberScript.Hash():    "member",
	ratelimit.MarkScript.Hash():      "mark",
}

// alone is memberScript's reply to a process alone on the budget: it holds every slot.
var alone = answer{vals: []any{int64(0), int64(1), int64(0), int64(1), strings.Repeat("1", ratelimit.Frame)}}

// newFakeRedis returns a fake that answers the scripts named in answers; a script it has no answer
// for gets {0} (what respondedScript replies), an unknown script an error.
func newFakeRedis(answers map[string]func(redisCall) answer) *fakeRedis {
	return &fakeRedis{answers: maps.Clone(answers), limit: 10000}
}

// Calls returns the calls of the script named (all calls for "").
func (f *fakeRedis) Calls(script string) []redisCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []redisCall
	for _, c := range f.calls {
		if script == "" || c.Script == script {
			out = append(out, c)
		}
	}
	return out
}

// SetAnswer replaces the answers of the script named.
func (f *fakeRedis) SetAnswer(script string, fn func(redisCall) answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[script] = fn
}

func (f *fakeRedis) EvalSha(ctx context.Context, sha string, _ []string, args ...any) *goredis.Cmd {
	name, ok := scriptNames[sha]
	if !ok {
		return goredis.NewCmdResult(nil, errors.New("NOSCRIPT fake: no script "+sha))
	}
	f.mu.Lock()
	c := redisCall{Script: name, At: time.Now(), Args: args}
	f.calls = append(f.calls, c)
	over := len(f.calls) > f.limit
	fn := f.answers[name]
	f.mu.Unlock()
	if over {
		return goredis.NewCmdResult(nil, fmt.Errorf("fake: more than %d calls", f.limit))
	}
	a := answer{reply: []int64{0}}
	switch {
	case fn != nil:
		a = fn(c)
	case name == "member":
		a = alone
	}
	if a.hang != nil {
		<-a.hang
	}
	if a.delay != 0 {
		var timer <-chan time.Time
		if a.delay > 0 {
			timer = time.After(a.delay)
		}
		select {
		case <-timer:
		case <-ctx.Done():
			return goredis.NewCmdResult(nil, ctx.Err())
		}
	}
	if a.err != nil {
		return goredis.NewCmdResult(nil, a.err)
	}
	if a.reply == nil && a.vals == nil && a.one != nil {
		return goredis.NewCmdResult(a.one, nil)
	}
	if a.reply == nil {
		return goredis.NewCmdResult(a.vals, nil)
	}
	vals := make([]any, len(a.reply))
	for i, v := range a.reply {
		vals[i] = v
	}
	return goredis.NewCmdResult(vals, nil)
}

func (f *fakeRedis) Eval(ctx context.Context, src string, keys []string, args ...any) *goredis.Cmd {
	return f.EvalSha(ctx, goredis.NewScript(src).Hash(), keys, args...)
}

func (f *fakeRedis) EvalRO(context.Context, string, []string, ...any) *goredis.Cmd {
	return goredis.NewCmdResult(nil, errors.New("fake: EvalRO is not used"))
}

func (f *fakeRedis) EvalShaRO(context.Context, string, []string, ...any) *goredis.Cmd {
	return goredis.NewCmdResult(nil, errors.New("fake: EvalShaRO is not used"))
}

func (f *fakeRedis) ScriptExists(_ context.Context, hashes ...string) *goredis.BoolSliceCmd {
	exists := make([]bool, len(hashes))
	for i, h := range hashes {
		_, exists[i] = scriptNames[h]
	}
	return goredis.NewBoolSliceResult(exists, nil)
}

func (f *fakeRedis) ScriptLoad(_ context.Context, src string) *goredis.StringCmd {
	return goredis.NewStringResult(goredis.NewScript(src).Hash(), nil)
}

var _ goredis.Scripter = (*fakeRedis)(nil)

// recordingLimiter is a fallback that records its calls and grants through inner, or at once when
// inner is nil.
type recordingLimiter struct {
	inner compute.Limiter

	mu        sync.Mutex
	waits     int             // Wait calls
	grants    []time.Time     // Wait calls that granted
	throttled []time.Duration // the waits of Throttled calls
}

func (r *recordingLimiter) Wait(ctx context.Context) (func(), error) {
	r.mu.Lock()
	r.waits++
	r.mu.Unlock()
	var done func()
	var err error
	if r.inner != nil {
		done, err = r.inner.Wait(ctx)
	} else {
		err = ctx.Err()
	}
	if err == nil {
		r.mu.Lock()
		r.grants = append(r.grants, time.Now())
		r.mu.Unlock()
	}
	return done, err
}

func (r *recordingLimiter) Throttled(ctx context.Context, wait time.Duration) {
	r.mu.Lock()
	r.throttled = append(r.throttled, wait)
	r.mu.Unlock()
	if r.inner != nil {
		r.inner.Throttled(ctx, wait)
	}
}

// Waits, Grants and ThrottledWaits return what the fallback was asked.
func (r *recordingLimiter) Waits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waits
}

func (r *recordingLimiter) Grants() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.grants...)
}

func (r *recordingLimiter) ThrottledWaits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.throttled...)
}

// reports collects what the limiter tells its error handler.
type reports struct {
	mu   sync.Mutex
	errs []error
}

func (r *reports) handler(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

func (r *reports) All() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

// fakeLimiter builds a Limiter on fake at rate 10 per second, with the fallback and the reports
// recorded, and opts after those. Call it inside the synctest bubble.
func fakeLimiter(t testing.TB, fake *fakeRedis, fallback *recordingLimiter, rep *reports, opts ...ratelimit.Option) (*ratelimit.Limiter, error) {
	l, err := ratelimit.New(fake, testToken, append([]ratelimit.Option{
		ratelimit.WithRate(10), ratelimit.WithFallback(fallback), ratelimit.WithErrorHandler(rep.handler),
	}, opts...)...)
	if err == nil {
		t.Cleanup(func() { _ = l.Close() }) // its heartbeat ends before the bubble does
	}
	return l, err
}
