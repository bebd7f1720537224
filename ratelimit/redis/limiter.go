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
// reaches Redis. The pacing is the one [compute.NewLimiter] describes, decided by Lua scripts on
// Redis's own clock for the whole fleet: the schedule (each grant at least an interval after the one
// before, in any process), the pacing from responses that the first 429 seen by any process turns
// on (then each attempt's response costs one more Redis command, which reports it), and the pause
// every later 429 sets for every process. A process that saw the pacing from responses on turns it
// on again in a budget that lost it (a Redis restarted empty), so that no 429 is needed to relearn
// it.
//
// # When Redis is down or slow
//
// Every Redis command is bounded by a timeout ([WithTimeout], 100 ms by default) and by the
// caller's context, whichever ends first; a caller never waits on Redis longer than that. When a
// command fails, times out or replies with something out of range, the limiter falls back to a
// local limiter and reports it once to the handler of [WithErrorHandler]. A caller's context that
// ends is always reported as the context's error, never counted as a Redis failure.
//
// While Redis answers, each limiter records itself in the budget, so that every process knows how
// many processes use the token (those that asked within the last 10 s) and its own rank among
// them. The default fallback uses them: wall-clock time is cut into slots a little longer than an
// interval at the rate, and process i of n sends only in the slots numbered i modulo n. The fleet
// then sends at most one request a slot, at most the rate together, never two processes at once,
// each at about its share of the rate. A process that never reached Redis does not know the others
// and paces alone in every slot, at about the full rate.
//
// The limiter asks Redis again at every multiple of the recheck period ([WithRecheck], 1 s by
// default) on the wall clock, so every process asks at the same instant, and it reports Redis's
// return with a nil error. Callers waiting for the fallback leave it then and ask Redis too, so the
// whole fleet is back on the shared budget within a recheck period of Redis answering again, even
// when Redis restarts empty. So that no two requests of the fleet go out less than an interval
// apart across these switches, the fallback grants nothing in the last slot before each recheck
// instant, nor within a slot and a quarter interval of the failure (Redis's last grants may still
// be due then); a process never goes faster than the rate.
//
// The slots and the rechecks need the processes' clocks to agree, to well within an interval:
// processes on one host, or on hosts synchronised by NTP. With [WithFallback], the fallback
// replaces the slots (a caller waits for it with a context that ends before the recheck instant,
// so it must honour its context's deadline, as [compute.NewLimiter] does); the rechecks and the
// quiet times around them stay.
//
// # Redis must be trusted
//
// The limiter checks every reply of its scripts and bounds every command in time, but the Redis
// client (go-redis) reads whatever reply size a server announces, so a hostile or broken Redis can
// make a process allocate as much memory as it claims to send, and it can stall every process's
// requests (within each caller's context). Use a Redis you run for this fleet, as you would for any
// shared state.
package redis

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
	goredis "github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// Defaults applied by [New].
const (
	// DefaultKeyPrefix starts every key the limiter writes.
	DefaultKeyPrefix = "compute-go:ratelimit:"
	// DefaultTimeout bounds every Redis command.
	DefaultTimeout = 100 * time.Millisecond
	// DefaultRecheck is the period at whose multiples a limiter on its fallback tries Redis again.
	DefaultRecheck = time.Second
)

// keyTTL is how long a budget's state outlives its last use.
const keyTTL = 10 * time.Minute

// pollEvery is how often, in intervals, a caller held for a response that has not arrived asks
// Redis again.
const pollEvery = 0.05

// ahead is how long before its due time, in intervals, a grant may be reserved. A grant reserved
// earlier would go out even if a 429 paused the fleet or armed the pacing from responses in
// between; one reserved just ahead still leaves on time although Redis answers late.
const ahead = 0.25

// maxReply bounds every wait a script may reply with; a longer one (or a negative one) is a broken
// or hostile Redis, and the limiter falls back.
const maxReply = 24 * time.Hour

// memberWindow is how long a limiter counts as one of the budget's processes after it last asked
// Redis for a grant.
const memberWindow = 10 * time.Second

// maxMembers bounds the count of processes a reply may give; a larger one is a broken Redis.
const maxMembers = 1 << 16

// scriptHeader starts every script: the pacing's constants, from the compute package, and the
// arguments every script takes. A budget is one hash, in microseconds of Redis's clock: tat (when
// the schedule's next grant is due), until (the pause ends), armed (the pacing from responses is
// on), seq and sent (the last grant and when it was due), resp (when its response was reported)
// and minrtt (the fastest round trip from a grant to its response's report). ARGV[1] is the time
// to use instead of Redis's clock (empty but in tests), ARGV[2] the interval at the rate and
// ARGV[3] the key's time to live in milliseconds. ARGV[5] is the limiter's member id, and ARGV[6]
// is 1 when the limiter saw the pacing from responses on: a budget that lost it (a Redis restarted
// empty) turns it on again.
var scriptHeader = fmt.Sprintf(`
local HEADROOM, HOLD, POLL, AHEAD = %v, %v, %v, %v
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local step = tonumber(ARGV[2]) * (1 + HEADROOM)
`, compute.PacingHeadroom, compute.PacingHold, pollEvery, ahead)

// waitScript asks for a grant. ARGV[4] is the longest the caller can wait (-1 for no deadline). It
// first records the caller's process as a member of the budget (a field "m:" and its id, holding
// when it last asked; one silent for longer than the window is dropped). It replies {0, the wait
// until the grant is due, its number, 1 if the pacing from responses is on} and reserves it; or
// {1, the pause left}, {2, the hold of the pacing from responses, or the wait until the grant may
// be reserved}, after which the caller asks again; or {3, the wait}, reserving nothing, when the
// grant is due past ARGV[4]. Every reply ends with the count of members and the caller's rank
// among them by id.
var waitScript = goredis.NewScript(scriptHeader + fmt.Sprintf(`
local WINDOW = %d
local me = 'm:' .. ARGV[5]
redis.call('HSET', KEYS[1], me, now)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local fields = redis.call('HGETALL', KEYS[1])
local n, rank = 0, 0
for j = 1, #fields, 2 do
  local f = fields[j]
  if string.sub(f, 1, 2) == 'm:' then
    if tonumber(fields[j + 1]) < now - WINDOW then
      redis.call('HDEL', KEYS[1], f)
    else
      n = n + 1
      if f < me then rank = rank + 1 end
    end
  end
end
local s = redis.call('HMGET', KEYS[1], 'tat', 'until', 'armed', 'seq', 'sent', 'resp', 'minrtt')
if ARGV[6] == '1' and not s[3] then
  redis.call('HSET', KEYS[1], 'armed', 1)
  s[3] = '1'
end
local pause = (tonumber(s[2]) or 0) - now
if pause > 0 then return {1, math.ceil(pause), n, rank} end
if s[3] and s[7] then
  local hold = tonumber(s[5]) + step * (1 + HOLD) - now
  if s[6] then
    hold = math.min(hold, tonumber(s[6]) + step - tonumber(s[7]) - now)
  else
    hold = math.min(hold, math.max(1000, step * POLL))
  end
  if hold > 0 then return {2, math.ceil(hold), n, rank} end
end
local at = math.max(tonumber(s[1]) or 0, now)
if tonumber(ARGV[4]) >= 0 and at - now > tonumber(ARGV[4]) then return {3, math.ceil(at - now), n, rank} end
local early = math.floor(at - now - step * AHEAD)
if early > 0 then return {2, early, n, rank} end
local seq = (tonumber(s[4]) or 0) + 1
redis.call('HSET', KEYS[1], 'tat', math.floor(at + step), 'seq', seq, 'sent', math.floor(at))
redis.call('HDEL', KEYS[1], 'resp')
if s[3] then return {0, math.ceil(at - now), seq, 1, n, rank} end
return {0, math.ceil(at - now), seq, 0, n, rank}
`, memberWindow.Microseconds()))

// respondedScript reports that the response to grant ARGV[4] arrived; only the last grant's counts.
var respondedScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'seq', 'sent', 'resp', 'minrtt')
if tonumber(s[1]) ~= tonumber(ARGV[4]) or s[3] then return {0} end
local rtt = math.max(0, now - tonumber(s[2]))
redis.call('HSET', KEYS[1], 'resp', now, 'minrtt', math.min(rtt, tonumber(s[4]) or rtt))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {0}
`)

// throttledScript reports a 429 whose request waits ARGV[4]: the first turns the pacing from
// responses on and replies {0, 0}; a later one pauses every process and replies {1, the pause left}.
var throttledScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'armed', 'until')
if not s[1] and ARGV[6] ~= '1' then
  redis.call('HSET', KEYS[1], 'armed', 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {0, 0}
end
local untilv = math.max(tonumber(s[2]) or 0, now + tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'armed', 1, 'until', untilv)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, math.ceil(untilv - now)}
`)

// Limiter is a [compute.Limiter] whose budget lives in Redis. Build it with [New] and pass it to
// every client that uses the token, in every process, with [compute.WithLimiter]. It is safe for
// concurrent use.
type Limiter struct {
	rdb      goredis.Scripter
	keys     []string
	member   string // this limiter's id among the budget's processes
	interval int64  // microseconds, at the rate
	slot     time.Duration
	timeout  time.Duration
	recheck  time.Duration   // rechecks are at the multiples of it since the Unix epoch
	guard    time.Duration   // from a Redis failure to the first fallback grant
	fallback compute.Limiter // WithFallback's; nil for the grid
	grid     *grid           // the default fallback; nil with WithFallback
	handler  func(error)
	// ceiling holds this process to the rate whichever way it is paced, so that switching between
	// Redis and the fallback never makes a burst.
	ceiling *rate.Limiter
	// clock is the time the scripts use, in microseconds; "" for Redis's own clock (tests set one).
	clock func() string

	// turn lets one goroutine of this process at a time ask Redis for a grant and wait until it is
	// due; the others queue here, so Redis sees one waiter per process.
	turn chan struct{}
	// fturn lets one goroutine at a time wait for the fallback; the others queue here in order,
	// also across a recheck that finds Redis still failing.
	fturn chan struct{}

	mu         sync.Mutex
	seen       bool // Redis answered at least once
	armed      bool // Redis said the pacing from responses is on
	failing    bool
	downUntil  time.Time // Redis is not asked again before this recheck instant
	fallFrom   time.Time // the fallback grants nothing before this
	pauseUntil time.Time // the last pause Redis reported ends
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

// WithRecheck sets the period at whose multiples on the wall clock a limiter on its fallback tries
// Redis again (default [DefaultRecheck]); a period shorter than two intervals at the rate (and the
// margin of the slots) counts as that. Give every process the same period.
func WithRecheck(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("ratelimit/redis: WithRecheck: %s is not positive", d)
		}
		c.recheck = d
		return nil
	}
}

// WithFallback replaces the default fallback, the slots the package doc describes, with l while
// Redis fails. l's Wait must honour its context's deadline. Unlike the slots, n such limiters fire
// in step: even compute.NewLimiter(rate/n, 1) in each of n processes keeps the fleet under the
// account's rate on average but sends bursts of n requests, which a service that allows no burst
// refuses.
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
	interval := max(1, int64(float64(time.Second/time.Microsecond)/cfg.rps))
	slot := time.Duration(float64(interval)*(1+gridMargin)) * time.Microsecond
	step := float64(interval) * (1 + compute.PacingHeadroom)
	l := &Limiter{
		rdb:      rdb,
		keys:     []string{Key(cfg.prefix, token)},
		member:   rand.Text(),
		interval: interval,
		slot:     slot,
		timeout:  cfg.timeout,
		recheck:  max(cfg.recheck, 2*slot),
		guard:    time.Duration(step*ahead)*time.Microsecond + slot,
		fallback: cfg.fallback,
		handler:  cfg.handler,
		ceiling:  rate.NewLimiter(rate.Limit(cfg.rps), 1),
		clock:    func() string { return "" },
		turn:     make(chan struct{}, 1),
		fturn:    make(chan struct{}, 1),
	}
	if l.fallback == nil {
		l.grid = newGrid(slot)
	}
	return l, nil
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
// does while Redis fails, or until ctx ends. When the next grant, or a pause, ends after ctx's
// deadline it fails at once with an error that wraps [context.DeadlineExceeded] (and, for a pause,
// [compute.ErrRateLimited]). While the pacing from responses is on, the done it returns reports
// the attempt's response to Redis.
func (l *Limiter) Wait(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	pause := time.Until(l.pauseUntil)
	l.mu.Unlock()
	if err := pastDeadline(ctx, pause); err != nil {
		return nil, err // before queueing behind a caller that waits the pause out
	}
	return l.wait(ctx)
}

// paced waits until the ceiling lets this process send.
func (l *Limiter) paced(ctx context.Context) error {
	if err := l.ceiling.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("ratelimit/redis: %w", context.DeadlineExceeded)
	}
	return nil
}

// wait waits for a grant from Redis, or from the fallback while Redis fails. A caller on the
// fallback goes back to Redis at the next recheck instant, whether or not the fallback granted it.
func (l *Limiter) wait(ctx context.Context) (func(), error) {
	for {
		if !l.down() {
			select {
			case l.turn <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			g, failed, err := l.waitRedis(ctx)
			if err == nil && !failed {
				err = sleep(ctx, g.wait)
			}
			<-l.turn
			if !failed {
				if err == nil {
					err = l.paced(ctx)
				}
				if err != nil || !g.armed {
					return nil, err
				}
				return func() { l.responded(context.WithoutCancel(ctx), g.seq) }, nil
			}
		}
		done, err := l.waitFallback(ctx)
		if err != errRecheck {
			return done, err
		}
	}
}

// waitFallback waits for the fallback until the last slot before the next recheck instant: no
// grant before the guard after the failure, when Redis's last grants may still be due, nor in
// the slot before the recheck, when Redis's first grant may be due. It returns errRecheck at
// that instant when the fallback did not grant, holding the others' turn until then, so that
// they keep their order.
func (l *Limiter) waitFallback(ctx context.Context) (func(), error) {
	if l.grid != nil {
		if err := l.grid.pastDeadline(ctx); err != nil {
			return nil, err // before queueing behind a caller that waits the pause out
		}
	}
	select {
	case l.fturn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.fturn }()
	l.mu.Lock()
	recheck, from := l.downUntil, l.fallFrom
	l.mu.Unlock()
	if !time.Now().Before(recheck) {
		return nil, errRecheck // Redis's turn
	}
	cutoff := recheck.Add(-l.slot)
	var done func()
	var err error
	if l.grid != nil {
		// The slots are farther apart than the ceiling's interval, and the first comes a slot
		// after Redis's last grant: the ceiling never delays one.
		if err = l.grid.wait(ctx, from, cutoff); err == nil {
			err = l.paced(ctx)
		}
	} else {
		done, err = l.waitCustom(ctx, from, cutoff)
	}
	if err == errRecheck {
		if err := sleep(ctx, time.Until(recheck)); err != nil {
			return nil, err
		}
	}
	return done, err
}

// waitCustom waits for the fallback of WithFallback, then the ceiling, with a context that ends
// at cutoff, and returns errRecheck when that ended the wait (a limiter that honours its
// context's deadline consumes nothing for a wait it refused or gave up; a grant that the ceiling
// would delay past cutoff is dropped).
func (l *Limiter) waitCustom(ctx context.Context, from, cutoff time.Time) (func(), error) {
	if !time.Now().Before(cutoff) || !from.Before(cutoff) {
		return nil, errRecheck
	}
	if err := sleep(ctx, time.Until(from)); err != nil {
		return nil, err
	}
	fctx, cancel := context.WithDeadline(ctx, cutoff)
	defer cancel()
	done, err := l.fallback.Wait(fctx)
	if err == nil {
		if err = l.paced(fctx); err == nil {
			return done, nil
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if deadline, ok := ctx.Deadline(); (!ok || deadline.After(cutoff)) && errors.Is(err, context.DeadlineExceeded) {
		return nil, errRecheck
	}
	return nil, err
}

// grant is an attempt Redis let go.
type grant struct {
	wait  time.Duration // until it is due
	seq   int64         // its number
	armed bool          // whether the pacing from responses is on
}

// waitRedis asks Redis for a grant until it gets one; failed reports a Redis failure, after which
// the caller waits for the fallback instead.
func (l *Limiter) waitRedis(ctx context.Context) (g grant, failed bool, err error) {
	for {
		if l.down() { // another caller saw Redis fail while this one queued
			return grant{}, true, nil
		}
		maxWait := int64(-1)
		if deadline, ok := ctx.Deadline(); ok {
			maxWait = max(0, time.Until(deadline).Microseconds())
		}
		r, err := l.eval(ctx, waitScript, maxWait)
		if err != nil {
			if ctx.Err() != nil {
				return grant{}, false, ctx.Err()
			}
			l.fail(err)
			return grant{}, true, nil
		}
		l.ok()
		if r[0] == 0 && r[3] == 1 {
			l.sawArmed()
		}
		if l.grid != nil {
			l.grid.member(r[len(r)-2], r[len(r)-1], r[0] == 0 && r[3] == 1)
		}
		d := time.Duration(r[1]) * time.Microsecond
		switch r[0] {
		case 0:
			return grant{wait: d, seq: r[2], armed: r[3] == 1}, false, nil
		case 1:
			l.paused(d)
			if err := pastDeadline(ctx, d); err != nil {
				return grant{}, false, err
			}
		case 3:
			return grant{}, false, fmt.Errorf("ratelimit/redis: the next request may go in %s, past the context deadline: %w",
				d.Round(time.Millisecond), context.DeadlineExceeded)
		}
		if err := sleep(ctx, d); err != nil { // a pause or a hold: ask again after it
			return grant{}, false, err
		}
	}
}

// checkReply refuses a reply that script never sends: a broken Redis, or one that is not ours.
// waitScript sends {0, a wait, a grant number > 0, 0 or 1}, {1, a pause}, {2, a hold}, and {3, a
// wait} only past the caller's longest wait, its argument arg (-1 for none), each followed by a
// count of members from 1 to maxMembers and a rank below it; throttledScript {0, 0} and {1, a
// pause}; respondedScript {0}. Every wait and pause is from 0 to maxReply.
func checkReply(script *goredis.Script, r []int64, arg int64) error {
	inRange := len(r) >= 2 && r[1] >= 0 && r[1] <= maxReply.Microseconds()
	ok := false
	switch script {
	case respondedScript:
		ok = len(r) == 1 && r[0] == 0
	case throttledScript:
		ok = inRange && len(r) == 2 && (r[0] == 0 && r[1] == 0 || r[0] == 1)
	case waitScript:
		k := len(r) - 2 // the members follow the reply
		if !inRange || k < 2 || r[k] < 1 || r[k] > maxMembers || r[k+1] < 0 || r[k+1] >= r[k] {
			break
		}
		switch r[0] {
		case 0:
			ok = k == 4 && r[2] > 0 && (r[3] == 0 || r[3] == 1)
		case 1, 2: // the script rounds a pause or a hold up: never 0
			ok = k == 2 && r[1] > 0
		case 3:
			ok = k == 2 && arg >= 0 && r[1] > arg
		}
	}
	if !ok {
		return fmt.Errorf("ratelimit/redis: a reply no script sends: %v", r[:min(len(r), 6)])
	}
	return nil
}

// pastDeadline fails when a pause of d outlasts ctx's deadline.
func pastDeadline(ctx context.Context, d time.Duration) error {
	if deadline, ok := ctx.Deadline(); ok && d > 0 && time.Until(deadline) < d {
		return fmt.Errorf("ratelimit/redis: the service asked for a pause of %s, past the context deadline: %w (%w)",
			d.Round(time.Millisecond), compute.ErrRateLimited, context.DeadlineExceeded)
	}
	return nil
}

// paused notes a pause of d that Redis reported.
func (l *Limiter) paused(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := time.Now().Add(d); t.After(l.pauseUntil) {
		l.pauseUntil = t
	}
}

// responded reports to Redis that the response to grant seq arrived. It is bounded like every
// command; a failure makes the limiter fall back, as in Wait.
func (l *Limiter) responded(ctx context.Context, seq int64) {
	if l.down() {
		return
	}
	if _, err := l.eval(ctx, respondedScript, seq); err != nil {
		l.fail(err)
		return
	}
	l.ok()
}

// Throttled implements [compute.Limiter]: it records the 429 in Redis, so that every process using
// the token turns the pacing from responses on, or pauses, or tells the fallback while Redis fails.
func (l *Limiter) Throttled(ctx context.Context, wait time.Duration) {
	if !l.down() {
		r, err := l.eval(context.WithoutCancel(ctx), throttledScript, max(0, wait.Microseconds()))
		if err == nil {
			l.ok()
			l.sawArmed() // the 429 armed the budget, or it was
			if r[0] == 1 {
				l.paused(time.Duration(r[1]) * time.Microsecond)
			}
			return
		}
		l.fail(err)
	}
	if l.grid != nil {
		l.grid.throttled(wait)
		return
	}
	l.fallback.Throttled(ctx, wait)
}

// eval runs script on the budget's key with the clock, the interval and the key's time to live
// before arg, its own argument, bounded by the timeout and by ctx, and refuses a reply the script
// never sends (checkReply). The command runs in a goroutine of its own, so that the caller gets
// control back in time even when the Redis client does not honour the context's deadline on a
// connection that hangs.
func (l *Limiter) eval(ctx context.Context, script *goredis.Script, arg int64) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	type result struct {
		r   []int64
		err error
	}
	done := make(chan result, 1)
	l.mu.Lock()
	armed := 0
	if l.armed {
		armed = 1
	}
	l.mu.Unlock()
	args := []any{l.clock(), l.interval, keyTTL.Milliseconds(), arg, l.member, armed}
	go func() {
		r, err := script.Run(ctx, l.rdb, l.keys, args...).Int64Slice()
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return r.r, checkReply(script, r.r, arg)
	case <-ctx.Done():
		return nil, fmt.Errorf("ratelimit/redis: no response from Redis within %s: %w", l.timeout, ctx.Err())
	}
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// down reports whether Redis failed since the last recheck instant.
func (l *Limiter) down() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Now().Before(l.downUntil)
}

// fail notes a Redis failure: Redis is asked again at the next recheck instant, the same in every
// process. A failure that begins an outage is reported, and when Redis answered before, the
// fallback grants nothing until the guard has passed.
func (l *Limiter) fail(err error) {
	l.mu.Lock()
	now := time.Now()
	p := int64(l.recheck)
	l.downUntil = time.Unix(0, (now.UnixNano()/p+1)*p)
	report := !l.failing
	if report && l.seen {
		l.fallFrom = now.Add(l.guard)
	}
	l.failing = true
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(fmt.Errorf("ratelimit/redis: falling back to the local limiter, trying Redis again every %s: %w", l.recheck, err))
	}
}

// sawArmed notes that the budget's pacing from responses is on.
func (l *Limiter) sawArmed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = true
}

// ok notes a Redis success and reports it when it ends an outage.
func (l *Limiter) ok() {
	l.mu.Lock()
	report := l.failing
	l.failing = false
	l.seen = true
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(nil)
	}
}
