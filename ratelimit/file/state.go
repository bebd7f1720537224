package file

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// pollEvery is how often, in intervals, a caller held for a response that has not arrived reads the
// file again (at least every millisecond); the Redis limiter uses the same.
const pollEvery = 0.05

// ahead is how long before its due time, in intervals, a grant may be reserved. A grant reserved
// earlier would go out even if a 429 paused every process or armed the pacing from responses in
// between; one reserved just ahead still leaves on time although the lock was slow to come.
const ahead = 0.25

// maxPause bounds a pause the file may hold, and the wait Throttled records.
const maxPause = time.Hour

// state is a budget: what every process using the token shares, in nanoseconds of the wall clock
// since the Unix epoch (every process on one machine reads the same clock).
type state struct {
	step   int64  // the spacing of the process that wrote it: its interval, headroom and widening
	tat    int64  // when the schedule's next grant is due
	until  int64  // the pause ends
	sent   int64  // when the last grant was due
	resp   int64  // when its response arrived; 0 until then
	minRTT int64  // the fastest round trip from a grant to its response; -1 before the first
	wideAt int64  // when wide was last set
	wide   int64  // the spacing's widening as of wideAt, in millionths of an interval
	late   int64  // the allowance for late responses as of lateAt
	lateAt int64  // when late was last set; 0 for the whole allowance
	seq    uint64 // the last grant's number
	armed  bool   // the pacing from responses is on
}

// fresh is the state of a budget nobody has used.
func fresh(step int64) state { return state{step: step, minRTT: -1} }

// The record the file holds: a magic that names the format's version, the fields, a CRC-32 of what
// comes before it, and padding.
const (
	recordSize = 112
	crcAt      = 104
)

var magic = [8]byte{'c', 'g', 'o', 'r', 'l', 'f', '0', '2'}

// encode writes s as the file's record.
func (s state) encode() []byte {
	b := make([]byte, recordSize)
	copy(b, magic[:])
	le := binary.LittleEndian
	for i, v := range []int64{s.step, s.tat, s.until, s.sent, s.resp, s.minRTT, s.wideAt, s.wide, s.late, s.lateAt} {
		le.PutUint64(b[8+8*i:], uint64(v))
	}
	le.PutUint64(b[88:], s.seq)
	if s.armed {
		le.PutUint64(b[96:], 1)
	}
	le.PutUint32(b[crcAt:], crc32.ChecksumIEEE(b[:crcAt]))
	return b
}

// errCorrupt is a record that this package never writes, or one that it wrote for another time.
var errCorrupt = errors.New("not a record of this limiter")

// decode reads a record and refuses one this package never writes: the wrong size or format, a
// checksum that does not match, or a value out of range at now (a due time or a pause further
// ahead than any process could have set, as after the clock was set back).
func decode(b []byte, now int64) (state, error) {
	if len(b) != recordSize || [8]byte(b[:8]) != magic {
		return state{}, fmt.Errorf("%w: %d bytes, not a record of format %s", errCorrupt, len(b), magic[6:])
	}
	le := binary.LittleEndian
	if le.Uint32(b[crcAt:]) != crc32.ChecksumIEEE(b[:crcAt]) {
		return state{}, fmt.Errorf("%w: the checksum does not match", errCorrupt)
	}
	var v [10]int64
	for i := range v {
		v[i] = int64(le.Uint64(b[8+8*i:]))
	}
	s := state{step: v[0], tat: v[1], until: v[2], sent: v[3], resp: v[4], minRTT: v[5], wideAt: v[6], wide: v[7],
		late: v[8], lateAt: v[9], seq: le.Uint64(b[88:])}
	switch le.Uint64(b[96:]) {
	case 0:
	case 1:
		s.armed = true
	default:
		return state{}, fmt.Errorf("%w: a flag out of range", errCorrupt)
	}
	if err := s.inRange(now); err != nil {
		return state{}, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	for _, z := range b[crcAt+4:] {
		if z != 0 {
			return state{}, fmt.Errorf("%w: the padding is not zero", errCorrupt)
		}
	}
	return s, nil
}

// inRange checks that no value of s lies further ahead of now than a process could have set it:
// a grant is reserved at most a quarter interval before it is due, and the next one is due an
// interval later; a pause lasts at most maxPause; a response has arrived by now.
func (s state) inRange(now int64) error {
	switch horizon := 2 * s.step; {
	case s.step < 1 || s.step > maxStep:
		return fmt.Errorf("an interval of %s", time.Duration(s.step))
	case s.tat > now+horizon:
		return fmt.Errorf("the next grant due in %s", time.Duration(s.tat-now))
	case s.sent > now+horizon:
		return fmt.Errorf("the last grant due in %s", time.Duration(s.sent-now))
	case s.until > now+int64(maxPause):
		return fmt.Errorf("a pause of %s", time.Duration(s.until-now))
	case s.resp > now+horizon:
		return fmt.Errorf("a response %s ahead", time.Duration(s.resp-now))
	case s.minRTT < -1 || s.minRTT > int64(maxPause):
		return fmt.Errorf("a round trip of %s", time.Duration(s.minRTT))
	case s.wide < 0 || s.wide > maxWide:
		return fmt.Errorf("a widening of %d millionths of an interval", s.wide)
	case s.wideAt > now+horizon:
		return fmt.Errorf("a widening set %s ahead", time.Duration(s.wideAt-now))
	case s.late < 0 || s.late > s.step:
		return fmt.Errorf("an allowance for late responses of %s", time.Duration(s.late))
	case s.lateAt > now+horizon:
		return fmt.Errorf("an allowance set %s ahead", time.Duration(s.lateAt-now))
	}
	return nil
}

// maxWide is the widest widening, in millionths of an interval.
const maxWide = int64(compute.PacingWidenMax * 1e6)

// widening is the spacing's widening at now, in intervals: wide less what it narrowed since wideAt
// ([compute.PacingWiden] for each [compute.PacingNarrow]).
func (s *state) widening(now int64) float64 {
	since := float64(max(0, now-s.wideAt))
	return max(0, float64(s.wide)/1e6-compute.PacingWiden*since/float64(compute.PacingNarrow))
}

// maxStep is the longest spacing a record may hold: that of the lowest rate WithRate takes, widened
// the most.
var maxStep = spacing(intervalOf(minRate), compute.PacingWidenMax) + 1

// What the budget answers a caller asking for a grant.
type verdict int

const (
	granted verdict = iota // the grant is reserved: wait d, it is due
	paused                 // every process is paused for d
	held                   // ask again after d (the pacing from responses, or too early)
	tooLate                // the next grant is due in d, past the caller's deadline
)

// ask is the wait script of the Redis limiter, on the file's state: at now, with interval the
// caller's interval at the rate and maxWait the longest it can wait (-1 for no deadline), it
// answers the caller and, for a grant, reserves it. Both mechanisms space the grants by the
// interval, the headroom and the widening. rearm turns the pacing from responses on in a budget
// that lost it (a reset file) when the caller's process saw it on. asked is when the caller first
// asked for this grant: what it waited past the quarter interval for a late response comes out of
// the allowance for late responses.
func (s *state) ask(now, interval, maxWait int64, rearm bool, asked int64) (v verdict, d int64) {
	step := spacing(interval, s.widening(now))
	s.step = step
	if rearm {
		s.armed = true
	}
	if pause := s.until - now; pause > 0 {
		return paused, pause
	}
	allowance := s.allowance(now, step)
	var waited int64
	if s.armed && s.minRTT >= 0 {
		base := s.sent + int64(float64(step)*(1+compute.PacingHold))
		end := base + allowance
		if s.resp != 0 {
			end = min(end, s.resp+step-s.minRTT)
		}
		hold := end - now
		if s.resp == 0 {
			hold = min(hold, max(int64(time.Millisecond), int64(float64(step)*pollEvery)))
		}
		if hold > 0 {
			return held, hold
		}
		waited = max(0, min(now, end)-max(base, asked))
	}
	at := max(s.tat, now)
	if maxWait >= 0 && at-now > maxWait {
		return tooLate, at - now
	}
	if early := at - now - int64(float64(step)*ahead); early > 0 {
		return held, early
	}
	s.seq++
	s.tat, s.sent, s.resp = at+step, at, 0
	s.late, s.lateAt = max(0, allowance-waited), max(now, 1)
	return granted, at - now
}

// allowance is how much longer than [compute.PacingHold] past its due time a grant may wait for a
// late response at now, with grants step apart: the share [compute.PacingHoldShare] of the time
// since it was last spent, up to the rest of [compute.PacingHoldLate].
func (s *state) allowance(now, step int64) int64 {
	most := int64(float64(step) * (compute.PacingHoldLate - compute.PacingHold))
	if s.lateAt == 0 {
		return most
	}
	return min(most, s.late+int64(compute.PacingHoldShare*float64(max(0, now-s.lateAt))))
}

// responded records that the response to grant seq arrived at now; only the last grant's counts.
// It reports whether s changed.
func (s *state) responded(now int64, seq uint64) bool {
	if s.seq != seq || s.resp != 0 {
		return false
	}
	rtt := max(0, now-s.sent)
	if s.minRTT < 0 || rtt < s.minRTT {
		s.minRTT = rtt
	}
	s.resp = max(now, 1)
	return true
}

// throttled records a 429 at now whose request waits wait: the first turns the pacing from
// responses on, unless the caller's process saw it on already (seen); a later one pauses every
// process and widens the spacing by [compute.PacingWiden] of an interval (up to
// [compute.PacingWidenMax]). It returns the pause left, 0 when none.
func (s *state) throttled(now, wait int64, seen bool) int64 {
	if !s.armed && !seen {
		s.armed = true
		return 0
	}
	s.armed = true
	s.wide = int64(math.Round(min(compute.PacingWidenMax, s.widening(now)+compute.PacingWiden) * 1e6))
	s.wideAt = now
	wait = min(max(wait, 0), int64(maxPause))
	if now+wait > s.until {
		s.until = now + wait
	}
	return max(0, s.until-now)
}

// intervalOf is the interval at rps, in nanoseconds.
func intervalOf(rps float64) int64 { return max(1, int64(math.Round(float64(time.Second)/rps))) }

// spacing is the spacing of grants at interval with the headroom and a widening of wide intervals.
func spacing(interval int64, wide float64) int64 {
	return max(1, int64(math.Round(float64(interval)*(1+compute.PacingHeadroom+wide))))
}
