package file

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pacing on the budget, on a clock of the test's own, in nanoseconds; 10 requests per second.
// The same cases as the Redis limiter's scripts.

const (
	testInterval = 100_000_000
	testStep     = 100_300_000 // 100 ms + 0.3%
	testAhead    = 25_075_000  // a quarter of it
	testHold     = 125_375_000 // a step and a quarter
	testPoll     = 5_015_000   // 5% of it
)

type answer struct {
	v verdict
	d int64
}

func ask(s *state, now, maxWait int64) answer {
	return askedAt(s, now, maxWait, now)
}

// askedAt asks for a grant at now for a caller that first asked at asked.
func askedAt(s *state, now, maxWait, asked int64) answer {
	v, d := s.ask(now, testInterval, maxWait, false, asked)
	return answer{v, d}
}

func TestStepIsTheIntervalWithHeadroom(t *testing.T) {
	require.Equal(t, int64(testInterval), intervalOf(10))
	require.Equal(t, int64(testStep), spacing(intervalOf(10), 0))
	require.InDelta(t, float64(time.Second)/10*(1+compute.PacingHeadroom), float64(spacing(intervalOf(10), 0)), 1)
}

// TestBudgetScheduleAndPause: grants are due an interval apart on a schedule fixed in advance,
// reserved at most a quarter interval before they are due; one due past the caller's deadline is
// refused without being reserved; the first 429 pauses nobody, a later one everyone, and a shorter
// pause never shortens a longer one.
func TestBudgetScheduleAndPause(t *testing.T) {
	s := fresh(testStep)
	now := int64(1_000_000_000_000)
	assert.Equal(t, answer{granted, 0}, ask(&s, now, -1))
	assert.Equal(t, uint64(1), s.seq)
	assert.Equal(t, answer{held, testStep - testAhead}, ask(&s, now, -1), "the next is due an interval later: ask again a quarter interval before")
	assert.Equal(t, answer{granted, testAhead}, ask(&s, now+testStep-testAhead, -1), "reserved a quarter interval ahead")
	assert.Equal(t, answer{tooLate, 2 * testStep}, ask(&s, now, 2*testStep-1), "due past the deadline")
	assert.Equal(t, uint64(2), s.seq, "the refused caller reserved nothing")
	assert.Equal(t, answer{granted, 0}, ask(&s, now+2*testStep, 0))

	now += 3 * testStep
	assert.Equal(t, int64(0), s.throttled(now, 1e9, false), "the first 429 only arms")
	assert.True(t, s.armed)
	assert.Equal(t, answer{granted, 0}, ask(&s, now, -1), "nobody is paused")
	assert.Equal(t, int64(1e9), s.throttled(now, 1e9, false))
	assert.Equal(t, answer{paused, 600_000_000}, ask(&s, now+400_000_000, -1), "paused")
	assert.Equal(t, int64(600_000_000), s.throttled(now+400_000_000, 100_000_000, false), "not shortened")
	assert.Equal(t, int64(maxPause), s.throttled(now, int64(100*time.Hour), false), "at most maxPause")
}

// TestBudgetPacesFromResponses: once armed, a grant waits until an interval after the last grant's
// response less the fastest round trip (not the last one), and at most a quarter interval past its
// due time, or up to an interval past it while the allowance for late responses lasts (the share
// of the time since it was spent), whether the response is late or missing (asking again every 5%
// of an interval meanwhile); what a caller waited past the quarter interval, from when it first
// asked, is spent; a report for an earlier grant anchors nothing.
func TestBudgetPacesFromResponses(t *testing.T) {
	const late = 75_225_000 // three quarters of a step
	s := fresh(testStep)
	sent := int64(1_000_000_000_000)
	s.throttled(sent, 1e9, false)
	require.Equal(t, answer{granted, 0}, ask(&s, sent, -1))
	require.True(t, s.responded(sent+2_000_000, 1)) // the fastest round trip: 2 ms
	assert.Equal(t, answer{held, testStep - 2_000_000}, ask(&s, sent+2_000_000, -1), "an interval after the response less the fastest round trip")
	require.Equal(t, answer{granted, 0}, ask(&s, sent+testStep, -1))

	sent += testStep // grant 2's response never comes
	asked := sent + 10
	assert.Equal(t, answer{held, testPoll}, askedAt(&s, asked, -1, asked), "ask again soon")
	assert.Equal(t, answer{held, testPoll}, askedAt(&s, sent+testHold, -1, asked), "held past the quarter interval")
	assert.Equal(t, answer{held, 1}, askedAt(&s, sent+testHold+late-1, -1, asked))
	require.Equal(t, answer{granted, 0}, askedAt(&s, sent+testHold+late, -1, asked),
		"a missing response holds the next grant an interval past its due time at most")

	sent += testHold + late // grant 3's response never comes either, and the allowance is spent
	asked = sent + 10
	// Held a quarter interval past its due time and the share of the time since the allowance was
	// spent: 1% of 126.64 ms.
	assert.Equal(t, answer{held, 1}, askedAt(&s, sent+126_641_413, -1, asked))
	require.Equal(t, answer{granted, 0}, askedAt(&s, sent+126_641_414, -1, asked))

	sent += 10_000_000_000 // ten seconds later the allowance is whole again: no hold
	require.Equal(t, answer{granted, 0}, ask(&s, sent, -1))
	require.True(t, s.responded(sent+60_000_000, 5)) // a late response
	assert.Equal(t, answer{held, testStep - 2_000_000}, ask(&s, sent+60_000_000, -1), "an interval after the late response less the fastest round trip")
	require.Equal(t, answer{granted, 0}, askedAt(&s, sent+60_000_000+testStep-2_000_000, -1, sent+60_000_000))

	sent += 60_000_000 + testStep - 2_000_000
	assert.False(t, s.responded(sent+1_000_000, 5), "grant 5's again: not the last")
	assert.Equal(t, answer{held, testPoll}, ask(&s, sent+1_000_000, -1), "still held for grant 6's")

	require.True(t, s.responded(sent+5_000_000, 6)) // a 5 ms round trip: not the fastest
	const due = 5_000_000 + testStep - 2_000_000
	assert.Equal(t, answer{held, testStep - 2_000_000}, ask(&s, sent+5_000_000, -1), "an interval after the response less the fastest round trip, not the last")
	assert.Equal(t, answer{held, 1}, ask(&s, sent+due-1, -1), "held until then")
	assert.Equal(t, answer{granted, 0}, ask(&s, sent+due, -1), "and no longer")
	assert.False(t, s.responded(sent+due+1, 6), "an earlier grant's response")
}

// TestAResetBudgetIsArmedAgain: a process that saw the pacing from responses on turns it on again
// in a budget that lost it (a file refused and reset), so that no 429 is needed to relearn it, and
// its next 429 pauses instead of only arming.
func TestAResetBudgetIsArmedAgain(t *testing.T) {
	now := int64(1_000_000_000_000)
	s := fresh(testStep)
	v, _ := s.ask(now, testInterval, -1, true, now)
	assert.Equal(t, granted, v)
	assert.True(t, s.armed, "armed again")
	s = fresh(testStep)
	assert.Equal(t, int64(1e9), s.throttled(now, 1e9, true), "a 429 on a fresh budget pauses")
	s = fresh(testStep)
	assert.Equal(t, int64(0), s.throttled(now, 1e9, false), "never armed: the first 429 only arms")
}

// TestEachLater429WidensTheSpacing: as in compute.NewLimiter, the first 429 only arms; each later
// one widens the spacing of both mechanisms by compute.PacingWiden of an interval, up to
// compute.PacingWidenMax, for every process; it narrows back by as much for each
// compute.PacingNarrow without a 429.
func TestEachLater429WidensTheSpacing(t *testing.T) {
	s := fresh(testStep)
	now := int64(1_000_000_000_000)
	// spacing grants two grants in a row at now and returns the wait between them.
	spacing := func() time.Duration {
		t.Helper()
		require.Equal(t, granted, ask(&s, now, -1).v)
		first := s.sent
		at := now
		a := ask(&s, at, -1)
		for i := 0; a.v == held && i < 3; i++ { // too early: ask again when it may be reserved
			at += a.d
			a = ask(&s, at, -1)
		}
		require.Equal(t, granted, a.v)
		now = s.tat                                                  // the next is due: with no response, nothing holds it
		return time.Duration(s.sent - first).Round(time.Millisecond) // the narrowing meanwhile aside
	}
	spacing()
	s.throttled(now, 0, false)
	assert.False(t, s.armed && s.wide != 0, "the first 429 only arms")
	assert.Equal(t, 100*time.Millisecond, spacing())
	s.throttled(now, 0, false)
	assert.Equal(t, 105*time.Millisecond, spacing(), "a second one widens by 5 percent of an interval")
	s.throttled(now, 0, false)
	assert.Equal(t, 110*time.Millisecond, spacing(), "a third by 5 percent more")
	for range 20 {
		s.throttled(now, 0, false)
	}
	assert.Equal(t, 150*time.Millisecond, spacing(), "at most by half an interval")
	now = s.wideAt + int64(compute.PacingNarrow)
	assert.Equal(t, 145*time.Millisecond, spacing(), "narrowed by 5 percent after PacingNarrow without a 429")
	now += 10 * int64(compute.PacingNarrow)
	assert.Equal(t, 100*time.Millisecond, spacing(), "and back to the headroom")

	// The pacing from responses holds by the widened spacing too.
	s.throttled(now, 0, false)
	require.Equal(t, granted, ask(&s, now, -1).v)
	require.True(t, s.responded(now+2_000_000, s.seq))
	a := ask(&s, now+2_000_000, -1)
	assert.Equal(t, held, a.v)
	assert.InDelta(t, testStep+5_000_000-2_000_000, a.d, 1000, "an interval widened, after the response, less the round trip")
}

func TestRecordRoundTrips(t *testing.T) {
	now := int64(1_000_000_000_000)
	s := state{step: testStep, tat: now + testStep, until: now + 1e9, sent: now, resp: now + 1, minRTT: 2_000_000,
		wideAt: now, wide: 150_000, late: 40_000_000, lateAt: now - 1, seq: 7, armed: true}
	b := s.encode()
	require.Len(t, b, recordSize)
	got, err := decode(b, now)
	require.NoError(t, err)
	assert.Equal(t, s, got)
	got, err = decode(fresh(testStep).encode(), now)
	require.NoError(t, err)
	assert.Equal(t, fresh(testStep), got)
}

// TestRecordsThisPackageNeverWritesAreRefused: the wrong size or format, a checksum that does not
// match, and each value out of range.
func TestRecordsThisPackageNeverWritesAreRefused(t *testing.T) {
	now := int64(1_000_000_000_000)
	good := state{step: testStep, tat: now + testStep, until: now, sent: now, resp: now, minRTT: 1, seq: 7}
	flip := func(i int) []byte { b := good.encode(); b[i] ^= 1; return b }
	with := func(f func(*state)) []byte { s := good; f(&s); return s.encode() }
	year := int64(365 * 24 * time.Hour)
	for name, b := range map[string][]byte{
		"empty":             {},
		"short":             good.encode()[:recordSize-1],
		"long":              append(good.encode(), 0),
		"magic":             flip(0),
		"version":           flip(7),
		"a field":           flip(20),
		"the checksum":      flip(crcAt),
		"padding":           func() []byte { b := good.encode(); b[recordSize-1] = 1; return b }(),
		"flags":             func() []byte { b := good.encode(); b[96] = 2; return resum(b) }(),
		"step zero":         with(func(s *state) { s.step = 0 }),
		"step too long":     with(func(s *state) { s.step = maxStep + 1 }),
		"due years ahead":   with(func(s *state) { s.tat = now + year }),
		"sent years ahead":  with(func(s *state) { s.sent = now + year }),
		"pause of years":    with(func(s *state) { s.until = now + year }),
		"response ahead":    with(func(s *state) { s.resp = now + year }),
		"round trip < -1":   with(func(s *state) { s.minRTT = -2 }),
		"round trip years":  with(func(s *state) { s.minRTT = year }),
		"widening < 0":      with(func(s *state) { s.wide = -1 }),
		"widening too wide": with(func(s *state) { s.wide = maxWide + 1 }),
		"widened years on":  with(func(s *state) { s.wideAt = now + year }),
		"allowance < 0":     with(func(s *state) { s.late = -1 }),
		"allowance > step":  with(func(s *state) { s.late = testStep + 1 }),
		"allowed years on":  with(func(s *state) { s.lateAt = now + year }),
		"due two steps out": with(func(s *state) { s.tat = now + 2*testStep + 1 }),
	} {
		_, err := decode(b, now)
		assert.ErrorIs(t, err, errCorrupt, name)
	}
	_, err := decode(good.encode(), now)
	require.NoError(t, err)
}

// resum sets a record's checksum to match its content.
func resum(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[crcAt:], crc32.ChecksumIEEE(b[:crcAt]))
	return b
}
