package compute

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fleetServer is a service of instances whose creates succeed: each POST adds an instance to the
// end of the list and answers it.
type fleetServer struct {
	mu        sync.Mutex
	names     []string
	lists     int
	posts     int
	afterPage func(page int) // runs after a page is served, under the lock
}

func (s *fleetServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodPost {
		s.posts++
		var body struct{ Name string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.names = append(s.names, body.Name)
		replyJSON(w, http.StatusCreated, map[string]any{"instance": map[string]any{
			"id": fmt.Sprint("i-", len(s.names)), "name": body.Name, "status": "creating"}})
		return
	}
	s.lists++
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	items := []map[string]any{}
	for i := (page - 1) * perPage; i < min(page*perPage, len(s.names)); i++ {
		items = append(items, map[string]any{"id": fmt.Sprint("i-", i+1), "name": s.names[i], "status": "active",
			"region": validCreate().Region, "type": validCreate().Type})
	}
	replyJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": len(s.names), "page": page, "per_page": perPage})
	if s.afterPage != nil {
		s.afterPage(page)
	}
}

// TestConcurrentCreateOnceShareTheirLookups: fifty CreateOnce calls made at once on one client, on
// an account of 250 instances, share their lookups: a walk or two of the three pages in all (four
// reads each: page 1 twice), not one walk each, and each creates its instance once.
func TestConcurrentCreateOnceShareTheirLookups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		for i := range 250 {
			s.names = append(s.names, fmt.Sprint("other-", i))
		}
		c, _ := newTestClient(t, s.ServeHTTP)
		var wg sync.WaitGroup
		var failed atomic.Int32
		for i := range 50 {
			wg.Go(func() {
				req := validCreate()
				req.Name = fmt.Sprint("web-", i)
				if _, err := c.Instances.CreateOnce(context.Background(), req); err != nil {
					failed.Add(1)
					t.Error(err)
				}
			})
		}
		wg.Wait()
		require.Zero(t, failed.Load())
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Equal(t, 50, s.posts, "one create each")
		assert.LessOrEqual(t, s.lists, 2*4, "at most two walks of three pages")
	})
}

// TestASharedLookupOutlivesItsFirstCaller: while A's lookup walk is under way, B opens the next
// shared walk and C joins it; B gives up. The walk still runs for C, which gets its answer, in B's
// trace but with none of B's call values: the Response B asked CaptureResponse to fill stays
// untouched once B has returned.
func TestASharedLookupOutlivesItsFirstCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{names: []string{"web-1"}}
		release := make(chan struct{})
		var held atomic.Bool
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if held.CompareAndSwap(false, true) {
				<-release
			}
			s.ServeHTTP(w, r)
		}, WithoutRateLimit())
		create := func(ctx context.Context, name string) (*Instance, error) {
			return createNamed(ctx, c, name)
		}
		aDone := goErr(func() error {
			_, err := create(context.Background(), "a")
			return err
		})
		synctest.Wait() // A's walk has sent its first request

		var bResp Response
		bCtx, cancel := context.WithCancel(CaptureResponse(context.Background(), &bResp))
		bDone := goErr(func() error {
			_, err := create(bCtx, "web-0")
			return err
		})
		synctest.Wait() // B opened the next walk
		cDone := make(chan *Instance, 1)
		go func() {
			v, err := create(context.Background(), "web-1")
			assert.NoError(t, err)
			cDone <- v
		}()
		synctest.Wait() // C joined it
		cancel()
		require.ErrorIs(t, <-bDone, context.Canceled)
		close(release)
		require.NoError(t, <-aDone)
		v := <-cDone
		require.NotNil(t, v)
		assert.Equal(t, "i-1", v.ID, "adopted from the walk B opened")
		assert.Equal(t, Response{}, bResp, "the walk wrote nothing into B's Response")
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Equal(t, 1, s.posts, "A's create only")
	})
}

// TestALookupReadsAListThatGrowsBetweenItsPages: while the lookup reads, other jobs add more than a
// page after each of its first four reads; the lookup follows the latest total_count to the list's
// end, never fails for the growth, and finds the name, which was there from the start.
func TestALookupReadsAListThatGrowsBetweenItsPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		for i := range 150 {
			s.names = append(s.names, fmt.Sprint("other-", i))
		}
		s.names = append(s.names, "web-1")
		s.afterPage = func(int) {
			if s.lists <= 4 {
				for i := range 150 {
					s.names = append(s.names, fmt.Sprintf("later-%d-%d", s.lists, i))
				}
			}
		}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		req := validCreate()
		req.Name = "web-1"
		v, err := c.Instances.CreateOnce(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, "i-151", v.ID)
		assert.Zero(t, s.posts, "adopted, not created")
	})
}

// TestFindByNameIsBounded: on an account of 5,000 resources all named alike, FindByName ends with
// a *TooManyMatchesError once MaxFindMatches are held, a page or two past them; a list that never
// ends (full pages of new items, a total_count of 2^30) ends it with an error within a few pages,
// not at the walk's page bound.
func TestFindByNameIsBounded(t *testing.T) {
	t.Run("many matches", func(t *testing.T) {
		s := &fleetServer{}
		for range 5000 {
			s.names = append(s.names, "web")
		}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		found, err := c.Instances.FindByName(context.Background(), "web")
		var tooMany *TooManyMatchesError
		require.ErrorAs(t, err, &tooMany)
		assert.ErrorIs(t, err, ErrConflict)
		assert.Equal(t, MaxFindMatches, tooMany.Limit)
		assert.Nil(t, found)
		assert.LessOrEqual(t, s.lists, MaxFindMatches/MaxPerPage+3, "page 1, the end, and the pages below it")
	})
	t.Run("a list that never ends", func(t *testing.T) {
		var n atomic.Int64
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			items := make([]map[string]any, MaxPerPage)
			for i := range items {
				items[i] = map[string]any{"id": fmt.Sprint(n.Add(1)), "name": "web"}
			}
			replyJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": 1 << 30})
		}, WithoutRateLimit())
		found, err := c.Instances.FindByName(context.Background(), "web")
		require.Error(t, err)
		assert.Nil(t, found)
		assert.LessOrEqual(t, rec.count(), MaxFindMatches/MaxPerPage+1)
	})
}

// TestCreateOnceNeverCreatesWhenUnsure: when every walk finds the list breaking what the lookup
// rests on (a service that lists a new resource ahead of older ones, newest first, or that counts
// more than it lists), CreateOnce refuses with ErrNameUnchecked after its walks, and creates
// nothing.
func TestCreateOnceNeverCreatesWhenUnsure(t *testing.T) {
	t.Run("a new resource listed ahead of older ones", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
			s.others(k, MaxPerPage+50)
			s.after = func(page int) {
				if page == 1 { // another job creates one, which this service lists first
					s.items = append([]map[string]any{k.item(fmt.Sprint("new", s.lists), "other")}, s.items...)
				}
			}
			_, err := k.create(context.Background(), c, "web-1")
			var checkErr *NameCheckError
			require.ErrorAs(t, err, &checkErr)
			assert.ErrorIs(t, err, ErrNameUnchecked)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown)
			posts, lists := s.counts()
			assert.Zero(t, posts)
			assert.Equal(t, 3*lookUpWalks, lists, "page 1, page 2 and page 1 again, each walk")
		})
	})
	t.Run("an item listed later than before", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
			s.others(k, MaxPerPage+50)
			s.after = func(page int) {
				if page == 2 { // the first two swap places
					s.items[0], s.items[1] = s.items[1], s.items[0]
				}
			}
			_, err := k.create(context.Background(), c, "web-1")
			require.ErrorIs(t, err, ErrNameUnchecked)
			posts, _ := s.counts()
			assert.Zero(t, posts)
		})
	})
	t.Run("the count stays above what is listed", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
			s.others(k, MaxPerPage+50)
			s.long = true
			_, err := k.create(context.Background(), c, "web-1")
			require.ErrorIs(t, err, ErrNameUnchecked)
			posts, _ := s.counts()
			assert.Zero(t, posts)
		})
	})
}

// TestAPanicInASharedLookupReachesItsCallers: an Observer that panics on the lookup's pages panics
// in the CreateOnce calls that share the walk, on their goroutines, where their callers recover it;
// nothing panics on a goroutine of the client's, and nothing is created.
func TestAPanicInASharedLookupReachesItsCallers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit(),
			WithObserver(Observer{Page: func(context.Context, PageRead) { panic("observer bug") }}))
		var wg sync.WaitGroup
		var recovered atomic.Int32
		for i := range 3 {
			wg.Go(func() {
				defer func() {
					if r := recover(); r == "observer bug" {
						recovered.Add(1)
					}
				}()
				req := validCreate()
				req.Name = fmt.Sprint("web-", i)
				_, _ = c.Instances.CreateOnce(context.Background(), req)
			})
		}
		wg.Wait()
		assert.Equal(t, int32(3), recovered.Load())
		assert.Zero(t, s.posts)
	})
}

// TestASharedLookupThatFailsForATimeIsWalkedAlone: the shared walk of three CreateOnce calls meets
// a 503 (no retries); each lookup then walks on its own and each call creates its instance, instead
// of all three ending with the one failure.
func TestASharedLookupThatFailsForATimeIsWalkedAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		var lists atomic.Int32
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && lists.Add(1) == 1 {
				replyJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "02004", "message": "busy"})
				return
			}
			s.ServeHTTP(w, r)
		}, WithoutRateLimit(), WithoutRetries())
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				req := validCreate()
				req.Name = fmt.Sprint("web-", i)
				_, err := c.Instances.CreateOnce(context.Background(), req)
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		assert.Equal(t, 3, s.posts)
	})
}

// TestCreateOnceFindsANameThatChurnMovedOntoAReadPage: 150 resources listed oldest first, the one
// named web-1 the 101st. Between the lookup's pages another job deletes a resource of page 1 and
// creates one, so the count stays 150 and no page disagrees with another, while web-1 moves onto
// page 1, already read. CreateOnce still finds it and creates nothing; so does a lookup that meets
// such churn after every page it reads, and the lookups after a lost create.
func TestCreateOnceFindsANameThatChurnMovedOntoAReadPage(t *testing.T) {
	seed := func(k onceKind, s *onceServer) {
		s.others(k, MaxPerPage)
		s.items = append(s.items, k.item("mine", "web-1"))
		for i := range 49 {
			s.items = append(s.items, k.item(fmt.Sprintf("late%d", i), "other"))
		}
	}
	t.Run("once, between pages 1 and 2", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
			seed(k, s)
			s.after = func(page int) {
				if s.lists == 1 {
					s.items = append(s.items[1:], k.item("churn", "other")) // a delete on page 1, a create
				}
			}
			id, err := k.create(context.Background(), c, "web-1")
			require.NoError(t, err)
			assert.Equal(t, "mine", id)
			posts, _ := s.counts()
			assert.Zero(t, posts, "adopted, not created again")
		})
	})
	t.Run("after every page", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
			seed(k, s)
			s.after = func(page int) {
				s.items = append(s.items[1:], k.item(fmt.Sprint("churn", s.lists), "other"))
			}
			id, err := k.create(context.Background(), c, "web-1")
			require.NoError(t, err)
			assert.Equal(t, "mine", id)
			posts, _ := s.counts()
			assert.Zero(t, posts)
		})
	})
	t.Run("after every page, wherever the name is", func(t *testing.T) {
		k := onceKinds[0]
		for at := 0; at < 4*MaxPerPage+50; at += 7 {
			synctest.Test(t, func(t *testing.T) {
				s := &onceServer{key: k.key}
				c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
				s.others(k, 4*MaxPerPage+50)
				s.items[at] = k.item("mine", "web-1")
				s.after = func(page int) {
					if i := slices.IndexFunc(s.items, func(v map[string]any) bool { return v["id"] != "mine" }); i >= 0 && i < at {
						s.items = slices.Delete(s.items, i, i+1) // an older one deleted
					}
					s.items = append(s.items, k.item(fmt.Sprint("churn", s.lists), "other"))
				}
				id, err := k.create(context.Background(), c, "web-1")
				require.NoError(t, err, "at %d", at)
				assert.Equal(t, "mine", id, "at %d", at)
				posts, _ := s.counts()
				assert.Zero(t, posts, "at %d", at)
			})
		}
	})
	t.Run("after a lost create", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
			s.others(k, MaxPerPage)
			s.store = true // the create is made, at the end of the list, and its response lost
			s.after = func(page int) {
				if s.posts == 1 && len(s.items) > 0 {
					s.items = append(s.items[1:], k.item(fmt.Sprint("churn", s.lists), "other"))
				}
			}
			id, err := k.create(context.Background(), c, "web-1", RetryNotCreated(3))
			require.NoError(t, err)
			assert.Equal(t, "new-1", id)
			posts, _ := s.counts()
			assert.Equal(t, 1, posts)
		})
	})
}

// TestASharedLookupNeverServesACallerWithAPageOlderThanTheCall: A's lookup has sent its first
// request, which the service answered before X created web-1; the response is still on its way. X's
// create returns, then B calls CreateOnce for web-1: B must adopt X's instance, so it must not join
// A's walk (its page shows the list as it was before B began), but a walk whose first request is
// sent after B began. So whether A asked for SharedLookup or not: B did not, so it waits for no
// walk that started before it.
func TestASharedLookupNeverServesACallerWithAPageOlderThanTheCall(t *testing.T) {
	t.Run("A without SharedLookup", func(t *testing.T) { neverServedAnOlderPage(t, nil) })
	t.Run("A with SharedLookup", func(t *testing.T) { neverServedAnOlderPage(t, []OnceOption{SharedLookup(time.Hour)}) })
}

func neverServedAnOlderPage(t *testing.T, aOpts []OnceOption) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{names: []string{"other-0", "other-1"}}
		release := make(chan struct{})
		var held atomic.Bool
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && held.CompareAndSwap(false, true) {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, r) // the page as the service computed it, before X's create
				<-release
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
			s.ServeHTTP(w, r)
		}, WithoutRateLimit())
		ctx := context.Background()
		aDone := make(chan error, 1)
		go func() {
			req := validCreate()
			req.Name = "a"
			_, err := c.Instances.CreateOnce(ctx, req, aOpts...)
			aDone <- err
		}()
		synctest.Wait() // A's first page is computed, its response held

		req := validCreate()
		req.Name = "web-1"
		x, err := c.Instances.Create(ctx, req) // X
		require.NoError(t, err)

		bDone := make(chan *Instance, 1)
		go func() {
			v, err := c.Instances.CreateOnce(ctx, req) // B
			assert.NoError(t, err)
			bDone <- v
		}()
		synctest.Wait()
		close(release)
		require.NoError(t, <-aDone)
		b := <-bDone
		require.NotNil(t, b)
		assert.Equal(t, x.ID, b.ID, "B adopted X's instance")
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Equal(t, 2, s.posts, "A's create and X's, none for B")
	})
}

// TestALookupCostsWhatTheGuideSays: docs/jobs.md's cost of a lookup: the list's pages plus one
// (page 1 is read twice); when the last page is exactly full, the empty page after it and the last
// page again (only the empty page for a list of exactly 100); one request for a list of fewer than
// 100 resources.
func TestALookupCostsWhatTheGuideSays(t *testing.T) {
	for size, want := range map[int]int{0: 1, 99: 1, 100: 3, 150: 3, 200: 5, 250: 4, 300: 6} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &fleetServer{}
				for i := range size {
					s.names = append(s.names, fmt.Sprint("other-", i))
				}
				c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
				found, err := c.Instances.FindByName(context.Background(), "web-1")
				require.NoError(t, err)
				assert.Empty(t, found)
				assert.Equal(t, want, s.lists)
			})
		})
	}
}

// heldFirstList returns a handler that serves s, but holds the first list request until release is
// closed; with fail, it then answers that request with a 500 instead of the page.
func heldFirstList(s *fleetServer, release <-chan struct{}, fail bool) http.HandlerFunc {
	var held atomic.Bool
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && held.CompareAndSwap(false, true) {
			<-release
			if fail {
				s.mu.Lock()
				s.lists++
				s.mu.Unlock()
				replyJSON(w, http.StatusInternalServerError, map[string]string{"code": "00001", "message": "broken"})
				return
			}
		}
		s.ServeHTTP(w, r)
	}
}

// TestConcurrentSharedLookupsShareTheWalkAlreadyRunning: a hundred CreateOnce calls with
// SharedLookup, as a Terraform apply with -parallelism=100 makes them: the first one's walk has
// sent its first request, whose response is held until the other 99 have arrived. That one walk
// (page 1, page 2 and page 1 again) answers them all, instead of a second walk that reads page 1
// again right after it; each call creates its instance once.
func TestConcurrentSharedLookupsShareTheWalkAlreadyRunning(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprint("AdoptOnlyOwn=", own), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &fleetServer{}
				for i := range 150 {
					s.names = append(s.names, fmt.Sprint("other-", i))
				}
				release := make(chan struct{})
				c, _ := newTestClient(t, heldFirstList(s, release, false))
				opts := []OnceOption{SharedLookup(time.Minute)}
				if own {
					opts = append(opts, AdoptOnlyOwn())
				}
				var wg sync.WaitGroup
				create := func(i int) {
					req := validCreate()
					req.Name = fmt.Sprint("web-", i)
					v, err := c.Instances.CreateOnce(context.Background(), req, opts...)
					if assert.NoError(t, err) {
						assert.Equal(t, req.Name, v.Name)
					}
				}
				wg.Go(func() { create(0) })
				synctest.Wait() // the first walk's first request is held
				for i := 1; i < 100; i++ {
					wg.Go(func() { create(i) })
				}
				synctest.Wait() // the other 99 have arrived
				close(release)
				wg.Wait()
				s.mu.Lock()
				defer s.mu.Unlock()
				assert.Equal(t, 100, s.posts, "one create each")
				assert.Equal(t, 3, s.lists, "one walk of two pages for all hundred: page 1, page 2, page 1")
			})
		})
	}
}

// TestASharedLookupThatWaitedOnAFailedWalkWalksAgain: A's walk fails (a 500, which no lookup walks
// again for) while B, C and D, with SharedLookup, wait on it. A gets the failure; B, C and D get
// nothing from the failed walk, neither its error nor an empty answer: they share a walk of their
// own, which finds their names, and adopt them.
func TestASharedLookupThatWaitedOnAFailedWalkWalksAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{names: []string{"web-1", "web-2", "web-3"}}
		release := make(chan struct{})
		c, _ := newTestClient(t, heldFirstList(s, release, true), WithoutRetries())
		create := func(name string) (*Instance, error) {
			return createNamed(context.Background(), c, name, SharedLookup(time.Minute))
		}
		aDone := goErr(func() error {
			_, err := create("a")
			return err
		})
		synctest.Wait() // A's walk has sent its first request
		var wg sync.WaitGroup
		for i := 1; i <= 3; i++ {
			wg.Go(func() {
				v, err := create(fmt.Sprint("web-", i))
				if assert.NoError(t, err) {
					assert.Equal(t, fmt.Sprint("i-", i), v.ID, "adopted")
				}
			})
		}
		synctest.Wait()
		close(release)
		var apiErr *APIError
		require.ErrorAs(t, <-aDone, &apiErr)
		assert.Equal(t, http.StatusInternalServerError, apiErr.StatusCode)
		wg.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Zero(t, s.posts, "nothing created")
		assert.Equal(t, 2, s.lists, "the failed read, then one walk shared by B, C and D")
	})
}

// TestASharedLookupWaitingOnARunningWalkKeepsItAlive: B, with SharedLookup, waits on the walk A
// opened; A gives up. The walk goes on for B, which takes its answer from it: one read of the list
// in all.
func TestASharedLookupWaitingOnARunningWalkKeepsItAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{names: []string{"web-1"}}
		release := make(chan struct{})
		c, _ := newTestClient(t, heldFirstList(s, release, false))
		create := func(ctx context.Context, name string) (*Instance, error) {
			return createNamed(ctx, c, name, SharedLookup(time.Minute))
		}
		aCtx, cancel := context.WithCancel(context.Background())
		aDone := goErr(func() error {
			_, err := create(aCtx, "a")
			return err
		})
		synctest.Wait() // A's walk has sent its first request
		bDone := make(chan *Instance, 1)
		go func() {
			v, err := create(context.Background(), "web-1")
			assert.NoError(t, err)
			bDone <- v
		}()
		synctest.Wait() // B waits on A's walk
		cancel()
		require.ErrorIs(t, <-aDone, context.Canceled)
		synctest.Wait()
		close(release)
		v := <-bDone
		require.NotNil(t, v)
		assert.Equal(t, "i-1", v.ID)
		synctest.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Equal(t, 1, s.lists, "B took its answer from the walk A opened")
		assert.Zero(t, s.posts)
	})
}

// heldFirstPage returns a handler that serves s, but holds the response to the first list request
// until release is closed: the page is as the service computed it on receiving the request.
func heldFirstPage(s *fleetServer, release <-chan struct{}) http.HandlerFunc {
	var held atomic.Bool
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && held.CompareAndSwap(false, true) {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			<-release
			maps.Copy(w.Header(), rec.Header())
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		s.ServeHTTP(w, r)
	}
}

// TestASharedLookupWaitsForNoWalkStartedLongerThanMaxAgeBefore: A's walk, with SharedLookup, has
// sent its first request, which the service answered at once; the response is held. Six seconds
// later X creates web-1, then B calls CreateOnce for web-1 with SharedLookup. With a maxAge of 5 s,
// A's walk started too long before B to answer it: B takes its answer from a walk that starts after
// it and adopts X's instance. With a maxAge of a minute, B may take A's answer, which cannot show
// X's instance: B creates a second web-1 (the cost SharedLookup's doc names), with no walk of its
// own.
func TestASharedLookupWaitsForNoWalkStartedLongerThanMaxAgeBefore(t *testing.T) {
	for _, tc := range []struct {
		maxAge       time.Duration
		adopts       bool
		posts, lists int
	}{
		{5 * time.Second, true, 2, 2},
		{time.Minute, false, 3, 1},
	} {
		t.Run(tc.maxAge.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &fleetServer{names: []string{"other-0", "other-1"}}
				release := make(chan struct{})
				c, _ := newTestClient(t, heldFirstPage(s, release))
				ctx := context.Background()
				aDone := make(chan error, 1)
				go func() {
					req := validCreate()
					req.Name = "a"
					_, err := c.Instances.CreateOnce(ctx, req, SharedLookup(time.Hour))
					aDone <- err
				}()
				synctest.Wait() // A's first page is computed, its response held
				time.Sleep(6 * time.Second)

				req := validCreate()
				req.Name = "web-1"
				x, err := c.Instances.Create(ctx, req) // X
				require.NoError(t, err)
				bDone := make(chan *Instance, 1)
				go func() {
					v, err := c.Instances.CreateOnce(ctx, req, SharedLookup(tc.maxAge)) // B
					assert.NoError(t, err)
					bDone <- v
				}()
				synctest.Wait()
				close(release)
				require.NoError(t, <-aDone)
				b := <-bDone
				require.NotNil(t, b)
				if tc.adopts {
					assert.Equal(t, x.ID, b.ID, "B adopted X's instance")
				} else {
					assert.NotEqual(t, x.ID, b.ID, "B took A's answer, made before X's create")
				}
				s.mu.Lock()
				defer s.mu.Unlock()
				assert.Equal(t, tc.posts, s.posts, "A's create, X's, and B's when it did not adopt")
				assert.Equal(t, tc.lists, s.lists, "A's walk, and B's own when it could not take A's")
			})
		})
	}
}

// TestASharedLookupKeepsNoPlainWalkAlive: A's lookup, without SharedLookup, walks a list of 150
// (page 1, page 2, page 1 again); its first request is held. B, with SharedLookup, arrives: A's walk
// keeps no names, so it cannot answer B, and B must not wait for it as one of its callers. A gives
// up: its walk ends there, and B's own walk finds web-1. Four list reads in all, not the six of A's
// walk finished for nobody and then B's.
func TestASharedLookupKeepsNoPlainWalkAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{names: []string{"web-1"}}
		for i := range 149 {
			s.names = append(s.names, fmt.Sprint("other-", i))
		}
		release := make(chan struct{})
		c, _ := newTestClient(t, heldFirstList(s, release, false))
		aCtx, cancel := context.WithCancel(context.Background())
		aDone := make(chan error, 1)
		go func() {
			req := validCreate()
			req.Name = "a"
			_, err := c.Instances.CreateOnce(aCtx, req)
			aDone <- err
		}()
		synctest.Wait() // A's walk has sent its first request
		bDone := make(chan *Instance, 1)
		go func() {
			req := validCreate()
			req.Name = "web-1"
			v, err := c.Instances.CreateOnce(context.Background(), req, SharedLookup(time.Hour))
			assert.NoError(t, err)
			bDone <- v
		}()
		synctest.Wait()
		cancel()
		require.ErrorIs(t, <-aDone, context.Canceled)
		synctest.Wait()
		close(release)
		v := <-bDone
		require.NotNil(t, v)
		assert.Equal(t, "i-1", v.ID, "B adopted web-1")
		synctest.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Zero(t, s.posts)
		assert.Equal(t, 4, s.lists, "A's first read, then B's walk of three")
	})
}

// TestASharedLookupWaitsForNoWalkWhileTheListIsTooLongToKeep: on a list of more than 10,000
// resources, a walk keeps no names, so a SharedLookup lookup does not wait for the walk in
// progress: when A, which opened it, gives up, that walk ends there instead of reading the whole
// list for B, which walks on its own. Once the list has shrunk and a walk has kept its names, E
// waits for the walk D opened again: one walk for both.
func TestASharedLookupWaitsForNoWalkWhileTheListIsTooLongToKeep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		for i := range maxIndexed + 1 {
			s.names = append(s.names, fmt.Sprint("other-", i))
		}
		var hold atomic.Bool
		var release chan struct{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && hold.CompareAndSwap(true, false) {
				<-release
			}
			s.ServeHTTP(w, r)
		})
		lists := func() int {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.lists
		}
		create := func(ctx context.Context, name string) (*Instance, error) {
			return createNamed(ctx, c, name, SharedLookup(time.Hour))
		}
		_, err := create(context.Background(), "first") // a walk too long to keep
		require.NoError(t, err)
		const walk = maxIndexed/MaxPerPage + 2 // 101 pages, page 1 twice

		before := lists()
		release = make(chan struct{})
		hold.Store(true)
		aCtx, cancel := context.WithCancel(context.Background())
		aDone := goErr(func() error {
			_, err := create(aCtx, "a")
			return err
		})
		synctest.Wait() // A's walk has sent its first request
		bDone := goErr(func() error {
			_, err := create(context.Background(), "b")
			return err
		})
		synctest.Wait()
		cancel()
		require.ErrorIs(t, <-aDone, context.Canceled)
		synctest.Wait()
		close(release)
		require.NoError(t, <-bDone)
		synctest.Wait()
		assert.Equal(t, 1+walk, lists()-before, "A's first read, then B's own walk")

		s.mu.Lock()
		s.names = s.names[:150]
		s.mu.Unlock()
		_, err = create(context.Background(), "c") // a walk that keeps its names
		require.NoError(t, err)
		time.Sleep(2 * time.Second) // past the maxAge of D and E: C's walk answers neither

		before = lists()
		release = make(chan struct{})
		hold.Store(true)
		share := func(name string) (*Instance, error) {
			return createNamed(context.Background(), c, name, SharedLookup(time.Second))
		}
		dDone := goErr(func() error {
			_, err := share("d")
			return err
		})
		synctest.Wait() // D's walk has sent its first request
		eDone := goErr(func() error {
			_, err := share("e")
			return err
		})
		synctest.Wait()
		close(release)
		require.NoError(t, <-dDone)
		require.NoError(t, <-eDone)
		assert.Equal(t, 3, lists()-before, "one walk of two pages for D and E: page 1, page 2, page 1")
	})
}

// goErr runs f on a goroutine of its own and returns the channel its error comes on.
func goErr(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// createNamed is CreateOnce, through c, of a valid instance named name.
func createNamed(ctx context.Context, c *Client, name string, opts ...OnceOption) (*Instance, error) {
	req := validCreate()
	req.Name = name
	return c.Instances.CreateOnce(ctx, req, opts...)
}
