package compute

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memBoard is a Limiter that lets every attempt go at once and a ListBoard in memory, as the
// processes sharing one Redis budget share it. When broken is set, every board call fails.
type memBoard struct {
	mu     sync.Mutex
	mark   int64
	seen   map[string]map[string]Sighting // list -> id -> latest sighting
	posts  int
	seens  int    // the calls of Seen
	broken bool   // every call fails
	noMark bool   // Mark fails
	onWait func() // called in each Wait, when set
}

func newMemBoard() *memBoard { return &memBoard{seen: map[string]map[string]Sighting{}} }

func (b *memBoard) Wait(context.Context) (func(), error) {
	if b.onWait != nil {
		b.onWait()
	}
	return nil, nil
}

func (b *memBoard) Throttled(context.Context, time.Duration) {}

func (b *memBoard) Mark(context.Context) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken || b.noMark {
		return 0, errors.New("board down")
	}
	b.mark++
	return b.mark, nil
}

func (b *memBoard) Post(_ context.Context, list string, mark int64, items map[string][]byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken {
		return errors.New("board down")
	}
	b.posts++
	if b.seen[list] == nil {
		b.seen[list] = map[string]Sighting{}
	}
	for id, js := range items {
		if b.seen[list][id].Mark < mark {
			b.seen[list][id] = Sighting{Mark: mark, JSON: js}
		}
	}
	return nil
}

func (b *memBoard) Seen(_ context.Context, list string, ids []string) (map[string]Sighting, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seens++
	if b.broken {
		return nil, errors.New("board down")
	}
	out := map[string]Sighting{}
	for _, id := range ids {
		if s, ok := b.seen[list][id]; ok {
			out[id] = s
		}
	}
	return out, nil
}

// twoProcesses runs, on s, a client with limiter l waiting for a and b, and half a second later
// another client with the same limiter (another process of the budget) waiting for c and d;
// the four turn active at 20 s.
func twoProcesses(t *testing.T, s *pollServer, l Limiter) {
	serve := s.ServeHTTP
	p1, _ := newTestClient(t, serve, WithLimiter(l))
	p2, _ := newTestClient(t, serve, WithLimiter(l))
	time.AfterFunc(20*time.Second, func() {
		for _, id := range []string{"a", "b", "c", "d"} {
			s.set(id, "active")
		}
	})
	wait := func(c *Client, ids ...string) error {
		return WaitAll(boundedCtx(t), ids, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			return err
		})
	}
	var wg sync.WaitGroup
	wg.Go(func() { assert.NoError(t, wait(p1, "a", "b")) })
	time.Sleep(500 * time.Millisecond)
	wg.Go(func() { assert.NoError(t, wait(p2, "c", "d")) })
	wg.Wait()
}

// TestProcessesSharingABoardReadEachPageOnce: two processes of one budget wait for their own
// instances on one list; each takes what the other's walk showed when that page was sent after it
// asked, so together they read the list about as often as one process would, not twice as often.
func TestProcessesSharingABoardReadEachPageOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b", "c", "d")
		board := newMemBoard()
		start := time.Now()
		twoProcesses(t, s, board)
		lists, _ := s.counts("a")
		t.Logf("list pages: %d", lists)
		assert.LessOrEqual(t, lists, 26, "one page a second for both processes")
		assert.Less(t, time.Since(start), 22*time.Second, "the waits saw the change within a walk")
		for _, id := range []string{"a", "b", "c", "d"} {
			_, gets := s.counts(id)
			assert.LessOrEqual(t, gets, 1, "%s read alone at most once, before the walks began", id)
		}
		assert.Positive(t, board.posts)
	})
}

// TestProcessesWhoseBoardFailsWalkAlone: a board that fails costs only the sharing: each process
// reads the list for its own waits, about once a second each, and the waits end as the list says.
func TestProcessesWhoseBoardFailsWalkAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b", "c", "d")
		board := newMemBoard()
		board.broken = true
		twoProcesses(t, s, board)
		lists, _ := s.counts("a")
		t.Logf("list pages: %d", lists)
		assert.Greater(t, lists, 36, "each process walks for its own waits")
	})
}

// TestASightingOlderThanTheAskIsNeverTaken: the board holds the instances' sightings as active
// from a page sent before the waits asked (an earlier run, another process); the waits do not
// end on them, nor skip the walk for them: they end when a page sent after they asked shows the
// instances active.
func TestASightingOlderThanTheAskIsNeverTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		board := newMemBoard()
		board.mark = 100
		took := waitPastSightings(t, s, board, 50, "a", "b")
		assert.GreaterOrEqual(t, took, 5*time.Second, "the waits ended when the list said active")
		lists, getsA := s.counts("a")
		_, getsB := s.counts("b")
		assert.GreaterOrEqual(t, lists, 4, "the walks read the list")
		assert.LessOrEqual(t, getsA+getsB, 2, "at most the first poll of each, before the walks began")
	})
}

// TestASightingOfAnotherIDIsNeverTaken: a sighting filed under an awaited ID that shows another
// resource (a board that lies) does not answer the wait.
func TestASightingOfAnotherIDIsNeverTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		took := waitPastSightings(t, s, newMemBoard(), 1<<40, "x", "x")
		assert.GreaterOrEqual(t, took, 5*time.Second, "the waits ended when the service said active")
	})
}

// waitPastSightings posts to board, with mark, sightings of a and b as active that show the IDs
// showA and showB, then waits on s, through a client with board as its limiter, until a and b are
// active, which they turn 5 s in; it returns how long the waits took.
func waitPastSightings(t *testing.T, s *pollServer, board *memBoard, mark int64, showA, showB string) time.Duration {
	require.NoError(t, board.Post(context.Background(), "instances", mark, map[string][]byte{
		"a": []byte(`{"id":"` + showA + `","status":"active"}`),
		"b": []byte(`{"id":"` + showB + `","status":"active"}`),
	}))
	c, _ := newTestClient(t, s.ServeHTTP, WithLimiter(board))
	start := time.Now()
	time.AfterFunc(5*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
	require.NoError(t, waitActive(boundedCtx(t), c))
	return time.Since(start)
}

// TestSightedTakesOnlyNewerSightingsOfItsID: a poll takes a sighting only when its page's mark is
// greater than the poll's own, it decodes, and it shows the awaited ID.
func TestSightedTakesOnlyNewerSightingsOfItsID(t *testing.T) {
	js := []byte(`{"id":"a","status":"active"}`)
	_, ok := sighted[Instance](Sighting{Mark: 5, JSON: js}, "a", 5)
	assert.False(t, ok, "a page marked as the ask is not newer")
	_, ok = sighted[Instance](Sighting{Mark: 4, JSON: js}, "a", 5)
	assert.False(t, ok, "an older page")
	_, ok = sighted[Instance](Sighting{Mark: 6, JSON: js}, "b", 5)
	assert.False(t, ok, "another ID")
	_, ok = sighted[Instance](Sighting{Mark: 6, JSON: []byte(`{"id":`)}, "a", 5)
	assert.False(t, ok, "JSON that does not decode")
	v, ok := sighted[Instance](Sighting{Mark: 6, JSON: js}, "a", 5)
	require.True(t, ok)
	assert.Equal(t, InstanceStatusActive, v.Status)
}

// TestAPagesMarkIsTakenOnceItsTurnCame: a walk's page is marked after the limiter let it go, not
// when it was queued: a page that waited in the limiter while another process's wait asked was
// still sent after that asking, and its mark says so.
func TestAPagesMarkIsTakenOnceItsTurnCame(t *testing.T) {
	s := creatingBeside("a")
	board := newMemBoard()
	var granted, arrived int64
	board.onWait = func() { granted, _ = board.Mark(context.Background()) } // another wait asks meanwhile
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		arrived, _ = board.Mark(context.Background()) // a wait that asks as the service reads the page
		s.ServeHTTP(w, r)
	}, WithLimiter(board))
	pg, _, _, mark, err := c.Instances.polls.page(context.Background(), &ListOptions{Page: 1, PerPage: MaxPerPage}, true, func() {}, func() {}, func() {})
	require.NoError(t, err)
	require.Len(t, pg.Items, 2)
	assert.Greater(t, mark, granted, "the page's mark comes after its turn")
	assert.Less(t, mark, arrived, "the page's mark comes before the service read it")
}

// TestAWalkStopsWhereTheBoardShowsTheRest: from the first walk on, another process reads the
// list's first two pages as this one reads any page, and only its pages (and the GETs) show two of
// the awaited instances active, this process's pages lagging; a walk from the list's end that finds
// that on the board after reading its first page reads no more, and the waits take the two from
// the board, long before this process's own pages would show them.
func TestAWalkStopsWhereTheBoardShowsTheRest(t *testing.T) {
	for range 10 { // the waits join in another order each time
		t.Run("", walkStopsWhereTheBoardShowsTheRest)
	}
}

func walkStopsWhereTheBoardShowsTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		for i := range 250 {
			s.set(fmt.Sprintf("i-%04d", i), "creating")
		}
		awaited := []string{"i-0000", "i-0150", "i-0249"} // on pages 1, 2 and 3
		board := newMemBoard()
		var mu sync.Mutex
		lists := 0
		pages := &pagesRead{s: s}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/compute/v1/instances" {
				mu.Lock()
				lists++
				n := lists
				mu.Unlock()
				if n >= 4 { // after the first walk
					s.set("i-0249", "active")
					s.mu.Lock()
					s.got["i-0000"], s.got["i-0150"] = "active", "active" // this process's list lags
					s.mu.Unlock()
					mark, _ := board.Mark(context.Background())
					_ = board.Post(context.Background(), "instances", mark, map[string][]byte{
						"i-0000": []byte(`{"id":"i-0000","status":"active"}`),
						"i-0150": []byte(`{"id":"i-0150","status":"active"}`),
					})
				}
			}
			pages.serve(w, r)
		}, WithLimiter(board))
		time.AfterFunc(20*time.Second, func() { s.set("i-0000", "active"); s.set("i-0150", "active") })
		start := time.Now()
		require.NoError(t, waitAllActive(c, awaited...))
		assert.Less(t, time.Since(start), 5*time.Second, "the board answered the waits")
		read := pages.read()
		assert.LessOrEqual(t, len(read), 6, "pages read: %v", read)
		assert.Contains(t, read[3:], "3", "a walk from the end read the last page")
	})
}

// TestAWaitWhoseMarkFailedTakesNoSighting: when the board cannot mark a poll's asking, no sighting
// answers that poll, however new it looks: the waits read on their own (the list, lagging, does
// not show the instances) until their GETs say active.
func TestAWaitWhoseMarkFailedTakesNoSighting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.got["a"], s.got["b"] = "creating", "creating"
		board := newMemBoard()
		require.NoError(t, board.Post(context.Background(), "instances", 1<<40, map[string][]byte{
			"a": []byte(`{"id":"a","status":"active"}`),
			"b": []byte(`{"id":"b","status":"active"}`),
		}))
		board.noMark = true
		c, _ := newTestClient(t, s.ServeHTTP, WithLimiter(board))
		start := time.Now()
		time.AfterFunc(5*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		err := WaitAll(boundedCtx(t), []string{"a", "b"}, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			assert.GreaterOrEqual(t, time.Since(start), 5*time.Second, "%s ended when its GET said active", id)
			return err
		})
		require.NoError(t, err)
	})
}

// TestAWaitTakesAnotherProcesssPageAsItIsPosted: two processes of one budget wait for the same
// instances, the second starting later. Once the instances turn active, the next page either
// process reads shows them, and the other process's waits end with it, within a tenth of a second,
// not at their own next walk about half a second later; between them they read about a page a
// second.
func TestAWaitTakesAnotherProcesssPageAsItIsPosted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		board := newMemBoard()
		p1, _ := newTestClient(t, s.ServeHTTP, WithLimiter(board))
		p2, _ := newTestClient(t, s.ServeHTTP, WithLimiter(board))
		start := time.Now()
		time.AfterFunc(20200*time.Millisecond, func() {
			s.set("a", "active")
			s.set("b", "active")
		})
		var wg sync.WaitGroup
		var end1, end2 time.Duration
		wg.Go(func() {
			assert.NoError(t, waitActive(boundedCtx(t), p1))
			end1 = time.Since(start)
		})
		time.Sleep(500 * time.Millisecond)
		var lists int
		wg.Go(func() {
			time.Sleep(5 * time.Second) // both processes walk by then
			lists, _ = s.counts("a")
			assert.NoError(t, waitActive(boundedCtx(t), p2))
			end2 = time.Since(start)
		})
		wg.Wait()
		t.Logf("first process done at %v, second at %v", end1, end2)
		assert.LessOrEqual(t, (end1 - end2).Abs(), walkCheck, "the waits of both processes end with the first page that shows the change")
		all, _ := s.counts("a")
		t.Logf("pages from 5 s on: %d", all-lists)
		assert.LessOrEqual(t, all-lists, 17, "one page a second from 5 s on, for both processes")
	})
}

// TestWaitsThatDoNotShareWalksDoNotAskTheBoard: when the list is refused, the waits read on their
// own, and the poller does not ask the board between walks that do not come.
func TestWaitsThatDoNotShareWalksDoNotAskTheBoard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		s.status = http.StatusForbidden
		board := newMemBoard()
		c, _ := newTestClient(t, s.ServeHTTP, WithLimiter(board))
		time.AfterFunc(10*time.Second, func() {
			s.set("a", "active")
			s.set("b", "active")
		})
		require.NoError(t, waitActive(boundedCtx(t), c))
		board.mu.Lock()
		defer board.mu.Unlock()
		assert.LessOrEqual(t, board.seens, 2, "the board asked while no walk could use it")
	})
}

// TestAProcessTakingAnothersPagesLearnsTheListKeepsItsSize: this process's first walks see 13
// instances. From 0.7 s another process walks the list every quarter of a second and posts its
// pages, which answer this process's eight waits, and each page's total_count, 8 each time (it
// shows the list as it will be); it leaves at 5 s, when the list shrinks to 8. This process, whose
// own last page said 13, knows from the board that the list keeps its size: its own walks come a
// quarter of a second apart from the first, not a second.
func TestAProcessTakingAnothersPagesLearnsTheListKeepsItsSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := eightCreating(10 * time.Second)
		s.extra = 5
		time.AfterFunc(5*time.Second, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.extra = 0
		})
		pages := &listTimes{s: s}
		board := newMemBoard()
		c, _ := newTestClient(t, pages.serve, WithLimiter(board))
		var start5s time.Time
		var other func()
		other = func() { // the other process's walk: one page, eight instances, all creating
			ctx := context.Background()
			mark, err := board.Mark(ctx)
			require.NoError(t, err)
			items := map[string][]byte{}
			for i := range 8 {
				id := fmt.Sprintf("w%d", i)
				items[id] = []byte(`{"id":"` + id + `","status":"creating"}`)
			}
			assert.NoError(t, board.Post(ctx, "instances", mark, items))
			assert.NoError(t, board.Post(ctx, "instances"+countList, mark, map[string][]byte{countID: []byte("8")}))
			if time.Now().Before(start5s) {
				time.AfterFunc(walkEager, other)
			}
		}
		start5s = time.Now().Add(5 * time.Second)
		time.AfterFunc(700*time.Millisecond, other)
		require.NoError(t, eightWaits(boundedCtx(t), c))
		var own []time.Time
		for _, at := range pages.times() {
			if at.After(start5s) {
				own = append(own, at)
			}
		}
		require.Greater(t, len(own), 3)
		for i := 1; i < len(own); i++ {
			assert.Less(t, own[i].Sub(own[i-1]), DefaultPollMin/2, "own walk %d came %s after the one before", i+1, own[i].Sub(own[i-1]))
		}
	})
}
