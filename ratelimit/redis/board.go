package redis

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	compute "github.com/compute-sdk/compute-go"
	goredis "github.com/redis/go-redis/v9"
)

var _ compute.ListBoard = (*Limiter)(nil)

// The list board's bounds and lifetimes.
const (
	// boardGen is the length of a generation of the board: a page's sightings go to the key of
	// the generation Redis's clock is in, and Seen reads that one and the one before.
	boardGen = 30 * time.Second
	// boardTTL is how long a generation's key outlives the last page posted to it.
	boardTTL = 3 * boardGen
	// markTTL is how long the last mark outlives the last Mark.
	markTTL = 10 * time.Minute
	// boardItems bounds the resources of one Post and the IDs of one Seen.
	boardItems = 1000
	// boardJSON bounds one resource's JSON.
	boardJSON = 64 << 10
	// boardID bounds one resource's ID.
	boardID = 256
	// boardList bounds a list's name.
	boardList = 64
	// markDigits is the width of a mark in a stored value, zero-padded, so that marks compare as
	// strings.
	markDigits = 20
	// boardHead is the length of a stored value before the JSON: the mark, a space, the MAC in
	// hex, a space.
	boardHead = markDigits + 1 + 2*sha256.Size + 1
)

// boardClock starts every board script: now, in microseconds of Redis's clock or of the tests'
// (ARGV[1]), and the generation of the board it is in.
var boardClock = fmt.Sprintf(`
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local gen = math.floor(now / %d)
local function num(x) return string.format('%%.0f', x) end
`, boardGen.Microseconds())

// markScript returns a mark: now, or one more than the last mark when that is not below now.
// KEYS[1] holds the last mark; ARGV[2] is its time to live in milliseconds.
var markScript = goredis.NewScript(boardClock + `
local last = tonumber(redis.call('GET', KEYS[1]))
if last and last >= now then now = last + 1 end
redis.call('SET', KEYS[1], num(now), 'PX', ARGV[2])
return now
`)

// postScript records sightings in the key of the current generation, KEYS[1] followed by it:
// ARGV[2] is the key's time to live in milliseconds, then come pairs of an ID and its value. A
// value replaces one whose mark (its first 20 characters) is smaller, never a greater or equal
// one.
var postScript = goredis.NewScript(boardClock + fmt.Sprintf(`
local key = KEYS[1] .. num(gen)
for i = 3, #ARGV - 1, 2 do
  local old = redis.call('HGET', key, ARGV[i])
  if not old or string.sub(old, 1, %[1]d) < string.sub(ARGV[i + 1], 1, %[1]d) then
    redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  end
end
redis.call('PEXPIRE', key, ARGV[2])
return 0
`, markDigits))

// seenScript returns the values of the IDs ARGV[2:] in the key of the current generation and in
// the one before, KEYS[1] followed by each: two lists in the order of the IDs.
var seenScript = goredis.NewScript(boardClock + `
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
return {redis.call('HMGET', KEYS[1] .. num(gen), unpack(ids)),
  redis.call('HMGET', KEYS[1] .. num(gen - 1), unpack(ids))}
`)

// errBoardDown is the board's error while the limiter is on its fallback: the board waits for
// the limiter to find Redis again rather than ask a Redis that failed.
var errBoardDown = errors.New("ratelimit/redis: the list board is off while Redis fails")

// boardKey derives the key of the board's MACs from the token, under a domain tag of its own.
func boardKey(token string) *[sha256.Size]byte {
	k := sha256.Sum256([]byte("compute-go list board v1\x00" + token))
	return &k
}

// Mark implements [compute.ListBoard]: a number, from Redis's clock in microseconds, greater than
// every mark given before to a process of the budget, kept under the budget's key for 10 minutes
// after the last one so that it never goes back while Redis's clock does. A mark more than a
// second away from this process's clock, or not above every mark this process got before it
// asked, is refused with an error (the waits then read the list themselves): the freshness of what
// the board answers rests on its marks. Calls at once may get their marks back in any order: a
// mark below one that a call made meanwhile got is no sign of a Redis that went back. It fails within the
// timeout ([WithTimeout]) when Redis does not answer, at once while the limiter is on its
// fallback or closed, and never makes the limiter fall back.
func (l *Limiter) Mark(ctx context.Context) (int64, error) {
	if err := l.boardReady(ctx); err != nil {
		return 0, err
	}
	before := l.lastMark.Load() // every mark this process got before asking: Redis gives a greater one
	v, err := l.runOn(ctx, markScript, []string{l.keys[0] + ":board-mark"},
		[]any{l.clock(), markTTL.Milliseconds()})
	if err != nil {
		return 0, boardErr(ctx, err)
	}
	m, ok := v.(int64)
	if !ok || m <= 0 {
		return 0, errors.New("ratelimit/redis: a reply the list board's script never sends")
	}
	// A mark tells what is fresh: one far from this process's clock (a Redis whose clock went
	// back, or one that lies), or one not above a mark it gave before, could let an older
	// sighting pass for a newer one. The board is off for such a mark.
	if now := l.clockNow(); m < now-markSkew.Microseconds() || m > now+markSkew.Microseconds() {
		return 0, errors.New("ratelimit/redis: the list board's mark is more than a second away from this process's clock")
	}
	if m <= before {
		return 0, errors.New("ratelimit/redis: the list board gave a mark not above one it gave before")
	}
	for {
		last := l.lastMark.Load()
		if m <= last || l.lastMark.CompareAndSwap(last, m) {
			return m, nil
		}
	}
}

// markSkew is how far from this process's clock a mark may be: the processes' clocks and Redis's
// agree to well within it (see the package's doc).
const markSkew = time.Second

// clockNow is the time the scripts use, in microseconds: this process's clock, or the tests' one.
func (l *Limiter) clockNow() int64 {
	if c := l.clock(); c != "" {
		if v, err := strconv.ParseInt(c, 10, 64); err == nil {
			return v
		}
	}
	return time.Now().UnixMicro()
}

// Post implements [compute.ListBoard]: it stores in Redis, under the budget's key, each
// resource's JSON as the page of the list showed it, with the page's mark and a MAC from the
// token, for about 90 s. It refuses a list name other than up to 64 of a-z, 0-9, '_' and '-',
// more than 1000 resources, an empty ID, one longer than 256 bytes or holding a NUL, and a JSON
// over 64 KiB, and sends nothing then. It fails like [Limiter.Mark] when Redis does not answer.
func (l *Limiter) Post(ctx context.Context, list string, mark int64, items map[string][]byte) error {
	if err := checkList(list); err != nil {
		return err
	}
	if mark < 0 {
		return errors.New("ratelimit/redis: a list board mark must not be negative")
	}
	if len(items) > boardItems {
		return fmt.Errorf("ratelimit/redis: a list board post holds %d resources, more than %d", len(items), boardItems)
	}
	for id, js := range items {
		if !validID(id) {
			return fmt.Errorf("ratelimit/redis: a list board ID must be 1 to %d bytes without NUL", boardID)
		}
		if len(js) > boardJSON {
			return fmt.Errorf("ratelimit/redis: a list board resource's JSON is %d bytes, more than %d", len(js), boardJSON)
		}
	}
	if err := l.boardReady(ctx); err != nil {
		return err
	}
	if len(items) == 0 {
		return nil
	}
	m := fmt.Sprintf("%0*d", markDigits, mark)
	args := make([]any, 0, 2+2*len(items))
	args = append(args, l.clock(), boardTTL.Milliseconds())
	for id, js := range items {
		args = append(args, id, m+" "+l.mac(list, id, m, js)+" "+string(js))
	}
	if _, err := l.runOn(ctx, postScript, []string{l.boardPrefix(list)}, args); err != nil {
		return boardErr(ctx, err)
	}
	return nil
}

// Seen implements [compute.ListBoard]: it reads the sightings of ids that processes of the budget
// posted in the last minute or so, and returns, for each ID it holds, the one with the greatest
// mark whose MAC holds; it drops the others without an error. A Redis that lies cannot forge a
// sighting without the token; it can make waits read the list themselves, or give back an older
// sighting of the same resource that a process posted, which a wait takes only when its mark is
// above the wait's own: since marks more than a second from the process's clock are refused (see
// [Limiter.Mark]), such a sighting is at most about a second older than the wait's asking. It refuses more than 1000 IDs, and
// fails like [Limiter.Mark] when Redis does not answer.
func (l *Limiter) Seen(ctx context.Context, list string, ids []string) (map[string]compute.Sighting, error) {
	if err := checkList(list); err != nil {
		return nil, err
	}
	if len(ids) > boardItems {
		return nil, fmt.Errorf("ratelimit/redis: a list board read asks for %d IDs, more than %d", len(ids), boardItems)
	}
	if err := l.boardReady(ctx); err != nil {
		return nil, err
	}
	asked := make([]string, 0, len(ids))
	dup := make(map[string]bool, len(ids))
	for _, id := range ids {
		if validID(id) && !dup[id] {
			dup[id] = true
			asked = append(asked, id)
		}
	}
	seen := make(map[string]compute.Sighting)
	if len(asked) == 0 {
		return seen, nil
	}
	args := make([]any, 0, 1+len(asked))
	args = append(args, l.clock())
	for _, id := range asked {
		args = append(args, id)
	}
	v, err := l.runOn(ctx, seenScript, []string{l.boardPrefix(list)}, args)
	if err != nil {
		return nil, boardErr(ctx, err)
	}
	gens, ok := v.([]any)
	if !ok || len(gens) != 2 {
		return nil, errors.New("ratelimit/redis: a reply the list board's script never sends")
	}
	for _, g := range gens {
		vals, ok := g.([]any)
		if !ok || len(vals) != len(asked) {
			return nil, errors.New("ratelimit/redis: a reply the list board's script never sends")
		}
		for i, val := range vals {
			s, ok := val.(string)
			if !ok {
				continue
			}
			if sg, ok := l.verify(list, asked[i], s); ok {
				if old, had := seen[asked[i]]; !had || sg.Mark > old.Mark {
					seen[asked[i]] = sg
				}
			}
		}
	}
	return seen, nil
}

// verify reads a stored value of id in list: its sighting, when the value is well formed, not too
// long, and its MAC holds.
func (l *Limiter) verify(list, id, val string) (compute.Sighting, bool) {
	if len(val) < boardHead || len(val) > boardHead+boardJSON || val[markDigits] != ' ' || val[boardHead-1] != ' ' {
		return compute.Sighting{}, false
	}
	m := val[:markDigits]
	for i := range len(m) {
		if m[i] < '0' || m[i] > '9' {
			return compute.Sighting{}, false
		}
	}
	mark, err := strconv.ParseInt(m, 10, 64)
	if err != nil {
		return compute.Sighting{}, false
	}
	js := []byte(val[boardHead:])
	want := l.mac(list, id, m, js)
	if !hmac.Equal([]byte(want), []byte(val[markDigits+1:boardHead-1])) {
		return compute.Sighting{}, false
	}
	return compute.Sighting{Mark: mark, JSON: js}, true
}

// mac is the hex HMAC-SHA256, under the board's key, of a sighting of id in list with mark m (20
// digits) and JSON js.
func (l *Limiter) mac(list, id, m string, js []byte) string {
	h := hmac.New(sha256.New, l.board[:])
	h.Write([]byte(list + "\x00" + id + "\x00" + m + "\x00"))
	h.Write(js)
	return hex.EncodeToString(h.Sum(nil))
}

// boardPrefix is the start of the keys of list's generations.
func (l *Limiter) boardPrefix(list string) string { return l.keys[0] + ":board:" + list + ":" }

// boardReady refuses a board call with a nil or ended context, on a closed limiter, or while the
// limiter is on its fallback.
func (l *Limiter) boardReady(ctx context.Context) error {
	if ctx == nil {
		return errNilContext
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errClosed
	}
	if l.failing {
		return errBoardDown
	}
	return nil
}

// boardErr is the error of a board command that failed: the caller's context's error when it
// ended, or Redis's failure. It never makes the limiter fall back.
func boardErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("ratelimit/redis: list board: %w", err)
}

// checkList refuses a list name that is not 1 to 64 of a-z, 0-9, '_' and '-'.
func checkList(list string) error {
	ok := list != "" && len(list) <= boardList
	for i := 0; ok && i < len(list); i++ {
		c := list[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("ratelimit/redis: a list board's list name must be 1 to %d of a-z, 0-9, '_' and '-'", boardList)
	}
	return nil
}

// validID reports whether id may be on the board: 1 to 256 bytes, no NUL.
func validID(id string) bool {
	if id == "" || len(id) > boardID {
		return false
	}
	for i := range len(id) {
		if id[i] == 0 {
			return false
		}
	}
	return true
}
