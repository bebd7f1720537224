package redis_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/compute-sdk/compute-go/internal/latesend"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeScripts drives the scripts of two processes, "member-a" and "member-b", on one budget at a
// rate of 10 per second, on a clock of the test's own.
type writeScripts struct {
	t   *testing.T
	rdb *goredis.Client
	key string
}

func newWriteScripts(t *testing.T) writeScripts {
	rdb, _ := sharedRedis(t)
	return writeScripts{t, rdb, ratelimit.Key(uniquePrefix(t), testToken)}
}

// run runs s with the arguments every script takes, arg its own, then extra.
func (w writeScripts) run(s *goredis.Script, now int64, member string, arg int64, extra ...any) []int64 {
	w.t.Helper()
	args := append([]any{now, 100000, 60000, arg, member, "", "", "", "", "", extra[0]}, extra[1:]...)
	r, err := s.Run(context.Background(), w.rdb, []string{w.key}, args...).Int64Slice()
	require.NoError(w.t, err)
	return r
}

// wait asks for a grant for member, which first asked at asked and reports its grant's write.
func (w writeScripts) wait(member string, now, asked int64) []int64 {
	w.t.Helper()
	return w.run(ratelimit.WaitScript, now, member, -1, asked, "1")
}

// written reports that grant seq's request was written lag past its turn.
func (w writeScripts) written(now, seq, lag int64) {
	w.t.Helper()
	require.Equal(w.t, []int64{0}, w.run(ratelimit.WrittenScript, now, "member-a", seq, lag))
}

// responded reports grant seq's response, its request written lag past its turn.
func (w writeScripts) responded(now, seq, lag int64) {
	w.t.Helper()
	require.Equal(w.t, []int64{0}, w.run(ratelimit.RespondedScript, now, "member-a", seq, lag))
}

// writtenOn reports that grant seq's request was written lag past its turn, on a new connection
// when how is "1".
func (w writeScripts) writtenOn(now, seq, lag int64, how string) {
	w.t.Helper()
	require.Equal(w.t, []int64{0}, w.run(ratelimit.WrittenScript, now, "member-a", seq, lag, how))
}

// respondedOn reports grant seq's response, its request written lag past its turn, on a new
// connection when how is "1".
func (w writeScripts) respondedOn(now, seq, lag int64, how string) {
	w.t.Helper()
	require.Equal(w.t, []int64{0}, w.run(ratelimit.RespondedScript, now, "member-a", seq, lag, how))
}

const (
	wStep, wHold, wPoll, wLate = 100300, 125375, 5015, 75225
	wMaxLag                    = int64(time.Second / time.Microsecond)
	wSpaced                    = 101804 // an interval and the margin
	wAhead                     = 25075  // how long before its due time a grant may be reserved
)

// TestBeforeTheFirst429TheNextGrantCountsFromTheLastWrite: the schedule is an interval apart, as
// a service that allows no burst needs, but a request written late reaches the service late, and
// the next one, let go on time, would reach it less than an interval after. So before any 429, as
// after, the next grant, in any process, waits for the last one's write to be reported, then
// comes an interval and the margin after the write; a grant whose write will not be reported is
// paced by the schedule alone.
func TestBeforeTheFirst429TheNextGrantCountsFromTheLastWrite(t *testing.T) {
	w := newWriteScripts(t)
	due := int64(1_000_000_000)
	require.Equal(t, []int64{0, 0, 1, 0, 1, 0}, w.wait("member-a", due, due), "not armed")
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-b", due+10, due+10), "its write is not reported yet")
	write := due + 60_000
	w.written(write, 1, 60_000)
	assert.Equal(t, []int64{2, write + wSpaced - (due + wStep) - wAhead, 1, 0}, w.wait("member-b", due+wStep, due+10),
		"the schedule's turn, but not an interval and the margin after the write")
	// Grant 2's process will not report its write: the schedule alone paces grant 3.
	g2 := write + wSpaced
	require.Equal(t, []int64{0, 0, 2, 0, 1, 0}, w.run(ratelimit.WaitScript, g2, "member-b", -1, due+10, "0"))
	assert.Equal(t, []int64{0, 0, 3, 0, 1, 0}, w.wait("member-a", g2+wStep, g2+10), "no wait for grant 2's write")
}

// TestAfterARequestOnANewConnectionTheNextGrantWaitsForItsResponse: the service reads a request
// written on a new connection only once it has accepted the connection, later than the write. The
// next grant, in any process, waits for its response and comes an interval and the margin after
// it, but at most PacingHoldLate of an interval past the write's interval; before any 429, as
// after it.
func TestAfterARequestOnANewConnectionTheNextGrantWaitsForItsResponse(t *testing.T) {
	w := newWriteScripts(t)
	due := int64(1_000_000_000)
	require.Equal(t, []int64{0, 0, 1, 0, 1, 0}, w.wait("member-a", due, due), "not armed")
	w.writtenOn(due+1_000, 1, 1_000, "1")
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-b", due+wStep+10_000, due+10), "its response is missing")
	resp := due + 31_000
	w.respondedOn(resp, 1, 1_000, "1")
	assert.Equal(t, []int64{2, resp + wSpaced - (due + wStep + 10_000), 1, 0}, w.wait("member-b", due+wStep+10_000, due+10),
		"an interval and the margin after the response")
	g2 := resp + wSpaced
	require.Equal(t, []int64{0, 0, 2, 0, 1, 0}, w.wait("member-b", g2, due+10))

	// Grant 2, written on time on a new connection, never answered: grant 3 comes PacingHoldLate of
	// an interval past grant 2's interval.
	w.writtenOn(g2, 2, 0, "1")
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-a", g2+2*wStep-10_000, g2+10), "held for the response")
	require.Equal(t, []int64{0, 0, 3, 0, 1, 0}, w.wait("member-a", g2+2*wStep, g2+10), "and no longer")

	// Grant 3's response reported with its write (the write's own report lost the race), on a new
	// connection: grant 4 waits for an interval and the margin after the response.
	g3 := g2 + 2*wStep
	w.respondedOn(g3+2_000, 3, 0, "1")
	w.writtenOn(g3+2_001, 3, 0, "1")
	assert.Equal(t, []int64{2, 2_000 + wSpaced - wStep, 1, 0}, w.wait("member-b", g3+wStep, g3+10))

	// Once armed, the same.
	w.run(ratelimit.ThrottledScript, g3+wStep, "member-a", 1_000_000, "")
	g4 := g3 + 2_000 + wSpaced
	require.Equal(t, []int64{0, 0, 4, 1, 1, 0}, w.wait("member-b", g4, g3+10))
	w.writtenOn(g4, 4, 0, "1")
	w.respondedOn(g4+40_000, 4, 0, "1")
	assert.Equal(t, []int64{2, 40_000 + wSpaced - wStep, 1, 0}, w.wait("member-a", g4+wStep, g4+10),
		"armed: an interval and the margin after the response, not less the round trip")
}

// armedBudget arms the budget, makes grant 1 (its response 2 ms after: the fastest round trip),
// grant 2 an interval and the margin after grant 1's write, whose response never comes (its write
// reported on time), so that grant 3 waits for it an interval past its due time and spends the
// allowance for late responses. It returns grant 3's due time, member-a's grant.
func (w writeScripts) armedBudget() int64 {
	sent := int64(1_000_000_000)
	w.run(ratelimit.ThrottledScript, sent, "member-a", 1_000_000, "")
	require.Equal(w.t, []int64{0, 0, 1, 1, 1, 0}, w.wait("member-a", sent, sent))
	w.written(sent, 1, 0)
	w.responded(sent+2000, 1, 0)
	sent += wSpaced
	require.Equal(w.t, []int64{0, 0, 2, 1, 1, 0}, w.wait("member-b", sent, sent))
	w.written(sent, 2, 0)
	asked := sent + 10
	require.Equal(w.t, []int64{2, wPoll, 1, 0}, w.wait("member-a", asked, asked), "held for grant 2's response")
	sent += wHold + wLate
	require.Equal(w.t, []int64{0, 0, 3, 1, 1, 0}, w.wait("member-a", sent, asked), "an interval past its due time")
	return sent
}

// TestAWriteReportedLateHoldsAnotherProcessesNextGrant: once armed, a grant whose request is
// written 60 ms past its due time holds the next grant, in another process, until a quarter
// interval past an interval after that write (and what the allowance grew by) while its response
// is missing, polling, although the allowance for late responses is spent. Counting from the grant
// instead, the next grant would come a quarter interval past its due time: the late request's own
// interval cut by 60 ms. With the response, the next grant comes an interval after it less the
// fastest round trip, the round trip counted from the write (reported once, not twice). A write
// report for an older grant, or one that comes after the response, moves nothing.
func TestAWriteReportedLateHoldsAnotherProcessesNextGrant(t *testing.T) {
	w := newWriteScripts(t)
	due := w.armedBudget() // grant 3, member-a's
	asked := due + 10
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-b", asked, asked), "its write is not reported yet")
	write := due + 60_000
	w.written(write-1, 2, 0) // an older grant's report: nothing
	w.written(write, 3, 60_000)
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-b", due+wHold+2_000, asked),
		"a quarter interval past its due time and what the allowance grew by since: still held")
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-b", write+wStep-1, asked),
		"held an interval after the write, before the response")
	// A quarter interval past an interval after the write, and the allowance: 1% of the time since
	// it was spent, at grant 3.
	r := w.wait("member-b", write+wHold+1_800, asked)
	assert.Equal(t, int64(2), r[0], "held until a quarter interval past the write's interval: %v", r)
	g4 := write + wHold + 1_900
	require.Equal(t, []int64{0, 0, 4, 1, 1, 0}, w.wait("member-b", g4, asked))

	// Grant 4, written 60 ms late, its response 5 ms after the write.
	w.written(g4+60_000, 4, 60_000)
	w.responded(g4+65_000, 4, 60_000)
	assert.Equal(t, []int64{2, wStep - 2000, 1, 0}, w.wait("member-a", g4+65_000, g4+65_000),
		"an interval after the response less the fastest round trip (2 ms, not 0: the lag counts once)")
	g5 := g4 + 65_000 + wStep - 2000
	require.Equal(t, []int64{0, 0, 5, 1, 1, 0}, w.wait("member-a", g5, g4+65_000))

	// Grant 5's response comes before its write is reported (a report that lost the race): the
	// late report moves nothing.
	w.responded(g5+2000, 5, 0)
	w.written(g5+2001, 5, 500_000)
	sent, err := w.rdb.HGet(t.Context(), w.key, "sent").Int64()
	require.NoError(t, err)
	assert.Equal(t, g5, sent, "the grant's time")
}

// TestOnceArmedTheNextGrantIsStillAnIntervalAndTheMarginAfterTheWrite: the pacing from responses
// lets the next grant go an interval after the last response less the fastest round trip. When
// that response came the fastest round trip after its write (a budget's first response, or one of
// a Redis restarted empty), that is an interval after the write, with no room for the service
// reading the request a little late: the next grant still comes an interval and the margin after
// the write, as before the first 429. A slower response holds it longer, as the pacing says.
func TestOnceArmedTheNextGrantIsStillAnIntervalAndTheMarginAfterTheWrite(t *testing.T) {
	w := newWriteScripts(t)
	due := int64(1_000_000_000)
	w.run(ratelimit.ThrottledScript, due, "member-a", 1_000_000, "")
	require.Equal(t, []int64{0, 0, 1, 1, 1, 0}, w.wait("member-a", due, due), "armed")
	w.written(due, 1, 0)
	w.responded(due+500, 1, 0) // the first round trip: the fastest
	assert.Equal(t, []int64{2, wStep - 500, 1, 0}, w.wait("member-b", due+500, due+500),
		"an interval after the response less the fastest round trip")
	assert.Equal(t, []int64{0, wSpaced - wStep, 2, 1, 1, 0}, w.wait("member-b", due+wStep, due+500),
		"then reserved an interval and the margin after the write, not an interval")

	// Grant 2, written on time, answered 4 ms after: later than the fastest round trip by more
	// than the margin, so the response holds the next grant.
	g2 := due + wSpaced
	w.written(g2, 2, 0)
	w.responded(g2+4_000, 2, 0)
	assert.Equal(t, []int64{2, wStep - 500, 1, 0}, w.wait("member-a", g2+4_000, g2+4_000))
	assert.Equal(t, []int64{0, 0, 3, 1, 1, 0}, w.wait("member-a", g2+4_000+wStep-500, g2+4_000),
		"an interval after the response less the fastest round trip, past the margin after the write")
}

// TestAWriteNeverReportedHoldsTheNextGrantASecondAtMost: a grant whose write is never reported,
// nor its response (its process died), holds the next grant, asking again every 5% of an
// interval, until a second past its due time and no longer.
func TestAWriteNeverReportedHoldsTheNextGrantASecondAtMost(t *testing.T) {
	w := newWriteScripts(t)
	due := w.armedBudget() // grant 3: no word of it ever again
	asked := due + 10
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-b", asked, asked))
	assert.Equal(t, []int64{2, wPoll, 1, 0}, w.wait("member-b", due+wMaxLag/2, asked), "held half a second in")
	assert.Equal(t, []int64{2, 1, 1, 0}, w.wait("member-b", due+wMaxLag-1, asked), "held until a second past its due time")
	require.Equal(t, []int64{0, 0, 4, 1, 1, 0}, w.wait("member-b", due+wMaxLag, asked), "and no longer")
}

// TestAGrantWhoseWriteIsNotReportedDoesNotWaitForIt: a grant of a process that will not report its
// write (its client never says when it writes) holds the next one only as the response rules say:
// a quarter interval past its due time and what the allowance gives.
func TestAGrantWhoseWriteIsNotReportedDoesNotWaitForIt(t *testing.T) {
	w := newWriteScripts(t)
	due := w.armedBudget()
	w.written(due, 3, 0)
	g4 := due + wHold + 2_000 // past the hold and what the allowance grew by
	require.Equal(t, []int64{0, 0, 4, 1, 1, 0}, w.run(ratelimit.WaitScript, g4, "member-a", -1, due+10, "0"))
	assert.Equal(t, []int64{0, 0, 5, 1, 1, 0}, w.wait("member-b", g4+wHold+2_000, g4+wStep),
		"grant 4's write will not be reported: no wait for it")
}

// slowResponses delays every response by d after Inner returned it, as a slow service does.
type slowResponses struct {
	Inner http.RoundTripper
	d     time.Duration
}

func (s slowResponses) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.Inner.RoundTrip(r)
	time.Sleep(s.d)
	return resp, err
}

// TestTheLimiterReportsAWriteAsSoonAsItHappens: before the first 429 a client's requests cost one
// more command, the write's report, and the first, on a new connection, one more, its response's;
// armed, a request that a busy process writes 60 ms past its turn is reported to Redis as written
// 60 ms late at once, before its response (30 ms later), which is reported too; each grant tells
// Redis that its write will be reported.
func TestTheLimiterReportsAWriteAsSoonAsItHappens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newFakeRedis(map[string]func(redisCall) answer{"wait": replies([]int64{0, 0, 1, 0, 1, 0})})
		fallback, rep := &recordingLimiter{}, &reports{}
		l, err := fakeLimiter(t, fake, fallback, rep)
		require.NoError(t, err)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		t.Cleanup(srv.Close)
		lt := &latesend.Transport{Inner: slowResponses{srv.HTTPClient().Transport, 30 * time.Millisecond},
			Late: latesend.Cycle(60 * time.Millisecond)}
		c, err := compute.NewClient(srv.Token, compute.WithBaseURL(srv.URL), compute.WithLimiter(l),
			compute.WithHTTPClient(&http.Client{Transport: lt}))
		require.NoError(t, err)
		get := func() time.Time {
			start := time.Now()
			_, err := c.Instances.Get(t.Context(), "ins-missing")
			require.ErrorIs(t, err, compute.ErrNotFound)
			synctest.Wait()
			return start
		}
		get()
		get()
		require.Len(t, fake.Calls("wait"), 2)
		written := fake.Calls("written")
		require.Len(t, written, 2, "not armed: each write reported, for the next grant to count from it")
		assert.Equal(t, "1", written[0].Args[11], "the first request, on a new connection")
		assert.Equal(t, "0", written[1].Args[11], "the second, on the same connection")
		responded := fake.Calls("responded")
		require.Len(t, responded, 1, "not armed: only the response to the request on a new connection")
		assert.Equal(t, int64(1), responded[0].Arg(4), "the grant's number")

		fake.SetAnswer("wait", replies([]int64{0, 0, 3, 1, 1, 0}))
		time.Sleep(fleetInterval) // the process's own ceiling lets it go at once
		start := get()
		waits := fake.Calls("wait")
		require.Len(t, waits, 3)
		assert.Equal(t, "1", waits[2].Args[11], "the grant's write will be reported")
		written = fake.Calls("written")
		require.Len(t, written, 3)
		assert.Equal(t, int64(3), written[2].Arg(4), "the grant's number")
		assert.Equal(t, int64(60_000), written[2].Arg(11), "written 60 ms late")
		assert.Equal(t, 60*time.Millisecond, written[2].At.Sub(start), "reported as it was written")
		responded = fake.Calls("responded")
		require.Len(t, responded, 2)
		assert.Equal(t, int64(3), responded[1].Arg(4), "armed: every response reported")
		assert.Equal(t, 90*time.Millisecond, responded[1].At.Sub(start), "the response, after")
		assert.Empty(t, rep.All(), "no Redis failure")
		assert.Zero(t, fallback.Waits())
	})
}

// TestWithResponsePacingTheFirst429Pauses: with WithResponsePacing the pacing from responses is on
// from the limiter's first request, so the first 429 means the budget is spent and pauses the
// process for its Retry-After; without it, the first 429 only turns that pacing on. The budget
// is the real scripts', on the bubble's clock.
func TestWithResponsePacingTheFirst429Pauses(t *testing.T) {
	for _, paced := range []bool{false, true} {
		name := "from the first 429"
		if paced {
			name = "from the first request"
		}
		t.Run(name, func(t *testing.T) {
			bubble(t, func(t *testing.T, addr string) {
				var opts func(int) []ratelimit.Option
				if paced {
					opts = func(int) []ratelimit.Option { return []ratelimit.Option{ratelimit.WithResponsePacing()} }
				}
				l := newFleet(t, newBubbleBudget(t, addr), 1, opts).limiters[0]
				require.NoError(t, wait(t.Context(), l))
				time.Sleep(time.Second)
				l.Throttled(t.Context(), 2*time.Second)
				start := time.Now()
				require.NoError(t, wait(t.Context(), l))
				if paced {
					assert.GreaterOrEqual(t, time.Since(start), 2*time.Second, "the first 429 pauses")
				} else {
					assert.Less(t, time.Since(start), fleetInterval, "the first 429 only turns the pacing on")
				}
			})
		})
	}
}
