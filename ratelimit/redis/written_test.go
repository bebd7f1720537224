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

const (
	wStep, wHold, wPoll, wLate = 100300, 125375, 5015, 75225
	wMaxLag                    = int64(time.Second / time.Microsecond)
)

// armedBudget arms the budget, makes grant 1 (its response 2 ms after: the fastest round trip),
// and grant 2, whose response never comes (its write reported on time), so that grant 3 waits
// for it an interval past its due time and spends the allowance for late responses. It returns
// grant 3's due time, member-a's grant.
func (w writeScripts) armedBudget() int64 {
	sent := int64(1_000_000_000)
	w.run(ratelimit.ThrottledScript, sent, "member-a", 1_000_000, "")
	require.Equal(w.t, []int64{0, 0, 1, 1, 1, 0}, w.wait("member-a", sent, sent))
	w.written(sent, 1, 0)
	w.responded(sent+2000, 1, 0)
	sent += wStep
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

	// Grant 4, written 60 ms late, its response 3 ms after the write.
	w.written(g4+60_000, 4, 60_000)
	w.responded(g4+63_000, 4, 60_000)
	assert.Equal(t, []int64{2, wStep - 2000, 1, 0}, w.wait("member-a", g4+63_000, g4+63_000),
		"an interval after the response less the fastest round trip (2 ms, not 0: the lag counts once)")
	g5 := g4 + 63_000 + wStep - 2000
	require.Equal(t, []int64{0, 0, 5, 1, 1, 0}, w.wait("member-a", g5, g4+63_000))

	// Grant 5's response comes before its write is reported (a report that lost the race): the
	// late report moves nothing.
	w.responded(g5+2000, 5, 0)
	w.written(g5+2001, 5, 500_000)
	sent, err := w.rdb.HGet(t.Context(), w.key, "sent").Int64()
	require.NoError(t, err)
	assert.Equal(t, g5, sent, "the grant's time")
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

// TestTheLimiterReportsAWriteAsSoonAsItHappens: before the first 429 a client's requests cost no
// command but the grant's; armed, a request that a busy process writes 60 ms past its turn is
// reported to Redis as written 60 ms late at once, before its response (30 ms later), which is
// reported too; each grant tells Redis that its write will be reported.
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
		assert.Empty(t, fake.Calls("written"), "not armed: no write report")
		assert.Empty(t, fake.Calls("responded"), "not armed: no response report")
		require.Len(t, fake.Calls("wait"), 2)

		fake.SetAnswer("wait", replies([]int64{0, 0, 3, 1, 1, 0}))
		time.Sleep(fleetInterval) // the process's own ceiling lets it go at once
		start := get()
		waits := fake.Calls("wait")
		require.Len(t, waits, 3)
		assert.Equal(t, "1", waits[2].Args[11], "the grant's write will be reported")
		written := fake.Calls("written")
		require.Len(t, written, 1)
		assert.Equal(t, int64(3), written[0].Arg(4), "the grant's number")
		assert.Equal(t, int64(60_000), written[0].Arg(11), "written 60 ms late")
		assert.Equal(t, 60*time.Millisecond, written[0].At.Sub(start), "reported as it was written")
		responded := fake.Calls("responded")
		require.Len(t, responded, 1)
		assert.Equal(t, 90*time.Millisecond, responded[0].At.Sub(start), "the response, after")
		assert.Empty(t, rep.All(), "no Redis failure")
		assert.Zero(t, fallback.Waits())
	})
}
