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
// Redis's own clock for the whole fleet: the schedule (each grant at least an interval after the
// one before, in any process), the pacing from responses that the first 429 seen by any process
// turns on (or the first request, with [WithResponsePacing]; see below), and the pause and the
// widening of the spacing every later 429 sets for every process. A process that saw the pacing
// from responses on turns it on again in a budget that lost it (a Redis restarted empty), so that
// no 429 is needed to relearn it. The limiter is also a [compute.ListBoard], whose keys start with
// the budget's (see [Limiter.Post]).
//
// Each attempt costs one more Redis command, which reports, as soon as it happens, that the
// attempt's request was written, how late past its turn, and whether on a new connection. The next
// grant, in any process, waits for that report (up to a second past the last grant's due time, so
// that a process that died holds nobody longer) and counts from the write, not from the turn: an
// interval and [compute.PacingMargin] after it, before the first 429 as after it (then the pacing
// from responses may hold it longer). A request that a busy process writes late delays the next
// one by its lateness, as in [compute.NewLimiter] with a burst of one, before the first 429 as
// after it. After a request on a new connection, which the service reads only once it has
// accepted the connection, the next grant waits for its response and an interval and the margin
// after it (at most [compute.PacingHoldLate] of an interval past its due time); that response is
// reported with a second command, as every response is while the pacing from responses is on. A
// process whose client never says when it writes (a transport without the standard trace hooks)
// is not waited for.
//
// # When Redis is down or slow
//
// Every Redis command is bounded by a timeout ([WithTimeout], 100 ms by default) and by the
// caller's context, whichever ends first; a caller never waits on Redis longer than that. When a
// command fails, times out or replies with something out of range, the limiter falls back to a
// local limiter and reports it once to the handler of [WithErrorHandler]. A caller's context that
// ends is always reported as the context's error, never counted as a Redis failure. A limiter on
// its fallback asks Redis again at every multiple of the recheck period ([WithRecheck], 1 s by
// default) on the wall clock, without holding its callers, and they go back to Redis as soon as
// it answers.
//
// The default fallback needs no setting. Wall-clock time is cut into slots a quarter longer than an
// interval at the rate, the same in every process; while Redis answers, each process renews its
// membership of the budget ten times a second, from a second after its first Wait (a process
// that lives less, a command-line run, never joins), and Redis gives each member its own share of
// the slots, which no other member may hold (a process alone holds them all). On its fallback, a
// process sends only in its own slots, and gives a slot up when it wakes for it too late to leave
// an interval before the next process's (a busy machine); Redis keeps every grant it makes a slot away from the slots
// of a member that may be on its fallback (each member promises, while it renews, how long it will
// not use them, and Redis lends them to the others only until then) and from every fallback grant
// a member reported. So, whatever mix of processes is on Redis and on their fallbacks, a stall
// that only one process sees and members coming and going included:
//
//   - no two requests of the fleet go out less than an interval apart, and together they stay
//     under the rate;
//   - a process alone keeps its whole rate through an outage, less the timeout once; a process
//     among n keeps its share of the slots, once its promise has run out (a fifth of a second and
//     three slots after its last renewal);
//   - a process that joined moments before an outage, before the others made room for it, holds
//     no slot yet and sends nothing until Redis is back.
//
// A limiter leaves the budget at [Limiter.Close], or when nobody waited on it for a minute; a
// process that exits without Close leaves 3 s later (counted while Redis serves the others: no
// member ages out through an outage), and its share goes to the others.
//
// These hold when the processes' clocks agree with each other and with Redis's, to well within an
// interval (one host, or hosts kept in time by NTP), and every process uses the same rate and
// recheck period. They do not hold for a process that has no share and knows of no other process
// (one in its first second, one that never reached Redis, or one that left and was alone when it
// last asked: it paces alone, at the rate; one that has no share but knows of others sends nothing
// until Redis is back), for one cut off from Redis for more than 3 s while the others reach it
// (Redis gives its slots away), nor, within 6 s and a recheck period of Redis restarting empty,
// for a process that first reaches it then (the others may still be on their fallbacks), nor for
// one still on its fallback after that (Redis gives its slots away).
// With [WithFallback], the fallback replaces the slots: the rechecks, the promise and the
// reported grants stay, but what the fleet holds is what that limiter holds.
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
	"strconv"
	"sync"
	"sync/atomic"
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

// keyTTL is how long a budget's state outlives its last use. It is long, so that a budget Redis
// lost (restarted empty) is told from one nobody used for a while.
const keyTTL = 24 * time.Hour

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

// memberWindow is how long a process stays a member of the budget after its last heartbeat, in
// time during which Redis served the others: a process that exited without Close leaves then.
const memberWindow = 3 * time.Second

// upGap is the longest silence of Redis that still counts towards memberWindow: a longer one is an
// outage (or an idle fleet), and no member ages out through it.
const upGap = time.Second

// heartbeatEvery is how often a member renews its promise and learns its slots.
const heartbeatEvery = 100 * time.Millisecond

// idleLeave is how long a limiter nobody waits on stays a member before it leaves the budget.
const idleLeave = time.Minute

// joinAfter is how long after its first Wait a limiter joins the budget: a short-lived process (a
// command-line run of a few requests) never joins, so that it never holds slots the others would
// have to keep clear of after it exits.
const joinAfter = time.Second

// recoverFor is how long past the first recheck instant after Redis lost the budget the slots
// nobody reported holding stay reserved: a process on its fallback may take a few recheck periods
// to reach Redis again (a Redis client waits between its dials after a run of failed ones).
const recoverFor = 2 * memberWindow

// frame is how many slots the wall clock's slots repeat after: a member holds a set of the slots
// of a frame, and the same ones in every frame.
const frame = 240

// maxMembers bounds the count of processes a reply may give; a larger one is a broken Redis.
const maxMembers = 1 << 16

// scriptHeader starts every script: the pacing's constants, from the compute package, and the
// arguments every script takes. A budget is one hash, in microseconds of Redis's clock: tat (when
// the schedule's next grant is due), until (the pause ends), armed (the pacing from responses is
// on), seq and sent (the last grant and when it was due), resp (when its response was reported),
// minrtt (the fastest round trip from a grant to its response's report), late and lateat (the
// allowance for late responses and when it was set), wpend (the last grant, when its write will be
// reported and the next grant waits for it), wseq (the last grant whose write was reported: its
// sent is the write), wide and wat (the spacing's widening and when it was set), epoch (when the
// budget was created) and recover (until when, after Redis lost the budget, slots nobody reported holding stay reserved: recoverFor past
// the next recheck instant), and one record
// per member ("p:" id, "h:" id and "s:" id: see memberScript). ARGV[1] is the time to use instead
// of Redis's clock (empty but in tests), ARGV[2] the interval at the rate, ARGV[3] the key's time
// to live in milliseconds, ARGV[4] the script's own argument, ARGV[5] the limiter's member id,
// ARGV[6] is 1 when the limiter saw the pacing from responses on (a budget that lost it, a Redis
// restarted empty, turns it on again), ARGV[7] the slot's length, ARGV[8] the budget's epoch as
// the limiter last learned it (empty before), ARGV[9] the recheck period and ARGV[10] the timeout.
var scriptHeader = fmt.Sprintf(`
local HEADROOM, HOLD, POLL, AHEAD, LATE, SHARE = %v, %v, %v, %v, %v, %v
local WIDEN, WIDENMAX, NARROW, GRID, F, RECOVER, MAXLAG, MARGIN = %v, %v, %d, %v, %d, %d, %d, %v
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local interval = tonumber(ARGV[2])
local S = tonumber(ARGV[7]) or math.floor(interval * (1 + GRID))
local R = tonumber(ARGV[9]) or 1000000
local TO = tonumber(ARGV[10]) or 100000
local function num(x) return string.format('%%.0f', x) end
-- the budget's epoch; a limiter that knew another one tells that Redis lost the budget, and the
-- slots nobody reports holding stay reserved until every process on its fallback asked again
local function budget()
  local st = redis.call('HMGET', KEYS[1], 'epoch', 'recover')
  local epoch = tonumber(st[1])
  if not epoch then
    epoch = now
    redis.call('HSET', KEYS[1], 'epoch', num(epoch))
  end
  local recover = tonumber(st[2]) or 0
  local known = tonumber(ARGV[8])
  if known and known ~= epoch and not st[2] then
    recover = (math.floor(now / R) + 1) * R + 2 * TO + RECOVER
    redis.call('HSET', KEYS[1], 'recover', num(recover))
  end
  return epoch, recover
end
-- the spacing: an interval and the headroom, widened by the 429s after the first
local function spacing()
  local w = redis.call('HMGET', KEYS[1], 'wide', 'wat')
  local wide = math.max(0, (tonumber(w[1]) or 0) - WIDEN * interval * (now - (tonumber(w[2]) or now)) / NARROW)
  return interval * (1 + HEADROOM) + wide, wide
end
-- the members: id -> {seen, promise, fb1, fb2, cseq, h, s}
local function members()
  local fields = redis.call('HGETALL', KEYS[1])
  local recs, bits = {}, {}
  for j = 1, #fields, 2 do
    local f, v = fields[j], fields[j + 1]
    local p, id = string.sub(f, 1, 2), string.sub(f, 3)
    if p == 'p:' then
      local a, b, c, d, e = string.match(v, '^(%%-?%%d+) (%%-?%%d+) (%%-?%%d+) (%%-?%%d+) (%%-?%%d+)$')
      if a then
        recs[id] = {seen = tonumber(a), promise = tonumber(b), fb1 = tonumber(c), fb2 = tonumber(d), cseq = tonumber(e)}
      end
    elseif p == 'h:' or p == 's:' then
      bits[f] = v
    end
  end
  for id, r in pairs(recs) do
    r.h, r.s = bits['h:' .. id] or '', bits['s:' .. id] or ''
  end
  return recs
end
-- whether member r may hold slot i (from 1) of the frame
local function holds(r, i)
  return string.byte(r.h, i) == 49 or string.byte(r.s, i) == 49
end
-- the count of members and the rank of me among them by id, me counted
local function ranked(recs, me)
  local n, rank = 0, 0
  for id in pairs(recs) do
    if id ~= me then
      n = n + 1
      if id < me then rank = rank + 1 end
    end
  end
  return n + 1, rank
end
`, compute.PacingHeadroom, compute.PacingHold, pollEvery, ahead, compute.PacingHoldLate, compute.PacingHoldShare,
	compute.PacingWiden, compute.PacingWidenMax, compute.PacingNarrow.Microseconds(), gridMargin, frame, recoverFor.Microseconds(),
	maxLag.Microseconds(), compute.PacingMargin)

// waitScript asks for a grant. ARGV[4] is the longest the caller can wait (-1 for no deadline),
// ARGV[11] when it first asked for this grant (what it waited past the quarter interval for a late
// response comes out of the allowance for late responses), ARGV[12] '1' when the caller will report
// the grant's write (writtenScript). While the pacing from responses is on, a grant waits for the
// report of the last grant's write when one is coming, until its response or MAXLAG past its due
// time, then for its response as the pacing says, counted from the write. It replies {0, the wait
// until the grant is due, its number, 1 if the pacing from responses is on} and reserves it; or {1, the pause left}, {2, the hold of the pacing from responses, or the wait
// until the grant may be reserved}, after which the caller asks again; or {3, the wait}, reserving
// nothing, when the grant is due past ARGV[4]. Every reply ends with the count of members and the
// caller's rank among them by id. A grant is never due within a slot of a time a member may send
// on its fallback: the last two fallback grants each member reported, and the slots it may hold
// from when its promise ends; nor, while the budget recovers, of the slots nobody reported holding.
var waitScript = goredis.NewScript(scriptHeader + `
local epoch, recover = budget()
local recs = members()
local me = ARGV[5]
local n, rank = ranked(recs, me)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local s = redis.call('HMGET', KEYS[1], 'tat', 'until', 'armed', 'seq', 'sent', 'resp', 'minrtt', 'late', 'lateat',
  'wpend', 'wseq', 'wfresh')
if ARGV[6] == '1' and not s[3] then
  redis.call('HSET', KEYS[1], 'armed', 1)
  s[3] = '1'
end
local step = spacing()
local pause = (tonumber(s[2]) or 0) - now
if pause > 0 then return {1, math.ceil(pause), n, rank} end
-- the allowance for late responses: how much longer than HOLD past its due time a grant may wait
-- for the last response, the share SHARE of the time since it was last spent, up to LATE
local allowance = step * (LATE - HOLD)
local lat = tonumber(s[9])
if lat then allowance = math.min(allowance, (tonumber(s[8]) or 0) + SHARE * math.max(0, now - lat)) end
-- the last grant's request is not written yet (nor did its response come): hold the next grant,
-- asking again soon, until the write is reported, but at most MAXLAG past the grant's due time
local last = tonumber(s[4])
if last and not s[6] and tonumber(s[10]) == last and tonumber(s[11]) ~= last then
  local hold = tonumber(s[5]) + MAXLAG - now
  if hold > 0 then return {2, math.ceil(math.min(hold, math.max(1000, step * POLL))), n, rank} end
end
-- the last grant's write was reported (its sent is the write), and it went on a new connection
local wrote = last and tonumber(s[11]) == last
local fresh = wrote and tonumber(s[12]) == last
local waited = 0
if fresh then
  -- the service reads a request on a new connection later than its write: wait for its response,
  -- and space from there, but at most LATE past the grant's due time
  local ends = tonumber(s[5]) + step * (1 + LATE)
  if s[6] then ends = math.min(ends, math.floor(tonumber(s[6]) + step * (1 + MARGIN))) end
  local hold = ends - now
  if not s[6] then hold = math.min(hold, math.max(1000, step * POLL)) end
  if hold > 0 then return {2, math.ceil(hold), n, rank} end
elseif s[3] and s[7] then
  local base = tonumber(s[5]) + step * (1 + HOLD)
  local ends = base + allowance
  if s[6] then ends = math.min(ends, tonumber(s[6]) + step - tonumber(s[7])) end
  local hold = ends - now
  if not s[6] then hold = math.min(hold, math.max(1000, step * POLL)) end
  if hold > 0 then return {2, math.ceil(hold), n, rank} end
  -- what the caller waited past HOLD for the last response (it asked first at ARGV[11])
  waited = math.max(0, math.min(now, ends) - math.max(base, tonumber(ARGV[11]) or now))
end
local recovering = now < recover
-- the time from which at is clear of every time a member may send on its fallback, or nil
local function clear(at)
  for _, r in pairs(recs) do
    if r.fb1 > 0 and math.abs(at - r.fb1) < S then return r.fb1 + S end
    if r.fb2 > 0 and math.abs(at - r.fb2) < S then return r.fb2 + S end
  end
  local k = math.floor(at / S)
  for kk = k, k + 1 do
    local start = kk * S
    if math.abs(at - start) < S then
      local i = kk % F + 1
      local held = false
      for id, r in pairs(recs) do
        if holds(r, i) then
          held = true
          if id ~= me and r.promise < start + S then return start + S end
        end
      end
      if recovering and not held then return start + S end
    end
  end
  return nil
end
local at = math.max(tonumber(s[1]) or 0, now)
-- the schedule counts from the last write, an interval and the margin after it, before the first
-- 429 as after it: the pacing from responses alone lets a grant go an interval after the write
-- when the last round trip was the fastest (a budget's first responses, a Redis restarted empty)
if wrote and not fresh then at = math.max(at, math.floor(tonumber(s[5]) + step * (1 + MARGIN))) end
local moves = 0
while true do
  local later = clear(at)
  if not later then break end
  at = later
  moves = moves + 1
  if moves > 2 * F then return {2, math.ceil(S), n, rank} end
end
if tonumber(ARGV[4]) >= 0 and at - now > tonumber(ARGV[4]) then return {3, math.ceil(at - now), n, rank} end
local early = math.floor(at - now - step * AHEAD)
if early > 0 then return {2, early, n, rank} end
local seq = (tonumber(s[4]) or 0) + 1
redis.call('HSET', KEYS[1], 'tat', num(math.floor(at + step)), 'seq', seq, 'sent', num(math.floor(at)),
  'late', num(math.max(0, allowance - waited)), 'lateat', num(now))
redis.call('HDEL', KEYS[1], 'resp')
if ARGV[12] == '1' then
  redis.call('HSET', KEYS[1], 'wpend', seq) -- the next grant waits for this one's write
else
  redis.call('HDEL', KEYS[1], 'wpend')
end
if s[3] then return {0, math.ceil(at - now), seq, 1, n, rank} end
return {0, math.ceil(at - now), seq, 0, n, rank}
`)

// memberScript records a member's heartbeat, and assigns it the slots it may send in on its
// fallback. ARGV[11] numbers the member's commands (one that comes after a later one is refused:
// {1, 0, 0, the epoch, ""}), ARGV[12] is the slots it holds, a '0' or '1' for each slot of the
// frame, ARGV[13] its promise (it sends nothing on its fallback before that time; 0 when it is on
// its fallback), ARGV[14] and ARGV[15] its last two fallback grants (0 for none), and ARGV[16] is
// 'r' for a heartbeat, 'p' for one sent on the fallback, 'l' when the member leaves. A member
// silent for memberWindow of the time Redis served the others (its up-time: a silence of Redis
// longer than upGap does not count) is dropped. It replies {0, the count of members, the member's
// rank by id, the epoch, the slots it may hold}: those of its slots (slot i of the frame is the
// member's whose rank is i modulo the count) that it holds already, or that no other member may
// hold; while the budget recovers, those it holds. So no two members ever may hold one slot.
var memberScript = goredis.NewScript(scriptHeader + fmt.Sprintf(`
local WINDOW, GAP = %d, %d
local epoch, recover = budget()
local st = redis.call('HMGET', KEYS[1], 'up', 'last')
local up, last = tonumber(st[1]) or 0, tonumber(st[2])
if last and now > last and now - last <= GAP then up = up + now - last end
if not last or now > last then redis.call('HSET', KEYS[1], 'up', num(up), 'last', num(now)) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local recs = members()
local me = ARGV[5]
local cseq = tonumber(ARGV[11]) or 0
local mine = recs[me]
if mine and cseq <= mine.cseq then return {1, 0, 0, epoch, ''} end
for id, r in pairs(recs) do
  if id ~= me and r.seen < up - WINDOW then
    redis.call('HDEL', KEYS[1], 'p:' .. id, 'h:' .. id, 's:' .. id)
    recs[id] = nil
  end
end
if ARGV[16] == 'l' then
  redis.call('HDEL', KEYS[1], 'p:' .. me, 'h:' .. me, 's:' .. me)
  return {0, 0, 0, epoch, ''}
end
local h = ARGV[12]
if #h ~= F or string.find(h, '[^01]') then h = string.rep('0', F) end
local fb1, fb2 = tonumber(ARGV[14]) or 0, tonumber(ARGV[15]) or 0
if mine then fb1, fb2 = math.max(fb1, mine.fb1), math.max(fb2, mine.fb2) end
local promise = tonumber(ARGV[13]) or 0
if ARGV[16] == 'p' then promise = 0 end
local n, rank = ranked(recs, me)
local taken = {}
for id, r in pairs(recs) do
  if id ~= me then
    for i = 1, F do
      if not taken[i] and holds(r, i) then taken[i] = true end
    end
  end
end
local sent = h -- while the budget recovers, each member keeps what it held
if now >= recover then
  local out = {}
  for i = 1, F do
    if (i - 1) %% n == rank and (string.byte(h, i) == 49 or not taken[i]) then
      out[i] = '1'
    else
      out[i] = '0'
    end
  end
  sent = table.concat(out)
end
redis.call('HSET', KEYS[1], 'p:' .. me, num(up) .. ' ' .. num(promise) .. ' ' .. num(fb1) .. ' ' .. num(fb2) .. ' ' .. num(cseq),
  'h:' .. me, h, 's:' .. me, sent)
return {0, n, rank, epoch, sent}
`, memberWindow.Microseconds(), upGap.Microseconds()))

// maxLag bounds the lateness of a request's write that a process reports, and how long past its
// due time the next grant waits for the report of the last one's write.
const maxLag = time.Second

// respondedScript reports that the response to grant ARGV[4] arrived, its request written ARGV[11]
// microseconds past its turn, on a new connection when ARGV[12] is '1', or with no word of its
// write when ARGV[12] is empty; only the last grant's counts. The grant's time moves to the write
// (unless writtenScript moved it already), from which the next grant's hold and the round trip
// count.
var respondedScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'seq', 'sent', 'resp', 'minrtt', 'wseq')
local seq = tonumber(s[1])
if seq ~= tonumber(ARGV[4]) or s[3] then return {0} end
local sent = tonumber(s[2])
if tonumber(s[5]) ~= seq then
  sent = sent + math.min(math.max(0, tonumber(ARGV[11]) or 0), MAXLAG)
  if ARGV[12] == '0' or ARGV[12] == '1' then redis.call('HSET', KEYS[1], 'wseq', num(seq)) end
  if ARGV[12] == '1' then redis.call('HSET', KEYS[1], 'wfresh', num(seq)) end
end
local rtt = math.max(0, now - sent)
redis.call('HSET', KEYS[1], 'sent', num(sent), 'resp', num(now), 'minrtt', num(math.min(rtt, tonumber(s[4]) or rtt)))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {0}
`)

// writtenScript reports, as soon as it happens, that grant ARGV[4]'s request was written ARGV[11]
// microseconds past its turn, on a new connection when ARGV[12] is '1'; only the last grant's
// counts, and only before its response. The grant's time moves to the write (wseq records it, and
// wfresh a new connection), and the next grant, which waited for the write, counts its spacing
// from there.
var writtenScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'seq', 'sent', 'resp', 'wseq')
local seq = tonumber(s[1])
if not seq or seq ~= tonumber(ARGV[4]) or s[3] or tonumber(s[4]) == seq then return {0} end
local sent = tonumber(s[2]) + math.min(math.max(0, tonumber(ARGV[11]) or 0), MAXLAG)
redis.call('HSET', KEYS[1], 'sent', num(sent), 'wseq', num(seq))
if ARGV[12] == '1' then redis.call('HSET', KEYS[1], 'wfresh', num(seq)) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {0}
`)

// throttledScript reports a 429 whose request waits ARGV[4]: the first turns the pacing from
// responses on and replies {0, 0}; a later one pauses every process, widens the spacing, and
// replies {1, the pause left}.
var throttledScript = goredis.NewScript(scriptHeader + `
local s = redis.call('HMGET', KEYS[1], 'armed', 'until')
if not s[1] and ARGV[6] ~= '1' then
  redis.call('HSET', KEYS[1], 'armed', 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {0, 0}
end
local untilv = math.max(tonumber(s[2]) or 0, now + tonumber(ARGV[4]))
local _, wide = spacing()
redis.call('HSET', KEYS[1], 'armed', 1, 'until', num(untilv),
  'wide', num(math.min(WIDENMAX * interval, wide + WIDEN * interval)), 'wat', num(now))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, math.ceil(untilv - now)}
`)

// Limiter is a [compute.Limiter] whose budget lives in Redis. Build it with [New] and pass it to
// every client that uses the token, in every process, with [compute.WithLimiter]; [Limiter.Close]
// it when the process is done with it. It is safe for concurrent use.
type Limiter struct {
	rdb      goredis.Scripter
	keys     []string
	member   string // this limiter's id among the budget's processes
	interval int64  // microseconds, at the rate
	step     time.Duration
	slot     time.Duration
	timeout  time.Duration
	recheck  time.Duration   // rechecks are at the multiples of it since the Unix epoch
	fallback compute.Limiter // WithFallback's; nil for the slots
	handler  func(error)
	// ceiling holds this process to the rate whichever way it is paced, so that switching between
	// Redis and the fallback never makes a burst.
	ceiling *rate.Limiter
	// clock is the time the scripts use, in microseconds; "" for Redis's own clock (tests set one).
	clock func() string
	// board is the list board's MAC key (see board.go), derived from the token; a pointer, so that
	// printing the struct shows an address, not the key.
	board *[sha256.Size]byte
	// lastMark is the greatest mark the board gave this process: a mark not above the one it held
	// when the call asked is refused.
	lastMark atomic.Int64

	// turn lets one goroutine of this process at a time ask Redis for a grant and wait until it is
	// due; the others queue here, so Redis sees one waiter per process.
	turn chan struct{}
	// fturn lets one goroutine at a time wait for the fallback; the others queue here.
	fturn chan struct{}
	// hb runs one heartbeat command at a time.
	hb sync.Mutex
	// kick asks for a heartbeat at once: a grant's reply counted other members than the last
	// heartbeat did, so that a newcomer gets its share (and this process's promise) soon.
	kick chan struct{}

	mu         sync.Mutex
	seen       bool // Redis answered at least once
	armed      bool // Redis said the pacing from responses is on
	failing    bool // on the fallback
	reported   bool // a failure was reported, and no grant came from Redis since
	closed     bool
	back       chan struct{} // closed when the limiter leaves its fallback
	pauseUntil time.Time     // the last pause Redis reported ends
	epoch      int64         // the budget's epoch Redis last replied; 0 before
	lastWait   time.Time     // the last Wait began or ended, for the heartbeat to stop when nobody waits
	waiting    int           // the callers in Wait now
	beating    bool          // the heartbeat runs
	stop       chan struct{} // closed by Close
	beatDone   chan struct{} // closed when the heartbeat ends

	// Membership, as Redis last replied it.
	n       int64     // members; 0 before any reply
	waitN   int64     // members, as the last grant's reply counted them (this process included)
	held    string    // the slots of the frame this process may send in on its fallback; "" for none
	cseq    int64     // the number of the last heartbeat command
	promise time.Time // the latest promise sent: no fallback grant before it
	lastDue time.Time // when the last grant Redis made this process was due

	// traced: the client said when one of this process's requests was written; told: an attempt
	// Redis let go while the pacing from responses was on ended. Until one was told and none
	// traced (a client that never says when it writes), each grant's write is reported.
	traced, told atomic.Bool

	fb fallback // the fallback's pacing
}

// config collects the options of [New].
type config struct {
	rps      float64
	prefix   string
	timeout  time.Duration
	recheck  time.Duration
	fallback compute.Limiter
	handler  func(error)
	armed    bool
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
// Redis fails. l's Wait must honour its context, which ends when the limiter goes back to Redis.
// Unlike the slots, n such limiters fire
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

// WithResponsePacing turns the pacing from responses on from the limiter's first request, not from
// the first 429 any process sees, in the budget and in the fallback. Use it in short-lived
// processes (commands, a Terraform provider, which Terraform starts anew for each plan and each
// apply) against a service that allows no burst: a request the service reads some milliseconds
// after its write, on a busy machine, would otherwise draw a 429 before the pacing from responses
// is on. What it costs is what [compute.PaceFromResponses] says: each grant waits for the response
// to the one before, at most [compute.PacingHold] of an interval past its turn (more for a late
// one, within [compute.PacingHoldShare] of the time), and the first 429, which then means that the
// budget is spent, pauses every process. Every process on the budget paces from responses once one
// has turned it on.
func WithResponsePacing() Option {
	return func(c *config) error { c.armed = true; return nil }
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
// cluster or ring client). The token is only hashed, into the key and the list board's MAC key; it
// is not kept.
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
	l := &Limiter{
		rdb:      rdb,
		keys:     []string{Key(cfg.prefix, token)},
		member:   rand.Text(),
		interval: interval,
		step:     time.Duration(float64(interval)*(1+compute.PacingHeadroom)) * time.Microsecond,
		slot:     slot,
		timeout:  cfg.timeout,
		recheck:  max(cfg.recheck, 2*slot),
		fallback: cfg.fallback,
		handler:  cfg.handler,
		armed:    cfg.armed,
		ceiling:  rate.NewLimiter(rate.Limit(cfg.rps), 1),
		clock:    func() string { return "" },
		board:    boardKey(token),
		turn:     make(chan struct{}, 1),
		fturn:    make(chan struct{}, 1),
		back:     make(chan struct{}),
		stop:     make(chan struct{}),
		kick:     make(chan struct{}, 1),
	}
	l.fb.minRTT = -1
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

// errClosed is the error of a Wait on a closed limiter.
var errClosed = errors.New("ratelimit/redis: the limiter is closed")

// errNilContext is the error of Wait with a nil context, as the SDK's calls refuse one.
var errNilContext = &compute.ValidationError{Field: "ctx", Reason: "must not be nil (use context.Background())",
	Problems: []compute.FieldError{{Field: "ctx", Reason: "must not be nil (use context.Background())"}}}

// Wait implements [compute.Limiter]: it blocks until Redis grants an attempt, or until the fallback
// does while Redis fails, or until ctx ends. When the next grant, or a pause, ends after ctx's
// deadline it fails at once with an error that wraps [context.DeadlineExceeded] (and, for a pause,
// [compute.ErrRateLimited]). The request's write is reported to Redis as soon as it happens, and
// the done it returns reports the attempt's response while the pacing from responses is on, or
// after a request on a new connection. After [Limiter.Close] it fails. A nil ctx is refused with a
// [*compute.ValidationError].
func (l *Limiter) Wait(ctx context.Context) (func(), error) {
	if ctx == nil {
		return nil, errNilContext
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, errClosed
	}
	pause := time.Until(l.pauseUntil)
	l.lastWait = time.Now()
	l.waiting++
	start := !l.beating
	if start {
		l.beating, l.beatDone = true, make(chan struct{})
	}
	done := l.beatDone
	l.mu.Unlock()
	if start {
		go l.heartbeat(done)
	}
	defer func() {
		l.mu.Lock()
		l.waiting--
		l.lastWait = time.Now()
		l.mu.Unlock()
	}()
	if err := pastDeadline(ctx, pause); err != nil {
		return nil, err // before queueing behind a caller that waits the pause out
	}
	return l.wait(ctx)
}

// Close leaves the budget at once, so that the other processes count this one no more and take
// its share, and stops the limiter's heartbeat; a Wait after it fails. A process that exits
// without Close leaves a few seconds later. Close reports a Redis failure to leave.
func (l *Limiter) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	close(l.stop)
	beating, done := l.beating, l.beatDone
	l.mu.Unlock()
	if beating {
		<-done
	}
	return l.beat(context.Background(), modeLeave)
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
// fallback goes back to Redis as soon as the limiter does.
func (l *Limiter) wait(ctx context.Context) (func(), error) {
	for {
		if !l.down() {
			select {
			case l.turn <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			// Whether this process will report when the request is written: its client says when it
			// writes (a no-op until the grant is known), and said so for an earlier request or has
			// not ended one yet. The next grant waits for the report.
			reports := compute.OnWritten(ctx, func(time.Time, bool) {}) && (l.traced.Load() || !l.told.Load())
			g, failed, err := l.waitRedis(ctx, reports)
			if err == nil && !failed {
				err = sleep(ctx, g.wait)
			}
			due := time.Now()
			<-l.turn
			if !failed {
				if err == nil {
					err = l.paced(ctx)
				}
				if err != nil || !g.armed && !reports {
					return nil, err
				}
				// How late the request was written past its turn, and whether on a new connection,
				// reported at once (the next grant, in any process, waits for it) and again with the
				// response: Redis counts the next turn from then, as compute.NewLimiter does with no
				// burst. The response is reported while the pacing from responses is on, after a
				// request on a new connection, which the next grant waits for, and after one with no
				// word of its write, which the next grant would wait for until maxLag.
				var lag atomic.Int64
				var conn atomic.Value // wroteOld or wroteNew once the write is known
				bg := context.WithoutCancel(ctx)
				compute.OnWritten(ctx, func(at time.Time, newConn bool) {
					d := max(0, at.Sub(due))
					lag.Store(int64(d))
					how := wroteOld
					if newConn {
						how = wroteNew
					}
					conn.Store(how)
					l.traced.Store(true)
					go l.written(bg, g.seq, d, how) // never holds the transport's callback
				})
				armed := g.armed
				return func() {
					l.told.Store(true)
					how, _ := conn.Load().(string)
					if armed || how != wroteOld {
						l.responded(bg, g.seq, time.Duration(lag.Load()), how)
					}
				}, nil
			}
		}
		var done func()
		var err error
		if l.fallback != nil {
			done, err = l.waitCustom(ctx)
		} else {
			done, err = l.waitSlots(ctx)
		}
		if err != errRecheck {
			return done, err
		}
	}
}

// waitCustom waits for the fallback of WithFallback, from the promise on, then for the ceiling,
// with a context that ends when the limiter goes back to Redis, and returns errRecheck then (a
// limiter that honours its context consumes nothing for a wait it gave up).
func (l *Limiter) waitCustom(ctx context.Context) (func(), error) {
	l.mu.Lock()
	back := l.back
	l.mu.Unlock()
	select { // one caller at a time, so that the ceiling never reserves for callers that leave
	case l.fturn <- struct{}{}:
	case <-back:
		return nil, errRecheck
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.fturn }()
	l.mu.Lock()
	back, from := l.back, l.promise
	failing := l.failing
	l.mu.Unlock()
	if !failing {
		return nil, errRecheck
	}
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-back:
			cancel(errRecheck)
		case <-fctx.Done():
		}
	}()
	err := sleep(fctx, time.Until(from))
	var done func()
	if err == nil {
		if done, err = l.fallback.Wait(fctx); err == nil {
			if err = l.paced(fctx); err == nil {
				l.mu.Lock()
				l.fb.prev, l.fb.last = l.fb.last, time.Now()
				l.mu.Unlock()
				return done, nil
			}
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if context.Cause(fctx) == errRecheck {
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
// the caller waits for the fallback instead. reports tells Redis that the grant's write will be
// reported, for the next grant to wait for it while the pacing from responses is on.
func (l *Limiter) waitRedis(ctx context.Context, reports bool) (g grant, failed bool, err error) {
	asked := time.Now()
	writes := "0"
	if reports {
		writes = "1"
	}
	for {
		if l.down() { // another caller saw Redis fail while this one queued
			return grant{}, true, nil
		}
		maxWait := int64(-1)
		if deadline, ok := ctx.Deadline(); ok {
			maxWait = max(0, time.Until(deadline).Microseconds())
		}
		r, err := l.eval(ctx, waitScript, maxWait, asked.UnixMicro(), writes)
		if err != nil {
			if ctx.Err() != nil {
				return grant{}, false, ctx.Err()
			}
			l.fail(err)
			return grant{}, true, nil
		}
		l.answered()
		if r[0] == 0 && r[3] == 1 {
			l.sawArmed()
		}
		l.mu.Lock()
		changed := l.n != r[len(r)-2]
		l.waitN = r[len(r)-2]
		l.mu.Unlock()
		if changed {
			select {
			case l.kick <- struct{}{}:
			default:
			}
		}
		d := time.Duration(r[1]) * time.Microsecond
		switch r[0] {
		case 0:
			l.mu.Lock()
			if due := time.Now().Add(d); due.After(l.lastDue) {
				l.lastDue = due
			}
			l.mu.Unlock()
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
// pause}; respondedScript and writtenScript {0}. Every wait and pause is from 0 to maxReply.
func checkReply(script *goredis.Script, r []int64, arg int64) error {
	inRange := len(r) >= 2 && r[1] >= 0 && r[1] <= maxReply.Microseconds()
	ok := false
	switch script {
	case respondedScript, writtenScript:
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

// How a request was written, as the scripts take it: on a connection used before, on a new one, or
// with no word of its write ("").
const (
	wroteOld = "0"
	wroteNew = "1"
)

// responded reports to Redis that the response to grant seq arrived, its request written lag past
// its turn, as how says. It is bounded like every command; a failure makes the limiter fall back,
// as in Wait.
func (l *Limiter) responded(ctx context.Context, seq int64, lag time.Duration, how string) {
	if l.down() {
		return
	}
	if _, err := l.eval(ctx, respondedScript, seq, min(lag, maxLag).Microseconds(), how); err != nil {
		l.fail(err)
		return
	}
	l.answered()
}

// written reports to Redis that grant seq's request was written lag past its turn, as how says, as
// soon as it was. It is bounded like every command; a failure makes the limiter fall back, as in
// responded.
func (l *Limiter) written(ctx context.Context, seq int64, lag time.Duration, how string) {
	if l.down() {
		return
	}
	if _, err := l.eval(ctx, writtenScript, seq, min(lag, maxLag).Microseconds(), how); err != nil {
		l.fail(err)
		return
	}
	l.answered()
}

// Throttled implements [compute.Limiter]: it records the 429 in Redis, so that every process using
// the token turns the pacing from responses on, or pauses and widens its spacing, or tells the
// fallback while Redis fails. A call with a nil ctx is ignored.
func (l *Limiter) Throttled(ctx context.Context, wait time.Duration) {
	if ctx == nil {
		return
	}
	if !l.down() {
		r, err := l.eval(context.WithoutCancel(ctx), throttledScript, max(0, wait.Microseconds()))
		if err == nil {
			l.answered()
			l.sawArmed() // the 429 armed the budget, or it was
			if r[0] == 1 {
				l.paused(time.Duration(r[1]) * time.Microsecond)
			}
			return
		}
		l.fail(err)
	}
	if l.fallback != nil {
		l.fallback.Throttled(ctx, wait)
		return
	}
	l.throttledSlots(wait)
}

// args are the arguments of every script, with arg, the script's own.
func (l *Limiter) args(arg any) []any {
	l.mu.Lock()
	defer l.mu.Unlock()
	armed := 0
	if l.armed {
		armed = 1
	}
	epoch := ""
	if l.epoch > 0 {
		epoch = strconv.FormatInt(l.epoch, 10)
	}
	return []any{l.clock(), l.interval, keyTTL.Milliseconds(), arg, l.member, armed, l.slot.Microseconds(), epoch,
		l.recheck.Microseconds(), l.timeout.Microseconds()}
}

// run runs script with args on the budget's key, bounded by the timeout and by ctx. The command
// runs in a goroutine of its own, so that the caller gets control back in time even when the
// Redis client does not honour the context's deadline on a connection that hangs.
func (l *Limiter) run(ctx context.Context, script *goredis.Script, args []any) (any, error) {
	return l.runOn(ctx, script, l.keys, args)
}

// runOn is run on the keys given.
func (l *Limiter) runOn(ctx context.Context, script *goredis.Script, keys []string, args []any) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	type result struct {
		r   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := script.Run(ctx, l.rdb, keys, args...).Result()
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		return r.r, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("ratelimit/redis: no response from Redis within %s: %w", l.timeout, ctx.Err())
	}
}

// eval runs script with arg, its own argument, and the arguments after it, extra, and refuses a
// reply the script never sends (checkReply).
func (l *Limiter) eval(ctx context.Context, script *goredis.Script, arg int64, extra ...any) ([]int64, error) {
	v, err := l.run(ctx, script, append(l.args(arg), extra...))
	if err != nil {
		return nil, err
	}
	r, err := goredis.NewCmdResult(v, nil).Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("ratelimit/redis: a reply no script sends: %w", err)
	}
	return r, checkReply(script, r, arg)
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

// down reports whether the limiter is on its fallback.
func (l *Limiter) down() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failing
}

// fail notes a Redis failure: the limiter is on its fallback until a heartbeat at a recheck
// instant finds Redis again. A failure that begins an outage is reported.
func (l *Limiter) fail(err error) {
	l.mu.Lock()
	report := !l.reported
	l.failing, l.reported = true, true
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(fmt.Errorf("ratelimit/redis: falling back to the local limiter, trying Redis again every %s: %w", l.recheck, err))
	}
}

// recovered notes that Redis answered a heartbeat at a recheck instant: the limiter leaves its
// fallback, and the callers waiting on it go to Redis.
func (l *Limiter) recovered() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failing {
		l.failing = false
		close(l.back)
		l.back = make(chan struct{})
	}
	l.seen = true
}

// sawArmed notes that the budget's pacing from responses is on.
func (l *Limiter) sawArmed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = true
}

// answered notes that Redis answered a grant's script; it reports the end of an outage.
func (l *Limiter) answered() {
	l.mu.Lock()
	report := l.reported && !l.failing
	if report {
		l.reported = false
	}
	l.seen = true
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(nil)
	}
}
