// Package redis is a [compute.Limiter] shared through Redis by every process that uses one API
// token: a fleet of CI jobs or workers, each with its own client, holds the account's rate together
// instead of each pacing alone and all of them drawing 429 responses.
//
// Import it under a name of its own, since the Redis client's package is also called redis:
//
//	import (
//		goredis "github.com/redis/go-redis/v9"
//		ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
//	)
//
//	rdb := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
//	lim, err := ratelimit.New(rdb, token)
//	...
//	c, err := compute.NewClient(token, compute.WithBaseURL(url), compute.WithLimiter(lim))
//
// # What is shared
//
// One budget per token: the state lives under one Redis key, the prefix (see [WithKeyPrefix])
// followed by a SHA-256 of the token, so the key never reveals the token and the token never
// reaches Redis. Each attempt is granted by a Lua script on Redis's own clock, at least one interval
// after the attempt granted before it in any process; the pacing adapts to 429 responses exactly as
// [compute.WithRateLimit] describes (0.3% headroom; after a 429, pacing from the responses too,
// whichever process made the request before; the headroom raised by later 429s and decaying), and
// a 429 seen by one process pauses all of them: for one interval after a lone 429 asking for at
// most 1 s, for the whole Retry-After after a longer one or a second one within the Retry-After of
// the one before. While the pacing from responses is armed, each attempt's response costs one more
// Redis command, which reports it: the client runs it when the response's headers arrive, before
// it reads the body, bounded like every command. Unlike the default limiter, which times every
// response, this one learns the round trip only once armed, so the 429 that first arms it never
// raises the headroom, even for a far service (the next 429 does).
//
// # When Redis is down or slow
//
// Every Redis command is bounded by a timeout ([WithTimeout], 100 ms by default) and by the
// caller's context, whichever ends first; a caller never waits on Redis longer than that. When a
// command fails or times out the limiter falls back to a local limiter ([WithFallback]; by default
// [compute.NewLimiter] at the same rate, so each process then paces alone at the full rate) and
// reports it once to the handler of [WithErrorHandler]. It tries Redis again after a while
// ([WithRecheck], 1 s by default) and reports its return with a nil error. A caller's context that
// ends is always reported as the context's error, never hidden by the fallback.
package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
	goredis "github.com/redis/go-redis/v9"
)

// Defaults applied by [New].
const (
	// DefaultKeyPrefix starts every key the limiter writes.
	DefaultKeyPrefix = "compute-go:ratelimit:"
	// DefaultTimeout bounds every Redis command.
	DefaultTimeout = 100 * time.Millisecond
	// DefaultRecheck is how long the limiter stays on its fallback before it tries Redis again.
	DefaultRecheck = time.Second
)

// keyTTL is how long a budget's state outlives its last use.
const keyTTL = 10 * time.Minute

// The scripts keep, in one hash per token, in microseconds of Redis's clock: next (the earliest
// grant), until (the end of the shared pause), h and raised (the headroom and when it was raised),
// last429 and lastwait (the last 429 and the wait it asked for), anchor (the pacing from responses
// is armed until then), seq and sent (the number of the last grant and when it was made), resp
// (when its response was reported) and minrtt (the shortest time from a grant to its response's
// report). The constants are those of the compute package's default limiter: a late wake-up
// caught up by at most a quarter of an interval; a headroom of 0.3% at least, 3 points more after
// each 429 (at most once a second) but the one that arms the pacing from responses, at most 100%,
// the extra decaying by half every two minutes; a lone 429 asking for at most 1 s pauses everyone
// for one interval only; a 429 arms the pacing from responses for ten minutes, which holds a grant
// for the last one's response at most a quarter interval past its due time (asking again every
// POLL), and does not anchor when the shortest round trip is over half an interval. A grant and a
// response's report are both on Redis's clock, so the round trip includes the hops to Redis, which
// only makes the pacing more careful.
const scriptHeader = `
local MIN, THROTTLED, MAX, HALF, RAISE_EVERY, PACING_WAIT = 0.003, 0.03, 1.0, 120000000, 1000000, 1000000
local ANCHOR_FOR, HOLD, POLL, CATCH_UP = 600000000, 0.25, 1000, 0.25
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local function headroom(h, raised)
  h = tonumber(h) or MIN
  raised = tonumber(raised) or 0
  if h <= MIN then return MIN end
  return MIN + (h - MIN) * 2 ^ (-(now - raised) / HALF)
end
`

// waitScript grants an attempt, returning {0, its number, 1 if the pacing from responses is armed
// else 0}, or returns {the microseconds until one may be granted}. ARGV[3] is 1 when the caller
// slept for such a wait: a caller that then comes at most CATCH_UP of an interval late is caught
// up (the next grant is due an interval after this one was), unless the pacing from responses is
// armed.
var waitScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'next', 'until', 'h', 'raised', 'anchor', 'seq', 'sent', 'resp', 'minrtt')
local gate = math.max(tonumber(s[1]) or 0, tonumber(s[2]) or 0)
if now < gate then return {math.ceil(gate - now)} end
local step = interval * (1 + headroom(s[3], s[4]))
local armed = now < (tonumber(s[5]) or 0)
local sent, resp, minrtt = tonumber(s[7]), tonumber(s[8]), tonumber(s[9])
if armed and minrtt and minrtt <= step / 2 then
  if not resp then
    local hold = sent + step * (1 + HOLD) - now
    if hold > 0 then return {math.ceil(math.min(hold, POLL))} end
  else
    local due = math.min(resp + step - minrtt, sent + step * (1 + HOLD))
    if now < due then return {math.ceil(due - now)} end
  end
end
local seq = (tonumber(s[6]) or 0) + 1
local base = now
local due = tonumber(s[1]) or 0
if ARGV[3] == '1' and not armed and now - due <= CATCH_UP * step then base = due end
redis.call('HSET', KEYS[1], 'next', base + math.floor(step), 'seq', seq, 'sent', now)
redis.call('HDEL', KEYS[1], 'resp')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if armed then return {0, seq, 1} end
return {0, seq, 0}
`)

// respondedScript records that the response to grant ARGV[3] arrived, when that grant is still the
// last one.
var respondedScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'seq', 'sent', 'resp', 'minrtt')
if tonumber(s[1]) ~= tonumber(ARGV[3]) or s[3] then return {0} end
local rtt = now - tonumber(s[2])
redis.call('HSET', KEYS[1], 'resp', now, 'minrtt', math.min(rtt, tonumber(s[4]) or rtt))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {0}
`)

// throttledScript records a 429 whose Retry-After (or backoff) is ARGV[3] microseconds and returns
// {the pause it set}.
var throttledScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'until', 'h', 'raised', 'last429', 'lastwait', 'anchor', 'minrtt')
local h, raised = tonumber(s[2]) or MIN, tonumber(s[3]) or 0
local last, lastwait = tonumber(s[4]) or 0, tonumber(s[5]) or 0
local wait = tonumber(ARGV[3])
local minrtt = tonumber(s[7])
local far = minrtt and minrtt > interval * (1 + headroom(s[2], s[3])) / 2
local arming = now >= (tonumber(s[6]) or 0) and not far
if not arming and now - raised >= RAISE_EVERY then
  h = math.min(MAX, headroom(s[2], s[3]) + THROTTLED)
  raised = now
end
local pause = wait
if (last == 0 or now - last > lastwait) and wait <= PACING_WAIT then
  pause = math.min(wait, math.floor(interval * (1 + h)))
end
redis.call('HSET', KEYS[1], 'until', math.max(tonumber(s[1]) or 0, now + pause), 'h', h,
  'raised', raised, 'last429', now, 'lastwait', wait, 'anchor', now + ANCHOR_FOR)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {pause}
`)

// Limiter is a [compute.Limiter] whose budget lives in Redis. Build it with [New] and pass it to
// every client that uses the token, in every process, with [compute.WithLimiter]. It is safe for
// concurrent use.
type Limiter struct {
	rdb      goredis.Scripter
	keys     []string
	interval int64 // microseconds
	timeout  time.Duration
	recheck  time.Duration
	fallback compute.Limiter
	handler  func(error)

	// turn lets one goroutine of this process at a time ask Redis for a grant; the others queue
	// here, so Redis sees one waiter per process.
	turn chan struct{}

	mu        sync.Mutex
	failing   bool
	downUntil time.Time // Redis is not asked again before this
}

// config collects the options of [New].
type config struct {
	rps      float64
	prefix   string
	timeout  time.Duration
	recheck  time.Duration
	fallback compute.Limiter
	handler  func(error)
}

// Option configures a [Limiter].
type Option func(*config) error

// WithRate sets the account's rate in requests per second (default [compute.DefaultRateLimit]),
// shared by every process using the token. Give every process the same rate.
func WithRate(rps float64) Option {
	return func(c *config) error {
		if !(rps > 0) || rps > 1e6 {
			return fmt.Errorf("ratelimit/redis: WithRate: %v is not in (0, 1e6]", rps)
		}
		c.rps = rps
		return nil
	}
}

// WithKeyPrefix sets the prefix of the limiter's Redis key (default [DefaultKeyPrefix]); the token's
// hash follows it.
func WithKeyPrefix(prefix string) Option {
	return func(c *config) error { c.prefix = prefix; return nil }
}

// WithTimeout bounds every Redis command (default [DefaultTimeout]); a command that takes longer
// counts as a Redis failure and the limiter falls back.
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("ratelimit/redis: WithTimeout: %s is not positive", d)
		}
		c.timeout = d
		return nil
	}
}

// WithRecheck sets how long the limiter uses its fallback after a Redis failure before it tries
// Redis again (default [DefaultRecheck]).
func WithRecheck(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("ratelimit/redis: WithRecheck: %s is not positive", d)
		}
		c.recheck = d
		return nil
	}
}

// WithFallback sets the limiter used while Redis fails (default: [compute.NewLimiter] at the rate,
// burst 1). With n processes, compute.NewLimiter(rate/n, 1) keeps the fleet under the account's
// rate during an outage too.
func WithFallback(l compute.Limiter) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("ratelimit/redis: WithFallback: nil Limiter")
		}
		c.fallback = l
		return nil
	}
}

// WithErrorHandler sets a function called with the error each time the limiter falls back to its
// local limiter because Redis failed or was too slow, and with nil each time Redis serves it again.
// It is called synchronously from a caller's Wait or Throttled, or from the done that reports an
// attempt's response, so it must be quick. The error names the Redis failure; it never holds the
// token.
func WithErrorHandler(h func(error)) Option {
	return func(c *config) error { c.handler = h; return nil }
}

// New returns a Limiter for token's budget in the Redis that rdb reaches (a *goredis.Client, a
// cluster or ring client). The token is only hashed, into the key; it is not kept.
func New(rdb goredis.Scripter, token string, opts ...Option) (*Limiter, error) {
	if rdb == nil {
		return nil, errors.New("ratelimit/redis: nil Redis client")
	}
	if token == "" {
		return nil, errors.New("ratelimit/redis: the API token is empty")
	}
	cfg := config{rps: compute.DefaultRateLimit, prefix: DefaultKeyPrefix, timeout: DefaultTimeout, recheck: DefaultRecheck}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.fallback == nil {
		l, err := compute.NewLimiter(cfg.rps, 1)
		if err != nil {
			return nil, err
		}
		cfg.fallback = l
	}
	return &Limiter{
		rdb:      rdb,
		keys:     []string{Key(cfg.prefix, token)},
		interval: max(1, int64(float64(time.Second/time.Microsecond)/cfg.rps)),
		timeout:  cfg.timeout,
		recheck:  cfg.recheck,
		fallback: cfg.fallback,
		handler:  cfg.handler,
		turn:     make(chan struct{}, 1),
	}, nil
}

// Key returns the Redis key of token's budget under prefix: the prefix and the hex SHA-256 of a
// domain tag and the token, from which the token cannot be recovered.
func Key(prefix, token string) string {
	sum := sha256.Sum256([]byte("compute-go ratelimit v1\x00" + token))
	return prefix + hex.EncodeToString(sum[:])
}

// String describes the limiter by its key, which does not reveal the token.
func (l *Limiter) String() string { return "redis.Limiter{" + l.keys[0] + "}" }

// Wait implements [compute.Limiter]: it blocks until Redis grants an attempt, or until the fallback
// does while Redis fails, or until ctx ends. When the next grant is further away than ctx's deadline
// it fails at once with an error that wraps [context.DeadlineExceeded]. While a 429 has armed the
// pacing from responses, the done it returns reports the attempt's response to Redis.
func (l *Limiter) Wait(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.down() {
		return l.fallback.Wait(ctx)
	}
	select {
	case l.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	g, failed, err := l.waitRedis(ctx)
	<-l.turn
	if failed {
		return l.fallback.Wait(ctx)
	}
	if err != nil || !g.armed {
		return nil, err
	}
	return func() { l.responded(context.WithoutCancel(ctx), g.seq) }, nil
}

// grant is an attempt Redis let go.
type grant struct {
	seq   int64 // its number
	armed bool  // whether the pacing from responses is armed
}

// waitRedis asks Redis for a grant until it gets one; failed reports a Redis failure, after which
// the caller waits for the fallback instead.
func (l *Limiter) waitRedis(ctx context.Context) (g grant, failed bool, err error) {
	slept := 0 // 1 once this caller slept for the wait Redis returned
	for {
		if l.down() { // another caller saw Redis fail while this one queued
			return grant{}, true, nil
		}
		r, err := l.eval(ctx, waitScript, l.interval, keyTTL.Milliseconds(), slept)
		if err == nil && (len(r) != 1 && len(r) != 3 || len(r) == 1 && r[0] <= 0) {
			err = fmt.Errorf("ratelimit/redis: unexpected reply from the script: %v", r)
		}
		if err != nil {
			if ctx.Err() != nil {
				return grant{}, false, ctx.Err()
			}
			l.fail(err)
			return grant{}, true, nil
		}
		l.ok()
		if len(r) == 3 {
			return grant{seq: r[1], armed: r[2] == 1}, false, nil
		}
		d := time.Duration(r[0]) * time.Microsecond
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
			return grant{}, false, fmt.Errorf("ratelimit/redis: the next request may go in %s, past the context deadline: %w",
				d.Round(time.Millisecond), context.DeadlineExceeded)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return grant{}, false, ctx.Err()
		case <-t.C:
		}
		slept = 1
	}
}

// responded reports to Redis that the response to grant seq arrived. It is bounded like every
// command; a failure makes the limiter fall back, as in Wait.
func (l *Limiter) responded(ctx context.Context, seq int64) {
	if l.down() {
		return
	}
	if _, err := l.eval(ctx, respondedScript, l.interval, keyTTL.Milliseconds(), seq); err != nil {
		l.fail(err)
		return
	}
	l.ok()
}

// Throttled implements [compute.Limiter]: it records the 429 in Redis, so that every process using
// the token slows down and pauses, or tells the fallback while Redis fails.
func (l *Limiter) Throttled(ctx context.Context, wait time.Duration) {
	if !l.down() {
		_, err := l.eval(context.WithoutCancel(ctx), throttledScript, l.interval, keyTTL.Milliseconds(), max(0, wait.Microseconds()))
		if err == nil {
			l.ok()
			return
		}
		l.fail(err)
	}
	l.fallback.Throttled(ctx, wait)
}

// eval runs script on the budget's key, bounded by the timeout and by ctx. The command runs in a
// goroutine of its own, so that the caller gets control back in time even when the Redis client
// does not honour the context's deadline on a connection that hangs.
func (l *Limiter) eval(ctx context.Context, script *goredis.Script, args ...any) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	type result struct {
		r   []int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := script.Run(ctx, l.rdb, l.keys, args...).Int64Slice()
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		return r.r, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("ratelimit/redis: no response from Redis within %s: %w", l.timeout, ctx.Err())
	}
}

// down reports whether Redis failed less than the recheck period ago.
func (l *Limiter) down() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Now().Before(l.downUntil)
}

// fail notes a Redis failure and reports it when it begins an outage.
func (l *Limiter) fail(err error) {
	l.mu.Lock()
	l.downUntil = time.Now().Add(l.recheck)
	report := !l.failing
	l.failing = true
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(fmt.Errorf("ratelimit/redis: falling back to the local limiter for %s: %w", l.recheck, err))
	}
}

// ok notes a Redis success and reports it when it ends an outage.
func (l *Limiter) ok() {
	l.mu.Lock()
	report := l.failing
	l.failing = false
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(nil)
	}
}
