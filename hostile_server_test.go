package compute

// What can a broken, misconfigured or hostile server do to a caller? Each test below is one
// guarantee: nothing that is not the resource reads as success, and every walk ends.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// empty first page while total_count says there are items.
func TestHostileResponsesThatAreNotTheResource(t *testing.T) {
	t.Parallel()
	_, err := responding(t, 200, `{"instance":{"name":"web-1","status":"active"}}`).Instances.Get(context.Background(), "i-1")
	require.ErrorContains(t, err, "no id")
	assert.False(t, errors.Is(err, ErrOutcomeUnknown))

	_, err = responding(t, 201, `{"instance":{"name":"web-1"}}`).Instances.Create(context.Background(), validCreate())
	require.ErrorIs(t, err, ErrOutcomeUnknown, "the instance may exist")

	_, err = responding(t, 200, `{"total_count":0,"page":1,"per_page":50}`).Instances.List(context.Background(), nil)
	require.ErrorContains(t, err, `no "instances" list`)

	_, err = responding(t, 200, `{"instances":[],"total_count":12,"page":1,"per_page":50}`).Instances.List(context.Background(), nil)
	require.ErrorContains(t, err, "empty first page")

	for _, err := range responding(t, 200, `{"instances":[{"id":"a"},{"name":"b"}],"total_count":2}`).Instances.All(context.Background(), nil) {
		if err != nil {
			require.ErrorContains(t, err, "no id")
			return
		}
	}
	t.Fatal("a page item without an id was yielded without an error")
}

// walkAll collects a walk, with a bound on its pages so that a broken walker fails the test rather
// than loop until the test binary times out.
func walkAll(t *testing.T, c *Client, opts *ListOptions, rec *recorder) ([]string, error) {
	t.Helper()
	var ids []string
	for inst, err := range c.Instances.All(context.Background(), opts) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, inst.ID)
		require.Less(t, rec.count(), 200, "the walk did not end")
	}
	return ids, nil
}

// a walk ends with an error on an item it already yielded, whatever the page.
func TestHostileWalkThatRepeatsAnItem(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		// A service that ignores page and shuffles: page 2 holds page 1's items in another order.
		items := []map[string]string{{"id": "a"}, {"id": "b"}}
		if r.URL.Query().Get("page") == "2" {
			items = []map[string]string{{"id": "c"}, {"id": "a"}}
		}
		replyJSON(w, 200, map[string]any{"instances": items, "total_count": 6})
	})
	ids, err := walkAll(t, c, &ListOptions{PerPage: 2}, rec)
	require.ErrorContains(t, err, `"a" again`)
	assert.Equal(t, []string{"a", "b", "c"}, ids)
}

// full pages of new items forever end at a bound derived from total_count, and at a
// cap when total_count is absent.
func TestHostileWalkThatNeverRunsOut(t *testing.T) {
	t.Parallel()
	for _, total := range []int{5, 0} {
		t.Run(fmt.Sprintf("total_count=%d", total), func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				items := []map[string]string{{"id": fmt.Sprint(n.Add(1))}, {"id": fmt.Sprint(n.Add(1))}}
				body := map[string]any{"instances": items}
				if total > 0 {
					body["total_count"] = total
				}
				replyJSON(w, 200, body)
			})
			c.maxWalkPages = 50
			_, err := walkAll(t, c, &ListOptions{PerPage: 2}, rec)
			require.ErrorContains(t, err, "stopping the walk")
			if total > 0 {
				assert.LessOrEqual(t, rec.count(), 4, "bounded by total_count")
			} else {
				assert.Equal(t, 50, rec.count(), "bounded by the cap")
			}
		})
	}
}

// a total_count contradicted by a full page does not end the walk silently.
func TestHostileWalkWithATotalCountTooSmall(t *testing.T) {
	t.Parallel()
	all := []string{"a", "b", "c", "d", "e"}
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page := 1
		_, _ = fmt.Sscan(r.URL.Query().Get("page"), &page)
		var items []map[string]string
		for _, id := range all[min((page-1)*2, len(all)):min(page*2, len(all))] {
			items = append(items, map[string]string{"id": id})
		}
		replyJSON(w, 200, map[string]any{"instances": items, "total_count": 3, "page": page, "per_page": 2})
	})
	ids, err := walkAll(t, c, &ListOptions{PerPage: 2}, rec)
	require.NoError(t, err)
	assert.Equal(t, all, ids, "the walk went on to the short page")
}

// A write never follows a redirect to another origin, and its body never reaches it.
func TestHostileRedirectOfAWriteToAnotherOrigin(t *testing.T) {
	t.Parallel()
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, op := range []operation{opCreateInstance, opUpdateInstance, opDeleteInstance} {
			t.Run(fmt.Sprintf("%d/%s", status, op.method), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					var other atomic.Int32
					var hookSaw []string
					hc := twoOrigins(t, func(w http.ResponseWriter, r *http.Request) {
						http.Redirect(w, r, "http://evil.example.net/steal", status)
					}, func(w http.ResponseWriter, r *http.Request) {
						other.Add(1)
						replyJSON(w, 201, map[string]any{"instance": map[string]string{"id": "evil"}})
					}, &hookSaw)
					c, err := NewClient(testToken, WithBaseURL("http://api.example.test"), WithInsecureHTTP(), WithHTTPClient(hc), WithoutRateLimit())
					require.NoError(t, err)
					body := map[string]string{"password": "a-secret-password-123", "name": "n"}
					if op.method == http.MethodDelete {
						body = nil
					}
					err = testCall(context.Background(), c, op, []string{"i-1"}[:strings.Count(op.path, "{")], body)
					require.Error(t, err, "a redirected write is an error")
					assert.ErrorContains(t, err, "redirect")
					assert.Equal(t, op.method == http.MethodPost, errors.Is(err, ErrOutcomeUnknown), "%v", err)
					assert.Zero(t, other.Load(), "nothing reached the other origin")
				})
			})
		}
	}
}

// Strings an error takes from a response are cut, so that a server cannot make an error or a log
// line megabytes long.
func TestHostileLongStringsAreCutInErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("m", 60<<10)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", strings.Repeat("r", 60<<10))
		replyJSON(w, http.StatusBadRequest, map[string]string{"code": strings.Repeat("9", 60<<10), "message": long})
	})
	_, err := c.Instances.Get(context.Background(), "i-1")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.LessOrEqual(t, len(apiErr.Message), maxErrorString)
	assert.LessOrEqual(t, len(apiErr.RequestID), maxErrorString)
	assert.LessOrEqual(t, len(apiErr.Code), maxErrorString)
	assert.Less(t, len(err.Error()), 4*maxErrorString)
}

// A wait whose context has no deadline still ends, after the documented maximum.
func TestHostileWaitWithoutADeadlineEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": "i-1", "status": "creating"}})
		})
		start := time.Now()
		_, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive)
		var werr *WaitError
		require.ErrorAs(t, err, &werr)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, "default maximum")
		assert.Equal(t, DefaultMaxWait, time.Since(start).Round(time.Minute))
	})
}

// WithMaxWait changes the bound; a context with a deadline is used as it is.
func TestWaitMaxWaitOption(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": "i-1", "status": "creating"}})
		})
		start := time.Now()
		_, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive, WithMaxWait(10*time.Minute))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 10*time.Minute, time.Since(start).Round(time.Minute))

		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
		defer cancel()
		start = time.Now()
		_, err = c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotContains(t, err.Error(), "default maximum")
		assert.Equal(t, 3*time.Hour, time.Since(start).Round(time.Minute), "the caller's deadline, not the default")

		_, err = c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive, WithMaxWait(0))
		require.ErrorIs(t, err, ErrInvalidRequest)
	})
}

// Clients made per tenant or per request share one transport, so they do not each
// keep connections (and their goroutines) open.
func TestHostileManyClientsShareConnections(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": "i-1"}})
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	for range 50 {
		c, err := NewClient(testToken, WithBaseURL(srv.URL), WithoutRateLimit())
		require.NoError(t, err)
		_, err = c.Instances.Get(context.Background(), "i-1")
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, conns.Load(), int32(2), "50 clients one after another reuse the shared pool")
}
