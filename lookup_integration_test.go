package compute_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CreateOnce's lookups against the fake while another job churns the account: the sweep that no
// delete and create can hide a name from, and the shared lookup that only serves calls begun
// before its first request.

// instanceRequest is a create the fake accepts, named name.
func instanceRequest(name string) *compute.InstanceCreateRequest {
	return &compute.InstanceCreateRequest{Name: name, Hostname: "h", Type: "vcpu-2_memory-4g",
		Region: "NORD-NO-KRS-1", Image: "debian-12", SSHKeys: []string{"key-ci"}}
}

// churner is another job on the account, with a client of its own: each turn deletes the oldest
// instance it made and creates one, so the count stays the same while every instance after the
// deleted one moves one place towards page 1.
type churner struct {
	c    *compute.Client
	mine []string // its instances, oldest first
	n    int
}

// fill creates n instances, naming the at-th keep (from 0) and the others "other-...". It returns
// keep's ID.
func (ch *churner) fill(t *testing.T, n, at int, keep string) string {
	t.Helper()
	var kept string
	for i := range n {
		name := fmt.Sprint("other-", i)
		if i == at {
			name = keep
		}
		inst, err := ch.c.Instances.Create(context.Background(), instanceRequest(name))
		require.NoError(t, err)
		if i == at {
			kept = inst.ID
		} else {
			ch.mine = append(ch.mine, inst.ID)
		}
	}
	return kept
}

// turn deletes the oldest of its instances and creates one.
func (ch *churner) turn() error {
	if err := ch.c.Instances.Delete(context.Background(), ch.mine[0]); err != nil {
		return err
	}
	ch.mine = ch.mine[1:]
	ch.n++
	inst, err := ch.c.Instances.Create(context.Background(), instanceRequest(fmt.Sprint("churn-", ch.n)))
	if err != nil {
		return err
	}
	ch.mine = append(ch.mine, inst.ID)
	return nil
}

// TestCreateOnceUnderChurnAgainstTheFake: on the fake, 150 instances, web-1 the 101st. A churning
// goroutine deletes the oldest instance and creates one each time the lookup has read a page (the
// count never changes, web-1 moves onto page 1 after page 1 was read); CreateOnce adopts web-1 and
// the account holds one web-1. Then the churn runs freely beside twenty CreateOnce calls of names
// that exist at every position of the list: each adopts its own, none creates.
func TestCreateOnceUnderChurnAgainstTheFake(t *testing.T) {
	t.Run("a turn after every page", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := computetest.NewServer(computetest.WithInMemoryNetwork())
			defer srv.Close()
			ch := &churner{c: srv.Client()}
			web := ch.fill(t, 150, 100, "web-1")

			pages, turned := make(chan struct{}), make(chan error)
			go func() {
				for range pages {
					turned <- ch.turn()
				}
			}()
			var read atomic.Int32
			c := srv.Client(compute.WithObserver(compute.Observer{Page: func(_ context.Context, p compute.PageRead) {
				read.Add(1)
				pages <- struct{}{}
				assert.NoError(t, <-turned)
			}}))
			got, err := c.Instances.CreateOnce(context.Background(), instanceRequest("web-1"))
			close(pages)
			require.NoError(t, err)
			assert.Equal(t, web, got.ID, "adopted")
			found, err := ch.c.Instances.FindByName(context.Background(), "web-1")
			require.NoError(t, err)
			assert.Len(t, found, 1, "no second web-1")
			assert.Equal(t, int32(3), read.Load(), "page 1, page 2, page 1 again")
		})
	})
	t.Run("churn running freely", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := computetest.NewServer(computetest.WithInMemoryNetwork())
			defer srv.Close()
			ch := &churner{c: srv.Client()}
			ch.fill(t, 3*compute.MaxPerPage+50, -1, "")
			kept := map[string]string{}
			for i := range 20 { // names spread over the list, the newest last
				inst, err := ch.c.Instances.Create(context.Background(), instanceRequest(fmt.Sprint("kept-", i)))
				require.NoError(t, err)
				kept[inst.Name] = inst.ID
				for range 17 {
					require.NoError(t, ch.turn())
				}
			}
			ctx, stop := context.WithCancel(context.Background())
			var churned sync.WaitGroup
			churned.Go(func() {
				for ctx.Err() == nil {
					if err := ch.turn(); err != nil && ctx.Err() == nil {
						t.Error(err)
						return
					}
				}
			})
			c := srv.Client()
			var lookups sync.WaitGroup
			for name, id := range kept {
				lookups.Go(func() {
					got, err := c.Instances.CreateOnce(context.Background(), instanceRequest(name))
					if assert.NoError(t, err, name) {
						assert.Equal(t, id, got.ID, name)
					}
				})
			}
			lookups.Wait()
			stop()
			churned.Wait()
			for name := range kept {
				found, err := ch.c.Instances.FindByName(context.Background(), name)
				require.NoError(t, err)
				assert.Len(t, found, 1, name)
			}
			assert.Greater(t, ch.n, 20*17, "the churn ran beside the lookups")
		})
	})
}

// holdFirstList delivers the first list response it carries only once release is closed: the fake
// has computed the page, and its response is on its way.
type holdFirstList struct {
	next     http.RoundTripper
	computed chan struct{}
	release  chan struct{}
	held     atomic.Bool
}

func (h *holdFirstList) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if r.Method == http.MethodGet && h.held.CompareAndSwap(false, true) {
		close(h.computed)
		<-h.release
	}
	return resp, err
}

// TestASharedLookupOlderThanItsCallerAgainstTheFake: A's CreateOnce lookup has its first page
// computed by the fake, the response still in transit. X creates web-1 and returns; then B calls
// CreateOnce for web-1 on A's client. B must not be served by A's walk, whose page predates X's
// create: it adopts X's instance, and the account holds one web-1.
func TestASharedLookupOlderThanItsCallerAgainstTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		x := srv.Client()
		(&churner{c: x}).fill(t, 5, -1, "")
		hold := &holdFirstList{next: srv.HTTPClient().Transport, computed: make(chan struct{}), release: make(chan struct{})}
		c := srv.Client(compute.WithHTTPClient(&http.Client{Transport: hold}))
		ctx := context.Background()

		aDone := make(chan error, 1)
		go func() {
			_, err := c.Instances.CreateOnce(ctx, instanceRequest("a"))
			aDone <- err
		}()
		<-hold.computed
		made, err := x.Instances.Create(ctx, instanceRequest("web-1"))
		require.NoError(t, err)
		bDone := make(chan *compute.Instance, 1)
		go func() {
			got, err := c.Instances.CreateOnce(ctx, instanceRequest("web-1"))
			assert.NoError(t, err)
			bDone <- got
		}()
		synctest.Wait() // B is waiting for its lookup
		close(hold.release)
		require.NoError(t, <-aDone)
		got := <-bDone
		require.NotNil(t, got)
		assert.Equal(t, made.ID, got.ID, "B adopted X's instance")
		found, err := x.Instances.FindByName(ctx, "web-1")
		require.NoError(t, err)
		assert.Len(t, found, 1, "no second web-1")
	})
}
