package compute

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll reads every ID with SharedRead(maxAge), n at a time, as Terraform's refresh does, and
// returns what each read returned, by ID.
func readAll(t *testing.T, c *Client, ids []string, n int, maxAge time.Duration) map[string]*Instance {
	t.Helper()
	var mu sync.Mutex
	got := map[string]*Instance{}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			inst, err := c.Instances.Get(context.Background(), id, SharedRead(maxAge))
			if assert.NoError(t, err, id) {
				mu.Lock()
				got[id] = inst
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return got
}

// pollIDs are n instance IDs that the list shows in order, each with status "active".
func pollIDs(s *pollServer, n int) []string {
	var ids []string
	for i := range n {
		id := fmt.Sprintf("i-%04d", i)
		s.set(id, "active")
		ids = append(ids, id)
	}
	return ids
}

// TestSharedReadsShareOneWalk: 250 reads, 10 at a time, of the 250 instances of a three-page list
// cost the three pages and no GET, and each read returns its own instance.
func TestSharedReadsShareOneWalk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		ids := pollIDs(s, 250)
		c, _ := newTestClient(t, s.ServeHTTP)
		got := readAll(t, c, ids, 10, time.Minute)
		require.Len(t, got, len(ids))
		for _, id := range ids {
			assert.Equal(t, id, got[id].ID)
			assert.Equal(t, InstanceStatusActive, got[id].Status)
		}
		lists, _ := s.counts("")
		assert.Equal(t, 3, lists)
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Empty(t, s.gets, "no read sent a GET")
	})
}

// TestSharedReadOfWhatTheWalkDidNotShow: a resource the list does not show (it lags) is read with
// its own GET, which alone says whether it is there, and a missing one is the kind's not-found.
func TestSharedReadOfWhatTheWalkDidNotShow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		pollIDs(s, 3)
		s.got["new"] = "creating" // created after the list was read
		c, _ := newTestClient(t, s.ServeHTTP)
		ctx := context.Background()
		inst, err := c.Instances.Get(ctx, "new", SharedRead(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, InstanceStatus("creating"), inst.Status)
		_, err = c.Instances.Get(ctx, "gone", SharedRead(time.Minute))
		require.ErrorIs(t, err, CodeInstanceNotFound)
		lists, gets := s.counts("new")
		assert.Equal(t, 1, lists, "one walk served both reads")
		assert.Equal(t, 1, gets)
	})
}

// TestSharedReadsWithinMaxAge: a read within maxAge of the walk's start takes its resource from it,
// though the resource changed since; one past maxAge starts a new walk and sees the change; the
// walk's resources are dropped once no read can use them.
func TestSharedReadsWithinMaxAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		pollIDs(s, 3)
		c, _ := newTestClient(t, s.ServeHTTP)
		ctx := context.Background()
		read := func() InstanceStatus {
			inst, err := c.Instances.Get(ctx, "i-0000", SharedRead(10*time.Second))
			require.NoError(t, err)
			return inst.Status
		}
		assert.Equal(t, InstanceStatusActive, read())
		s.set("i-0000", "stopping")
		time.Sleep(10*time.Second - time.Millisecond)
		assert.Equal(t, InstanceStatusActive, read(), "within maxAge: the walk's")
		lists, _ := s.counts("")
		assert.Equal(t, 1, lists)
		time.Sleep(time.Millisecond)
		assert.Equal(t, InstanceStatus("stopping"), read(), "past maxAge: a new walk's")
		lists, _ = s.counts("")
		assert.Equal(t, 2, lists)

		time.Sleep(11 * time.Second)
		synctest.Wait()
		p := c.Instances.polls
		p.mu.Lock()
		defer p.mu.Unlock()
		assert.Nil(t, p.reads, "the walk is dropped once older than maxAge")
	})
}

// TestSharedReadsOnALongList: a few reads of a list of many pages cost about their GETs, not a walk
// of the whole list: a walk reads on only while its pages are no more than its reads plus one.
func TestSharedReadsOnALongList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		pollIDs(s, 2)
		s.extra = 1000 // eleven pages; the reads' instances are on the first
		s.got["late"] = "active"
		c, _ := newTestClient(t, s.ServeHTTP)
		got := readAll(t, c, []string{"i-0000", "i-0001", "late"}, 3, time.Minute)
		require.Len(t, got, 3)
		lists, gets := s.counts("late")
		assert.LessOrEqual(t, lists, 4, "pages no more than the reads plus one")
		assert.Equal(t, 1, gets, "what the pages did not show was read on its own")
	})
}

// TestSharedReadsWhenTheListFails: a list refused (403) or stalled tells nothing: each read sends
// its own GET, the stalled one a second after the page was sent.
func TestSharedReadsWhenTheListFails(t *testing.T) {
	for name, set := range map[string]func(*pollServer){
		"refused": func(s *pollServer) { s.status = http.StatusForbidden },
		"stalled": func(s *pollServer) { s.hang = true },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newPollServer()
				ids := pollIDs(s, 4)
				set(s)
				c, _ := newTestClient(t, s.ServeHTTP)
				start := time.Now()
				got := readAll(t, c, ids, 4, time.Minute)
				require.Len(t, got, 4)
				assert.LessOrEqual(t, time.Since(start), stallAfter)
				for _, id := range ids {
					_, gets := s.counts(id)
					assert.Equal(t, 1, gets, id)
				}
			})
		})
	}
}

// TestSharedReadsReturnTheirOwnCopies: two reads of one instance from one walk share nothing: a
// change to one's slices is not seen through the other.
func TestSharedReadsReturnTheirOwnCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusOK, map[string]any{"total_count": 1, "page": 1, "per_page": 100,
				"instances": []map[string]any{{"id": "a", "status": "active", "ssh_keys": []map[string]any{{"id": "k1"}}}}})
		})
		ctx := context.Background()
		one, err := c.Instances.Get(ctx, "a", SharedRead(time.Minute))
		require.NoError(t, err)
		two, err := c.Instances.Get(ctx, "a", SharedRead(time.Minute))
		require.NoError(t, err)
		require.Len(t, one.SSHKeys, 1)
		one.SSHKeys[0].ID = "changed"
		assert.Equal(t, "k1", two.SSHKeys[0].ID)
	})
}

// TestSharedReadRefusesBadInput: a non-positive maxAge, a bad ID and a nil context are refused
// before any request; a Get without options is the plain GET.
func TestSharedReadRefusesBadInput(t *testing.T) {
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusOK, map[string]any{"instance": map[string]any{"id": "a", "status": "active"}})
	})
	_, err := c.Instances.Get(context.Background(), "a", SharedRead(0))
	requireInvalid(t, err, "max_age", rec)
	_, err = c.Volumes.Get(context.Background(), "../x", SharedRead(time.Second))
	requireInvalid(t, err, "volume_id", rec)
	var nilCtx context.Context
	_, err = c.Instances.Get(nilCtx, "a", SharedRead(time.Second))
	requireInvalid(t, err, "ctx", rec)
	assert.Zero(t, rec.count())
	_, err = c.Instances.Get(context.Background(), "a", nil)
	require.NoError(t, err)
	assert.Equal(t, "/compute/v1/instances/a", rec.all()[0].Path)
}

// TestSharedReadsAfterAFailedPage: the list's second page is refused; what the first page showed
// still answers its reads, later ones included, and each instance of the second page is read with
// its own GET.
func TestSharedReadsAfterAFailedPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		ids := pollIDs(s, 150)
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/compute/v1/instances" && r.URL.Query().Get("page") == "2" {
				replyJSON(w, http.StatusForbidden, map[string]string{"code": "02043", "message": "no"})
				return
			}
			s.ServeHTTP(w, r)
		})
		got := readAll(t, c, ids[100:], 10, time.Minute) // these wait for the second page, then GET
		maps.Copy(got, readAll(t, c, ids[:100], 10, time.Minute))
		require.Len(t, got, 150)
		gets := 0
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, id := range ids {
			assert.Equal(t, id, got[id].ID)
			gets += s.gets[id]
		}
		assert.Equal(t, 50, gets, "the second page's instances, each once")
	})
}

// TestAPanicInASharedReadWalkReachesTheReads: an Observer that panics on the walk's pages panics
// in the read waiting for it, on the read's goroutine, where its caller recovers it.
func TestAPanicInASharedReadWalkReachesTheReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		pollIDs(s, 2)
		c, _ := newTestClient(t, s.ServeHTTP,
			WithObserver(Observer{Page: func(context.Context, PageRead) { panic("observer bug") }}))
		var recovered any
		func() {
			defer func() { recovered = recover() }()
			_, _ = c.Instances.Get(context.Background(), "i-0000", SharedRead(time.Minute))
		}()
		assert.Equal(t, "observer bug", recovered)
	})
}

// TestASupersededReadWalkIsDropped: a read with a long maxAge keeps its walk for that long, but a
// read that finds the walk too old for its own maxAge starts another, and no read can take the first
// one any more: its resources are dropped then, not held for the long maxAge (reads alternating
// between a long and a short maxAge would otherwise hold a walk of the list for every short one).
// A read still waiting for the superseded walk is answered from it first.
func TestASupersededReadWalkIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		ids := pollIDs(s, 150)
		s.delay = 100 * time.Millisecond
		c, _ := newTestClient(t, s.ServeHTTP)
		ctx := context.Background()
		p := c.Instances.polls
		var wg sync.WaitGroup
		wg.Go(func() { // waits for the first walk's second page
			inst, err := c.Instances.Get(ctx, ids[149], SharedRead(time.Hour))
			if assert.NoError(t, err) {
				assert.Equal(t, ids[149], inst.ID)
			}
		})
		time.Sleep(time.Millisecond)
		p.mu.Lock()
		first := p.reads
		p.mu.Unlock()
		require.NotNil(t, first)

		time.Sleep(50 * time.Millisecond) // the first walk's first page is in flight
		_, err := c.Instances.Get(ctx, ids[0], SharedRead(10*time.Millisecond))
		require.NoError(t, err)
		wg.Wait()
		synctest.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		assert.NotSame(t, first, p.reads)
		assert.True(t, first.seen == nil, "the superseded walk's resources are dropped")
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Zero(t, s.gets[ids[149]], "the read waiting for the superseded walk was answered from it")
	})
}

// TestASharedReadWithAnEndedContextSendsNothing: a read whose context has ended fails as a plain Get
// with that context does, and starts no walk of the list on its behalf.
func TestASharedReadWithAnEndedContextSendsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		pollIDs(s, 3)
		c, rec := newTestClient(t, s.ServeHTTP)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, plain := c.Instances.Get(ctx, "i-0000")
		_, err := c.Instances.Get(ctx, "i-0000", SharedRead(time.Minute))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, plain.Error(), err.Error())
		synctest.Wait()
		assert.Zero(t, rec.count(), "no walk was started for it")
	})
}

// TestSharedReadsThroughA429: the service answers the walk's second page 429 with Retry-After: 2
// (the first 429 of a run, which turns the pacing from responses on, often falls there). The page
// was answered, so the walk is not stalled: it sends the page again after the wait and answers
// every read, with no GET, instead of leaving each read to its own GET.
func TestSharedReadsThroughA429(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPollServer()
		ids := pollIDs(s, 150)
		var refused sync.Once
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/compute/v1/instances" && r.URL.Query().Get("page") == "2" {
				hit := false
				refused.Do(func() { hit = true })
				if hit {
					w.Header().Set("Retry-After", "2")
					replyJSON(w, http.StatusTooManyRequests, map[string]string{"code": "02009", "message": "slow down"})
					return
				}
			}
			s.ServeHTTP(w, r)
		}, WithRetry(RetryPolicy{MinWait: time.Millisecond, MaxWait: 5 * time.Second})) // Retry-After honoured
		got := readAll(t, c, ids, 10, time.Minute)
		require.Len(t, got, 150)
		lists, _ := s.counts("")
		assert.Equal(t, 2, lists, "two pages, the second sent again after the 429")
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Empty(t, s.gets, "no read sent a GET")
	})
}
