package compute

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

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
// an account of 250 instances, share their lookups: a walk or two of three pages in all, not one
// walk each, and each creates its instance once.
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
		assert.LessOrEqual(t, s.lists, 2*3, "at most two walks of three pages")
	})
}

// TestASharedLookupOutlivesItsFirstCaller: the caller whose lookup started the shared walk gives up;
// the others still get their answer, and a call made after every caller left starts a new walk.
func TestASharedLookupOutlivesItsFirstCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{names: []string{"web-1"}}
		release := make(chan struct{})
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			<-release
			s.ServeHTTP(w, r)
		}, WithoutRateLimit())
		ctx, cancel := context.WithCancel(context.Background())
		firstErr := make(chan error, 1)
		go func() {
			req := validCreate()
			req.Name = "web-0"
			_, err := c.Instances.CreateOnce(ctx, req)
			firstErr <- err
		}()
		synctest.Wait()
		second := make(chan *Instance, 1)
		go func() {
			req := validCreate()
			req.Name = "web-1"
			v, err := c.Instances.CreateOnce(context.Background(), req)
			assert.NoError(t, err)
			second <- v
		}()
		synctest.Wait()
		cancel()
		require.ErrorIs(t, <-firstErr, context.Canceled)
		close(release)
		v := <-second
		require.NotNil(t, v)
		assert.Equal(t, "i-1", v.ID, "adopted from the walk the first caller started")
		assert.Zero(t, s.posts)
	})
}

// TestALookupReadsAListThatGrowsBetweenItsPages: while the lookup reads, other jobs add more than a
// page between each of its pages; the walk follows the latest total_count to the list's end and
// finds the name on the last page, instead of failing at the first count's bound.
func TestALookupReadsAListThatGrowsBetweenItsPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		for i := range 150 {
			s.names = append(s.names, fmt.Sprint("other-", i))
		}
		s.afterPage = func(page int) {
			if page <= 4 {
				for i := range 150 {
					s.names = append(s.names, fmt.Sprintf("later-%d-%d", page, i))
				}
			}
			if page == 4 {
				s.names = append(s.names, "web-1")
			}
		}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		req := validCreate()
		req.Name = "web-1"
		v, err := c.Instances.CreateOnce(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, "web-1", v.Name)
		assert.Zero(t, s.posts, "adopted, not created")
	})
}

// TestFindByNameIsBounded: a list that never ends, every item named alike, ends FindByName with a
// *TooManyMatchesError once MaxFindMatches are held, not at the walk's page bound.
func TestFindByNameIsBounded(t *testing.T) {
	var n atomic.Int64
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		items := make([]map[string]any, MaxPerPage)
		for i := range items {
			items[i] = map[string]any{"id": fmt.Sprint(n.Add(1)), "name": "web"}
		}
		replyJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": 1 << 30})
	}, WithoutRateLimit())
	found, err := c.Instances.FindByName(context.Background(), "web")
	var tooMany *TooManyMatchesError
	require.ErrorAs(t, err, &tooMany)
	assert.ErrorIs(t, err, ErrConflict)
	assert.Equal(t, MaxFindMatches, tooMany.Limit)
	assert.Nil(t, found)
	assert.LessOrEqual(t, rec.count(), MaxFindMatches/MaxPerPage+1)
}

// TestCreateOnceNeverCreatesWhenUnsure: when every walk's pages disagree (another job's deletes keep
// moving the instance with the name onto a page already read), or the list counts more than it
// lists, CreateOnce refuses with ErrNameUnchecked after its walks, and creates nothing.
func TestCreateOnceNeverCreatesWhenUnsure(t *testing.T) {
	t.Run("a delete moves it on every walk", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
			s.others(k, MaxPerPage)
			s.items = append(s.items, k.item("mine", "web-1"))
			s.after = func(page int) {
				switch page {
				case 1: // another job deletes the first: the one with the name moves onto page 1
					s.items = s.items[1:]
				case 2: // and yet another adds one at the front
					s.items = append([]map[string]any{k.item("y", "other")}, s.items...)
				}
			}
			_, err := k.create(context.Background(), c, "web-1")
			var checkErr *NameCheckError
			require.ErrorAs(t, err, &checkErr)
			assert.ErrorIs(t, err, ErrNameUnchecked)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown)
			posts, lists := s.counts()
			assert.Zero(t, posts)
			assert.Equal(t, 2*lookUpWalks, lists)
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
