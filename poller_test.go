package compute

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pollServer is a service of instances for the shared polling's tests: what a list shows and what a
// GET of one instance says are set apart, as on a service whose list lags.
type pollServer struct {
	mu     sync.Mutex
	listed map[string]string         // id -> status, as the list shows it
	got    map[string]string         // id -> status, as its GET says; "" is a 404
	total  int                       // total_count; len(listed) when 0
	status int                       // when set, every list is refused with it
	full   bool                      // every page is full of other instances, whatever total_count says
	extra  int                       // other instances, listed after those of listed, 100 a page
	refuse func(http.ResponseWriter) // when set, answers every list instead
	hang   bool                      // every list hangs until its request ends
	grow   bool                      // each list raises total_count by a page: there is always one more
	delay  time.Duration             // each list answers after it
	fail   int                       // the next lists answer 503
	lists  int
	gets   map[string]int
}

func newPollServer() *pollServer {
	return &pollServer{listed: map[string]string{}, got: map[string]string{}, gets: map[string]int{}}
}

func (s *pollServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	hang, delay := s.hang && r.URL.Path == "/compute/v1/instances", s.delay
	s.mu.Unlock()
	if hang {
		s.mu.Lock()
		s.lists++
		s.mu.Unlock()
		<-r.Context().Done()
		return
	}
	if delay > 0 && r.URL.Path == "/compute/v1/instances" {
		time.Sleep(delay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := strings.CutPrefix(r.URL.Path, "/compute/v1/instances/"); ok {
		s.gets[id]++
		if st := s.got[id]; st != "" {
			replyJSON(w, http.StatusOK, map[string]any{"instance": map[string]any{"id": id, "status": st}})
			return
		}
		replyJSON(w, http.StatusNotFound, map[string]string{"code": "02008", "message": "not found"})
		return
	}
	s.lists++
	if s.refuse != nil {
		s.refuse(w)
		return
	}
	if s.status != 0 {
		replyJSON(w, s.status, map[string]string{"code": "02043", "message": "no"})
		return
	}
	if s.fail > 0 {
		s.fail--
		replyJSON(w, http.StatusServiceUnavailable, map[string]string{"message": "try later"})
		return
	}
	ids := slices.Sorted(maps.Keys(s.listed))
	for i := range s.extra {
		ids = append(ids, fmt.Sprintf("~other-%04d", i)) // after the awaited ones
	}
	total := s.total
	if total == 0 {
		total = len(ids)
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	if s.grow {
		total = (page + 1) * 100 // full pages, and the count says one more
	}
	ids = ids[min(len(ids), (page-1)*100):min(len(ids), page*100)]
	items := []map[string]any{}
	for _, id := range ids {
		st, ok := s.listed[id]
		if !ok {
			st = "active"
		}
		items = append(items, map[string]any{"id": id, "status": st})
	}
	if s.full || s.grow {
		items = nil
		for i := range 100 {
			items = append(items, map[string]any{"id": strconv.Itoa(page*100 + i), "status": "active"})
		}
	}
	replyJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": total, "page": page, "per_page": 100})
}

// set makes id show status both in the list and in its GET.
func (s *pollServer) set(id, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listed[id], s.got[id] = status, status
}

func (s *pollServer) counts(id string) (lists, gets int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, s.gets[id]
}

// waitActive waits until instances a and b are active, both waits in flight at once.
func waitActive(ctx context.Context, c *Client) error {
	return WaitAll(ctx, []string{"a", "b"}, func(ctx context.Context, id string) error {
		_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
		return err
	})
}

// TestWaitsShareAWalk: two waits in flight read their instances from one list walk a second, not a
// GET each, and both end when the walk shows them active.
func TestWaitsShareAWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		err := waitActive(context.Background(), c)
		require.NoError(t, err)
		lists, getsA := s.counts("a")
		_, getsB := s.counts("b")
		assert.LessOrEqual(t, getsA+getsB, 2, "at most the first poll of each, before the walks began")
		assert.InDelta(t, 21, lists, 2, "a walk a second")
	})
}

// TestAResourceMissingFromAWalkIsReadAlone: a list that no longer shows an instance (it lags behind,
// or the instance is gone) does not make a wait for its deletion end: the instance's own GET says,
// and only its 404 ends the wait.
func TestAResourceMissingFromAWalkIsReadAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "deleting")
		s.set("b", "deleting")
		s.mu.Lock()
		delete(s.listed, "a") // the list lags: a is still there
		s.mu.Unlock()
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		time.AfterFunc(10*time.Second, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			delete(s.got, "a")
			delete(s.got, "b")
			delete(s.listed, "b")
		})
		start := time.Now()
		err := WaitAll(context.Background(), []string{"a", "b"}, func(ctx context.Context, id string) error {
			return c.Instances.WaitForDeletion(ctx, id)
		})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, time.Since(start), 10*time.Second, "a missing from the list was not taken as gone")
		_, getsA := s.counts("a")
		assert.GreaterOrEqual(t, getsA, 3, "a was read on its own, with its own backoff")
	})
}

// TestAListLongerThanTheWaitsIsNotWalked: when the list holds more pages than there are waits, a GET
// each is cheaper: the waits read on their own after one page.
func TestAListLongerThanTheWaitsIsNotWalked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		s.total = 1000
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		err := waitActive(context.Background(), c)
		require.NoError(t, err)
		lists, gets := s.counts("a")
		assert.Equal(t, 1, lists, "one page showed the list's length")
		assert.Greater(t, gets, 3)
	})
}

// TestAWalkStopsPastTotalCount: a list whose pages stay full past what its total_count says ends
// each walk a page past the count; the waits read what it missed on their own.
func TestAWalkStopsPastTotalCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.got["a"], s.got["b"] = "creating", "creating"
		s.full, s.total = true, 1
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		err := waitActive(context.Background(), c)
		require.NoError(t, err)
		lists, gets := s.counts("a")
		assert.LessOrEqual(t, lists, 30, "two pages a walk, a walk every two seconds")
		assert.Greater(t, gets, 1, "a was read on its own")
	})
}

// TestAWalkThatFailsForATimeFallsBackToGETs: while the list answers 503, each wait reads its own
// instance, and both end when their GETs say active.
func TestAWalkThatFailsForATimeFallsBackToGETs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		s.status = http.StatusServiceUnavailable
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		time.AfterFunc(10*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		start := time.Now()
		err := waitActive(ctx, c)
		require.NoError(t, err)
		assert.Less(t, time.Since(start), time.Minute, "the waits saw their GETs")
	})
}

// TestAWalkRefusedLeavesTheWaitsToTheirGETs: three waits together succeed where each alone would,
// whatever the list answers: a 403 (a token allowed its instances but not the list), a proxy's 400,
// a page longer than per_page. The walk's error is never a wait's; after a refusal the list is not
// asked again while the waits run.
func TestAWalkRefusedLeavesTheWaitsToTheirGETs(t *testing.T) {
	for name, refuse := range map[string]func(http.ResponseWriter){
		"403": func(w http.ResponseWriter) {
			replyJSON(w, http.StatusForbidden, map[string]string{"code": "02043", "message": "Permission denied"})
		},
		"a proxy's 400": func(w http.ResponseWriter) { replyRaw(w, http.StatusBadRequest, "<html>Bad Request</html>") },
		"a page longer than per_page": func(w http.ResponseWriter) {
			var items []map[string]any
			for i := range 101 {
				items = append(items, map[string]any{"id": fmt.Sprint("x", i), "status": "active"})
			}
			replyJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": 101, "page": 1, "per_page": 100})
		},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newPollServer()
				ids := []string{"a", "b", "c"}
				for _, id := range ids {
					s.set(id, "creating")
				}
				s.refuse = refuse
				c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
				time.AfterFunc(20*time.Second, func() {
					for _, id := range ids {
						s.set(id, "active")
					}
				})
				err := WaitAll(boundedCtx(t), ids, func(ctx context.Context, id string) error {
					_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
					return err
				})
				require.NoError(t, err)
				lists, _ := s.counts("a")
				assert.LessOrEqual(t, lists, 2, "a refused walk is not tried again while the waits run")
			})
		})
	}
}

// TestAWaitEndsOnItsOwnRefusal: when the list is refused and so is a wait's own GET, the wait ends
// with its own GET's refusal, at once.
func TestAWaitEndsOnItsOwnRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		s.status = http.StatusForbidden
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/b") {
				replyJSON(w, http.StatusForbidden, map[string]string{"code": "01204", "message": "Permission denied"})
				return
			}
			s.ServeHTTP(w, r)
		}, WithoutRateLimit())
		time.AfterFunc(10*time.Second, func() { s.set("a", "active") })
		var errA, errB error
		_ = WaitAll(boundedCtx(t), []string{"a", "b"}, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			if id == "a" {
				errA = err
			} else {
				errB = err
			}
			return err
		})
		require.NoError(t, errA)
		require.ErrorIs(t, errB, CodeAuthPermissionDenied)
	})
}

// TestAListErrorNeverEndsAWaitForDeletion: three waits for deletion share a walk while the list
// route answers 404 without a code (a gateway's JSON, a proxy's HTML page); their own GETs say
// deleting, so none ends until its GET answers the instance's not-found.
func TestAListErrorNeverEndsAWaitForDeletion(t *testing.T) {
	for name, refuse := range map[string]func(http.ResponseWriter){
		"a gateway's JSON": func(w http.ResponseWriter) {
			replyJSON(w, http.StatusNotFound, map[string]string{"message": "no route"})
		},
		"a proxy's HTML": func(w http.ResponseWriter) { replyRaw(w, http.StatusNotFound, "<html>Not Found</html>") },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newPollServer()
				ids := []string{"a", "b", "c"}
				for _, id := range ids {
					s.set(id, "deleting")
				}
				s.refuse = refuse
				c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
				time.AfterFunc(30*time.Second, func() {
					s.mu.Lock()
					defer s.mu.Unlock()
					for _, id := range ids {
						delete(s.got, id)
						delete(s.listed, id)
					}
				})
				start := time.Now()
				err := WaitAll(boundedCtx(t), ids, func(ctx context.Context, id string) error {
					err := c.Instances.WaitForDeletion(ctx, id)
					assert.GreaterOrEqual(t, time.Since(start), 30*time.Second, "%s was called gone while its GET said deleting", id)
					return err
				})
				require.NoError(t, err)
			})
		})
	}
}

// TestFewWaitsOnALongListAreReleased: when the waits in flight fall below the list's pages, the
// walks stop paying; a wait blocked for the next walk then reads on its own at once instead of
// waiting for a walk that never comes. Twelve instances turn active 3 s apart while the
// account holds 450 more (five pages).
func TestFewWaitsOnALongListAreReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		var ids []string
		for i := range 12 {
			id := fmt.Sprintf("i-%02d", i)
			ids = append(ids, id)
			s.set(id, "creating")
			time.AfterFunc(time.Duration(5+3*i)*time.Second, func() { s.set(id, "active") })
		}
		s.extra = 450
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		start := time.Now()
		err := WaitAll(ctx, ids, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			return err
		})
		require.NoError(t, err, "no wait was left blocked for a walk")
		assert.Less(t, time.Since(start), 2*time.Minute)
	})
}

// TestAPanicInTheSharedWalkReachesTheWaits: an Observer that panics on the walk's pages panics in
// each wait that shares the walk, on the wait's goroutine, where its caller recovers it; nothing
// panics on a goroutine of the client's.
func TestAPanicInTheSharedWalkReachesTheWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit(),
			WithObserver(Observer{Page: func(context.Context, PageRead) { panic("observer bug") }}))
		err := WaitAll(context.Background(), []string{"a", "b"}, func(ctx context.Context, id string) (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("recovered: %v", r)
				}
			}()
			_, err = c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			return err
		})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "recovered: observer bug")
	})
}

// TestAStalledListHoldsNoWait: the list hangs while each instance's own GET shows it active after a
// second (or five). The waits poll every second (a fixed interval: with the default jittered
// backoff a wait alone may first see the change anywhere up to 20 s in, which no bound short of
// that can hold). A wait alone sees the change at its first poll after it; two waits together must
// too, not at their deadline: a wait joined to a walk whose page has not answered within a poll
// interval (1 s after its sending) reads on its own, and keeps doing so while the walk is stuck.
func TestAStalledListHoldsNoWait(t *testing.T) {
	for _, active := range []time.Duration{time.Second, 5 * time.Second} {
		t.Run(active.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newPollServer()
				s.set("a", "creating")
				s.set("b", "creating")
				s.hang = true
				c, _ := newTestClient(t, s.ServeHTTP)
				time.AfterFunc(active, func() { s.set("a", "active"); s.set("b", "active") })
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				start := time.Now()
				require.NoError(t, WaitAll(ctx, []string{"a", "b"}, func(ctx context.Context, id string) error {
					_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive, WithPollInterval(time.Second, time.Second))
					return err
				}))
				// The polls a second apart from the stall on: the first at or after the change
				// ends each wait.
				assert.LessOrEqual(t, time.Since(start), active+time.Second, "as soon as one wait alone would")
				lists, _ := s.counts("a")
				assert.Equal(t, 1, lists, "the stuck page is not asked again meanwhile")
			})
		})
	}
}

// TestAStalledListCountsNoLimiterWait: a page that waits in the client's limiter behind other
// requests has not been sent, so it is no stall: the waits stay on the walk and send no GET.
func TestAStalledListCountsNoLimiterWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		s.delay = 200 * time.Millisecond // answered, within a poll interval
		c, _ := newTestClient(t, s.ServeHTTP, WithRateLimit(0.5, 1))
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		require.NoError(t, waitActive(boundedCtx(t), c))
		_, getsA := s.counts("a")
		_, getsB := s.counts("b")
		assert.LessOrEqual(t, getsA+getsB, 2, "a page 2 s in the limiter's queue released no wait")
	})
}

// TestAGrowingListReleasesTheWaits: each page of the list says there is one page more. The walk
// decides page by page whether walking still costs less than a GET each; two waits on instances the
// list does not show (it lags) are released after the second page, not held while the walk follows
// the list to their deadline.
func TestAGrowingListReleasesTheWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.got["a"], s.got["b"] = "creating", "creating"
		s.grow = true
		s.delay = 50 * time.Millisecond
		c, _ := newTestClient(t, s.ServeHTTP)
		time.AfterFunc(time.Second, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.got["a"], s.got["b"] = "active", "active"
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		require.NoError(t, waitActive(ctx, c))
		assert.LessOrEqual(t, time.Since(start), 3*time.Second)
		lists, _ := s.counts("a")
		assert.LessOrEqual(t, lists, 2, "the walk stopped when a third page would cost more than two GETs")
	})
}

// TestALeavingWaitReleasesTheOthersAtOnce: three waits share the walks of a three-page list; when
// one leaves (its deadline passes), walking costs more than a GET each, and the two waits blocked
// for the next walk read on their own at that instant, not when the walk would have come.
func TestALeavingWaitReleasesTheOthersAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		ids := []string{"a", "b", "c"}
		for _, id := range ids {
			s.set(id, "creating")
		}
		s.extra = 250 // three pages in all
		var mu sync.Mutex
		var getsB []time.Duration
		start := time.Now()
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/compute/v1/instances/b" {
				mu.Lock()
				getsB = append(getsB, time.Since(start))
				mu.Unlock()
			}
			s.ServeHTTP(w, r)
		})
		leave := 5500 * time.Millisecond // between two walks, a second apart
		time.AfterFunc(8*time.Second, func() { s.set("b", "active"); s.set("c", "active") })
		err := WaitAll(boundedCtx(t), ids, func(ctx context.Context, id string) error {
			if id == "a" {
				ctx, cancel := context.WithTimeout(ctx, leave)
				defer cancel()
				_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				return nil
			}
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			return err
		})
		require.NoError(t, err)
		mu.Lock()
		defer mu.Unlock()
		assert.Contains(t, getsB, leave, "b read on its own the instant a left; its GETs: %v", getsB)
	})
}

// TestAListFailureForATimeStopsNoWalks: the list answers 503 past the client's retries once; each
// wait reads on its own meanwhile, and the walks that follow serve the waits again.
func TestAListFailureForATimeStopsNoWalks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		s.fail = 5 // the first walk's page and its four retries
		var shared atomic.Int32
		c, _ := newTestClient(t, s.ServeHTTP, WithObserver(Observer{Poll: func(_ context.Context, p Poll) {
			if p.Shared {
				shared.Add(1)
			}
		}}))
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		require.NoError(t, waitActive(boundedCtx(t), c))
		lists, _ := s.counts("a")
		assert.Greater(t, lists, 10, "the walks went on after the failed one")
		assert.Greater(t, int(shared.Load()), 10, "and served the waits")
	})
}

// TestALongListOnceSeenDoesNotKeepLaterWaitsApart: two waits meet a ten-page list and read on their
// own, as walking would cost more than their GETs. The account is then cleaned up to one page; a
// later pair of waits on the same client must share the walks of the list as it is now, not keep to
// their own GETs because of the length it had before.
func TestALongListOnceSeenDoesNotKeepLaterWaitsApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		s.extra = 950 // ten pages
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		time.AfterFunc(5*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		require.NoError(t, waitActive(boundedCtx(t), c))
		time.Sleep(5 * time.Second) // the first run of waits has ended

		s.mu.Lock()
		s.extra = 0 // the account was cleaned up: one page
		s.lists, s.gets = 0, map[string]int{}
		s.mu.Unlock()
		s.set("a", "creating")
		s.set("b", "creating")
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		require.NoError(t, waitActive(boundedCtx(t), c))
		lists, getsA := s.counts("a")
		_, getsB := s.counts("b")
		assert.LessOrEqual(t, getsA+getsB, 2, "at most the first poll of each, before the walks began")
		assert.InDelta(t, 21, lists, 2, "a walk a second")
	})
}

// TestAWalkOfAFleetOfCreatesReadsFromTheEnd: waits on the six newest instances of a five-page
// list, as a fleet of creates has them, are served by walks of the last page alone (the newest
// come first, and once every awaited instance is seen the walk stops), one a second, so all end
// within a second or so of turning active. The first walk reads page 1 for the list's count, then
// jumps to the end the count says.
func TestAWalkOfAFleetOfCreatesReadsFromTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		for i := range 400 {
			s.set(fmt.Sprintf("i-%04d", i), "active")
		}
		var ids []string
		for i := range 6 {
			ids = append(ids, fmt.Sprint("z", i)) // sorted last: the newest
			s.set(ids[i], "creating")
		}
		var mu sync.Mutex
		var pages []string
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/compute/v1/instances" {
				mu.Lock()
				pages = append(pages, r.URL.Query().Get("page"))
				mu.Unlock()
			}
			s.ServeHTTP(w, r)
		}, WithoutRateLimit())
		start := time.Now()
		time.AfterFunc(20*time.Second, func() {
			for _, id := range ids {
				s.set(id, "active")
			}
		})
		err := WaitAll(context.Background(), ids, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			return err
		})
		require.NoError(t, err)
		assert.LessOrEqual(t, time.Since(start), 21500*time.Millisecond, "all end within a walk of turning active")
		mu.Lock()
		defer mu.Unlock()
		require.GreaterOrEqual(t, len(pages), 3)
		assert.Equal(t, "1", pages[0], "the first walk reads page 1 for the list's count")
		for i, p := range pages[1:] {
			assert.Equal(t, "5", p, "page read %d is another than the last", i+2)
		}
	})
}

// newestBeside returns a pollServer listing active instances before the awaited ones, z0, z1, ...,
// which are creating and come last: the newest of a fleet of creates.
func newestBeside(active, awaited int) (*pollServer, []string) {
	s := newPollServer()
	for i := range active {
		s.set(fmt.Sprintf("i-%04d", i), "active")
	}
	var ids []string
	for i := range awaited {
		ids = append(ids, fmt.Sprint("z", i))
		s.set(ids[i], "creating")
	}
	return s, ids
}

// pagesRead serves s and records the page number of each request for the list of instances.
type pagesRead struct {
	s     *pollServer
	mu    sync.Mutex
	pages []string
}

func (l *pagesRead) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/compute/v1/instances" {
		l.mu.Lock()
		l.pages = append(l.pages, r.URL.Query().Get("page"))
		l.mu.Unlock()
	}
	l.s.ServeHTTP(w, r)
}

func (l *pagesRead) read() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.pages)
}

// waitAllActive waits until each of ids is active, all in flight at once.
func waitAllActive(c *Client, ids ...string) error {
	return WaitAll(context.Background(), ids, func(ctx context.Context, id string) error {
		_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
		return err
	})
}

// TestTheLastWaitsOfAFleetKeepSharingOnePageWalks: once fewer waits remain than the list has
// pages, walks that read only the last page to see them all still cost less than a GET each: the
// last two waits of a fleet take their instances from one page a second, not a GET each a second.
func TestTheLastWaitsOfAFleetKeepSharingOnePageWalks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, ids := newestBeside(500, 6) // six pages
		pages := &pagesRead{s: s}
		c, _ := newTestClient(t, pages.serve, WithoutRateLimit())
		time.AfterFunc(10*time.Second, func() {
			for _, id := range ids[:4] {
				s.set(id, "active")
			}
		})
		time.AfterFunc(20*time.Second, func() { s.set("z4", "active"); s.set("z5", "active") })
		start := time.Now()
		require.NoError(t, waitAllActive(c, ids...))
		assert.LessOrEqual(t, time.Since(start), 21500*time.Millisecond, "the last two end within a walk of turning active")
		_, gets4 := s.counts("z4")
		_, gets5 := s.counts("z5")
		assert.LessOrEqual(t, gets4+gets5, 2, "at most the first poll of each, before the walks began")
		read := pages.read()
		require.Greater(t, len(read), 12)
		for i, p := range read[6:] {
			assert.Equal(t, "6", p, "walk %d read another page than the last", i+2)
		}
	})
}

// TestAWalkTrustsACountThatEndsTheListOnAFullPage: on a list of five full pages, whose count says
// so, the walks after the first read the fifth page alone, not a sixth, empty one first.
func TestAWalkTrustsACountThatEndsTheListOnAFullPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, ids := newestBeside(494, 6) // five full pages
		pages := &pagesRead{s: s}
		c, _ := newTestClient(t, pages.serve, WithoutRateLimit())
		time.AfterFunc(10*time.Second, func() {
			for _, id := range ids {
				s.set(id, "active")
			}
		})
		require.NoError(t, waitAllActive(c, ids...))
		read := pages.read()
		require.Greater(t, len(read), 8)
		assert.NotContains(t, read, "6", "no walk read past the page the count ends on")
		last := slices.Index(read, "5") // the first walk found the end there
		require.GreaterOrEqual(t, last, 0)
		for i, p := range read[last+1:] {
			assert.Equal(t, "5", p, "page %d after the end was found is not the last", i+1)
		}
	})
}

// TestAWalkWhosePagesWaitInTheLimiterIsSpacedOut: when the limiter holds each page for two
// seconds (another process sharing the budget uses the rate), the walks are spaced out: the next
// starts walkMaxGap after the last one's page was sent (and its page then waits two seconds too),
// not as soon as the last ends.
func TestAWalkWhosePagesWaitInTheLimiterIsSpacedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		s.set("a", "creating")
		s.set("b", "creating")
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithLimiter(limiterFunc(func(ctx context.Context) (func(), error) {
			return nil, sleep(ctx, 2*time.Second)
		})))
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		require.NoError(t, waitActive(context.Background(), c))
		at := pages.times()
		require.Greater(t, len(at), 2)
		for i := 2; i < len(at); i++ {
			assert.Equal(t, walkMaxGap+2*time.Second, at[i].Sub(at[i-1]), "walk %d", i)
		}
	})
}

// listTimes serves s and records when each request for the list of instances arrived.
type listTimes struct {
	s  *pollServer
	mu sync.Mutex
	at []time.Time
}

func (l *listTimes) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/compute/v1/instances" {
		l.mu.Lock()
		l.at = append(l.at, time.Now())
		l.mu.Unlock()
	}
	l.s.ServeHTTP(w, r)
}

// times returns the arrival times recorded so far.
func (l *listTimes) times() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.at)
}

// creatingBeside returns a pollServer where each of ids is creating and instance "other", which
// busyClient and queueReads read, is active.
func creatingBeside(ids ...string) *pollServer {
	s := newPollServer()
	for _, id := range ids {
		s.set(id, "creating")
	}
	s.set("other", "active")
	return s
}

// queueReads queues n reads of instance "other" through c at once, on wg: a burst of the
// client's own requests (a fleet's creates) that the limiter lets go one at a time.
func queueReads(c *Client, wg *sync.WaitGroup, n int) {
	for range n {
		wg.Go(func() { _, _ = c.Instances.Get(context.Background(), "other") })
	}
}

// busyClient keeps workers goroutines reading instance "other" through c until stop is closed,
// so that c's limiter always holds requests waiting for their turn: a fleet of creates, say.
func busyClient(c *Client, workers int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = c.Instances.Get(context.Background(), "other")
			}
		})
	}
	return &wg
}

// TestWalksTakeAFewPercentOfABusyClientsRequests: while 5 other callers keep the client's limiter
// (10 a second) full, three waits sharing walks of a one-page list take no more than walkShare of
// the requests sent, and still see an instance turn active within walkMaxGap (the share spaces
// them by about 2 s here), a page's wait in the queue and a second of it. Once the others are
// done, the walks come a second apart again.
func TestWalksTakeAFewPercentOfABusyClientsRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b", "c")
		var mu sync.Mutex
		var total, busy int
		start := time.Now()
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			total++
			if r.URL.Path == "/compute/v1/instances" && time.Since(start) < 90*time.Second {
				busy++
			}
			mu.Unlock()
			s.ServeHTTP(w, r)
		}, WithRateLimit(10, 1))
		stop := make(chan struct{})
		others := busyClient(c, 5, stop)
		time.AfterFunc(60*time.Second, func() { s.set("a", "active") })
		time.AfterFunc(90*time.Second, func() { close(stop) })
		time.AfterFunc(100*time.Second, func() { s.set("b", "active"); s.set("c", "active") })
		var endedA time.Duration
		err := WaitAll(boundedCtx(t), []string{"a", "b", "c"}, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			if id == "a" {
				endedA = time.Since(start)
			}
			return err
		})
		require.NoError(t, err)
		others.Wait()
		end := time.Since(start)
		mu.Lock()
		defer mu.Unlock()
		// About 900 requests in the 90 busy seconds, at most 5% of them pages.
		t.Logf("%d list pages in the busy 90 s, %d requests in all; a ended at %s, b and c at %s", busy, total, endedA, end)
		assert.LessOrEqual(t, float64(busy), walkShare*float64(total)+1, "list pages while busy")
		// The share counts from each walk's end: the requests that went while its page waited in
		// the queue do not bring the next walk sooner.
		perPage := int(1/walkShare) + 1
		assert.LessOrEqual(t, busy*perPage, total+perPage, "each page followed by %d of the client's other requests", perPage-1)
		assert.LessOrEqual(t, endedA, 60*time.Second+walkMaxGap+4*time.Second, "a seen active soon after it turned")
		assert.LessOrEqual(t, end, 100*time.Second+1100*time.Millisecond, "b and c seen at the next walk, a second apart once the others were done")
	})
}

// TestWalksComeASecondApartOnceTheClientsOwnRequestsAreDone: a walk whose page waited seconds in
// the limiter behind the client's own requests (a fleet's creates) is no sign that others share
// the rate: once those requests are done, the next walk comes a second after the last, not
// walkMaxGap after it.
func TestWalksComeASecondApartOnceTheClientsOwnRequestsAreDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		c, _ := newTestClient(t, s.ServeHTTP, WithRateLimit(10, 1))
		stop := make(chan struct{})
		others := busyClient(c, 30, stop) // each request waits about 3 s for its turn
		time.AfterFunc(20*time.Second, func() { close(stop) })
		time.AfterFunc(25*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		start := time.Now()
		require.NoError(t, waitActive(boundedCtx(t), c))
		others.Wait()
		// The others' last requests are done by 23 s; from then on a walk a second.
		assert.LessOrEqual(t, time.Since(start), 26100*time.Millisecond)
	})
}

// eightWaits waits until instances w0 to w7 are active, each on its own goroutine.
func eightWaits(ctx context.Context, c *Client) error {
	ids := make([]string, 8)
	for i := range ids {
		ids[i] = fmt.Sprintf("w%d", i)
	}
	return WaitAll(ctx, ids, func(ctx context.Context, id string) error {
		_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
		return err
	})
}

// eightCreating returns a pollServer where instances w0 to w7 are creating, and sets them active
// at the given time.
func eightCreating(at time.Duration) *pollServer {
	s := newPollServer()
	for i := range 8 {
		s.set(fmt.Sprintf("w%d", i), "creating")
	}
	time.AfterFunc(at, func() {
		for i := range 8 {
			s.set(fmt.Sprintf("w%d", i), "active")
		}
	})
	return s
}

// TestWalksOfManyWaitsComeSoonerWhileTheRateHasRoom: eight waits polling alone would read eight
// times a second; while nothing else needs the rate and the list keeps its size, their one-page
// walk comes every quarter of a second (not sooner), so that the waits end within about that of
// their instances settling, not within a second.
func TestWalksOfManyWaitsComeSoonerWhileTheRateHasRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		settle := 10*time.Second + 10*time.Millisecond
		s := eightCreating(settle)
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithRateLimit(10, 1))
		start := time.Now()
		require.NoError(t, eightWaits(boundedCtx(t), c))
		assert.LessOrEqual(t, time.Since(start), settle+walkEager, "the waits saw their instances settle late")
		at := pages.times()
		require.Greater(t, len(at), 10)
		for i := 1; i < len(at); i++ {
			gap := at[i].Sub(at[i-1])
			assert.GreaterOrEqual(t, gap, walkEager, "walk %d came %s after the one before", i+1, gap)
			if i >= 3 { // the first walks measure the list, the next ones see it keep its size
				assert.Less(t, gap, DefaultPollMin/2, "walk %d came %s after the one before", i+1, gap)
			}
		}
	})
}

// TestTheLastWaitOfAFleetKeepsItsPace: of the eight waits, seven end at 5 s; the walks serve the
// last one to its end, every quarter of a second, so that it sees its instance settle at 10 s
// within about that, not within a second, and reads nothing alone.
func TestTheLastWaitOfAFleetKeepsItsPace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		settle := 10*time.Second + 10*time.Millisecond
		s := eightCreating(settle)
		time.AfterFunc(5*time.Second, func() {
			for i := range 7 {
				s.set(fmt.Sprintf("w%d", i), "active")
			}
		})
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithRateLimit(10, 1))
		start := time.Now()
		require.NoError(t, eightWaits(boundedCtx(t), c))
		assert.LessOrEqual(t, time.Since(start), settle+walkEager, "the last wait saw its instance settle late")
		_, gets := s.counts("w7")
		assert.LessOrEqual(t, gets, 1, "the last wait read alone")
		late := 0
		for _, at := range pages.times() {
			if at.Sub(start) > 5*time.Second+walkEager {
				late++
			}
		}
		assert.InDelta(t, 5*int(DefaultPollMin/walkEager), late, 3, "walks every quarter of a second for the last wait")

		// A wait alone, after the fleet is done, polls at its own interval again.
		s.set("w0", "creating")
		time.AfterFunc(3*time.Second, func() { s.set("w0", "active") })
		_, before := s.counts("w0")
		_, err := c.Instances.WaitForStatus(boundedCtx(t), "w0", InstanceStatusActive)
		require.NoError(t, err)
		_, after := s.counts("w0")
		assert.LessOrEqual(t, after-before, 4, "a second apart")
	})
}

// TestWalksOfAListThatChangesSizeComeAnIntervalApart: the same eight waits, while another job
// keeps creating on the account (the list grows by one instance every 300 ms, requests this client
// does not see): their walks come a second apart, as the most eager wait would poll alone, not
// every quarter of a second.
func TestWalksOfAListThatChangesSizeComeAnIntervalApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := eightCreating(10 * time.Second)
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithRateLimit(10, 1))
		var churn func()
		churn = func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.listed["w0"] == "creating" {
				s.extra++
				time.AfterFunc(300*time.Millisecond, churn)
			}
		}
		churn()
		require.NoError(t, eightWaits(boundedCtx(t), c))
		at := pages.times()
		require.Greater(t, len(at), 5)
		for i := 2; i < len(at); i++ {
			assert.GreaterOrEqual(t, at[i].Sub(at[i-1]), DefaultPollMin, "walk %d came %s after the one before", i+1, at[i].Sub(at[i-1]))
		}
	})
}

// TestWalksWhosePagesWaitForOthersComeAnIntervalApart: the same eight waits, on a client whose
// every request waits 300 ms in its limiter for others sharing the rate (another process's
// requests, which the client does not see queue): the rate has no room, and their walks come at
// least a second apart, not every quarter of a second.
func TestWalksWhosePagesWaitForOthersComeAnIntervalApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := eightCreating(10 * time.Second)
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithLimiter(limiterFunc(func(ctx context.Context) (func(), error) {
			return nil, sleep(ctx, busyWait+50*time.Millisecond)
		})))
		require.NoError(t, eightWaits(boundedCtx(t), c))
		at := pages.times()
		require.Greater(t, len(at), 2)
		for i := 2; i < len(at); i++ {
			assert.GreaterOrEqual(t, at[i].Sub(at[i-1]), DefaultPollMin, "walk %d came %s after the one before", i+1, at[i].Sub(at[i-1]))
		}
	})
}

// limiterFunc is a Limiter whose Wait is the func; it ignores 429s.
type limiterFunc func(ctx context.Context) (func(), error)

func (f limiterFunc) Wait(ctx context.Context) (func(), error) { return f(ctx) }
func (limiterFunc) Throttled(context.Context, time.Duration)   {}

// TestAWalkWhosePageWaitedBehindTheClientsRequestsIsNotRepeatedAtOnce: the first walk's page waits
// about 5 s in the limiter behind a burst of the client's own requests (a fleet's creates); by
// the time it is sent, more than its share of requests have gone, but the next walk still comes
// a second after that page was sent, not at once: it would show what the last one just showed.
func TestAWalkWhosePageWaitedBehindTheClientsRequestsIsNotRepeatedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithRateLimit(10, 1))
		var burst sync.WaitGroup
		queueReads(c, &burst, 50)    // about 5 s of the client's requests
		time.Sleep(time.Millisecond) // the burst is queued first
		start := time.Now()
		time.AfterFunc(20*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		require.NoError(t, waitActive(boundedCtx(t), c))
		burst.Wait()
		at := pages.times()
		require.Greater(t, len(at), 2)
		assert.Greater(t, at[0].Sub(start), 4*time.Second, "the first walk's page waited behind the burst")
		for i := 1; i < len(at); i++ {
			assert.GreaterOrEqual(t, at[i].Sub(at[i-1]), DefaultPollMin, "walk %d came %s after the one before", i+1, at[i].Sub(at[i-1]))
		}
	})
}

// TestAWaitThatAsksWhileAWalksFirstPageWaitsIsAnsweredByThatWalk: the walk's first page waits
// about 5 s in the limiter behind a burst of the client's own requests; a wait that asks while it
// waits is answered by that page, which is newer than its asking, not by a walk after it.
func TestAWaitThatAsksWhileAWalksFirstPageWaitsIsAnsweredByThatWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b", "c")
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithRateLimit(10, 1))
		start := time.Now()
		var burst sync.WaitGroup
		time.AfterFunc(2500*time.Millisecond, func() { // between two walks
			queueReads(c, &burst, 50) // about 5 s of the client's requests
		})
		time.AfterFunc(2600*time.Millisecond, func() {
			for _, id := range []string{"a", "b", "c"} {
				s.set(id, "active")
			}
		})
		var endedC time.Time
		time.AfterFunc(5500*time.Millisecond, func() { // the next walk started, its page waits behind the burst
			burst.Go(func() {
				_, err := c.Instances.WaitForStatus(boundedCtx(t), "c", InstanceStatusActive)
				assert.NoError(t, err)
				endedC = time.Now()
			})
		})
		require.NoError(t, waitActive(boundedCtx(t), c))
		burst.Wait()
		var after []time.Time // the pages sent after c asked
		for _, a := range pages.times() {
			if a.Sub(start) > 5500*time.Millisecond {
				after = append(after, a)
			}
		}
		require.Len(t, after, 1, "the page queued before c asked answers it: no walk after it")
		t.Logf("list pages at %v", pages.times())
		assert.Greater(t, after[0].Sub(start), 7*time.Second, "that page waited behind the burst")
		assert.Less(t, endedC.Sub(after[0]), 100*time.Millisecond, "c was answered by that page")
		_, getsC := s.counts("c")
		assert.Zero(t, getsC, "c never read alone")
	})
}

// TestWalksOfAClientWithRequestsWaitingKeepToTheirShare: another process uses the rate (each
// request waits 2 s in the limiter) and the client's own requests always wait for theirs, about
// one granted a second: its waits' walks are spaced by walkBusyGap (the share alone would wait
// 20 s), not by walkMaxGap: seeing a resource sooner would let the client send nothing sooner.
// Once its own requests are done, the walks come walkMaxGap apart again.
func TestWalksOfAClientWithRequestsWaitingKeepToTheirShare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithLimiter(limiterFunc(func(ctx context.Context) (func(), error) {
			return nil, sleep(ctx, 2*time.Second)
		})))
		stop := make(chan struct{})
		// Two requests always waiting, one granted a second; never both granted at once.
		others := busyClient(c, 1, stop)
		time.Sleep(time.Second)
		more := busyClient(c, 1, stop)
		start := time.Now()
		time.AfterFunc(100*time.Second, func() { close(stop) })
		time.AfterFunc(130*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		require.NoError(t, waitActive(boundedCtx(t), c))
		others.Wait()
		more.Wait()
		at := pages.times()
		busy := 0
		for _, a := range at {
			if a.Sub(start) < 100*time.Second {
				busy++
			}
		}
		t.Logf("list pages at %v", at)
		// In the busy 100 s, a page every walkBusyGap and the page's 2 s in the limiter: 6 or 7.
		assert.LessOrEqual(t, busy, 7, "list pages while the client's requests waited")
		for i := 1; i < len(at); i++ {
			gap := at[i].Sub(at[i-1])
			if at[i].Sub(start) < 100*time.Second {
				assert.InDelta(t, walkBusyGap+2*time.Second, gap, float64(2*walkCheck), "walk %d came %s after the one before", i+1, gap)
			}
		}
		last := at[len(at)-1]
		assert.Less(t, last.Sub(start), 130*time.Second+walkMaxGap+2*time.Second+walkCheck, "a and b seen within walkMaxGap once the client was idle")
	})
}

// TestTheFirstWaitOfABusyClientSharesTheWalkOfTheNext: the client's limiter holds a burst of its
// own requests (a fleet's creates) when a wait on a starts; b's wait starts half a second later.
// a's first poll does not queue a GET of its own behind the burst: it waits for b, and both take
// their instances from the walks.
func TestTheFirstWaitOfABusyClientSharesTheWalkOfTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "b")
		c, _ := newTestClient(t, s.ServeHTTP, WithRateLimit(10, 1))
		var burst sync.WaitGroup
		queueReads(c, &burst, 30) // about 3 s of the client's requests
		time.Sleep(time.Millisecond)
		time.AfterFunc(10*time.Second, func() { s.set("a", "active"); s.set("b", "active") })
		wait := func(id string) {
			_, err := c.Instances.WaitForStatus(boundedCtx(t), id, InstanceStatusActive)
			assert.NoError(t, err)
		}
		burst.Go(func() { wait("a") })
		time.Sleep(500 * time.Millisecond)
		wait("b")
		burst.Wait()
		lists, getsA := s.counts("a")
		_, getsB := s.counts("b")
		assert.Zero(t, getsA, "a never read alone")
		assert.Zero(t, getsB, "b never read alone")
		assert.Positive(t, lists)
	})
}

// TestTheFirstPollOfAWaitAloneInABusyClientComesWithinAnInterval: with no other wait to share a
// walk with, a wait that starts while the client's limiter holds a burst reads alone an interval
// later.
func TestTheFirstPollOfAWaitAloneInABusyClientComesWithinAnInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside()
		s.set("a", "active")
		c, _ := newTestClient(t, s.ServeHTTP, WithRateLimit(10, 1))
		var burst sync.WaitGroup
		queueReads(c, &burst, 5)
		time.Sleep(time.Millisecond)
		start := time.Now()
		_, err := c.Instances.WaitForStatus(boundedCtx(t), "a", InstanceStatusActive)
		require.NoError(t, err)
		took := time.Since(start)
		burst.Wait()
		assert.GreaterOrEqual(t, took, DefaultPollMin, "it waited an interval for company")
		assert.Less(t, took, DefaultPollMin+200*time.Millisecond, "then read alone")
		_, gets := s.counts("a")
		assert.Equal(t, 1, gets)
	})
}

// TestAWalkWhoseLastPageWaitedBehindTheClientsRequestsIsNotRepeatedAtOnce: a walk reads page 1,
// then page 2 waits about 8 s in the limiter behind a burst of the client's own requests (a
// fleet's creates). Once the burst is done, the next walk comes an interval after that last page,
// not at once because its first page went long ago: it would show what that page just showed.
func TestAWalkWhoseLastPageWaitedBehindTheClientsRequestsIsNotRepeatedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := creatingBeside("a", "zb") // zb sorts after the fillers: on page 2
		for i := range 120 {
			s.set(fmt.Sprintf("f%03d", i), "active")
		}
		s.delay = 200 * time.Millisecond
		pages := &listTimes{s: s}
		c, _ := newTestClient(t, pages.serve, WithRateLimit(10, 1))
		var burst sync.WaitGroup
		time.AfterFunc(100*time.Millisecond, func() { queueReads(c, &burst, 80) }) // page 1 is on its way
		time.AfterFunc(30*time.Second, func() { s.set("a", "active"); s.set("zb", "active") })
		err := WaitAll(boundedCtx(t), []string{"a", "zb"}, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			return err
		})
		require.NoError(t, err)
		burst.Wait()
		at := pages.times()
		require.Greater(t, len(at), 3)
		assert.Greater(t, at[1].Sub(at[0]), 6*time.Second, "page 2 waited behind the burst")
		assert.GreaterOrEqual(t, at[2].Sub(at[1]), DefaultPollMin, "the next walk came %s after the first one's last page", at[2].Sub(at[1]))
	})
}
