package fake

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a settable clock for an engine.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A read sees every transition due at its time, those due exactly then included, whether the clock
// moved by itself or by Advance, and only those.
func TestReadsSeeEveryTransitionDue(t *testing.T) {
	clk := newClock()
	e := newEngine(Config{Clock: clk.Now, Durations: Durations{FloatingIPCreate: time.Minute, InstanceCreate: 2 * time.Minute}})
	for i := range 150 {
		ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", fmt.Sprintf(`{"name":"ip-%d","region":"NORD-NO-KRS-1"}`, i))
		clk.add(time.Millisecond)
	}
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)
	clk.add(time.Minute - 150*time.Millisecond) // the first floating IP is due now, the last 149 ms later

	statuses := func() map[string]int {
		out := map[string]int{}
		for page := 1; page <= 2; page++ {
			list := ok(t, e, http.StatusOK, "GET", fmt.Sprintf("/compute/v1/floating-ips?per_page=100&page=%d", page), "")
			for _, f := range list["floating_ips"].([]any) {
				out[f.(map[string]any)["status"].(string)]++
			}
		}
		return out
	}
	assert.Equal(t, map[string]int{"created": 1, "creating": 149}, statuses())
	clk.add(149 * time.Millisecond)
	assert.Equal(t, map[string]int{"created": 150}, statuses())
	addresses := map[any]bool{}
	for i := range 150 {
		f := ok(t, e, http.StatusOK, "GET", fmt.Sprintf("/compute/v1/floating-ips/fip-%06d", i+1), "")["floating_ip"].(map[string]any)
		addresses[f["ip_address"]] = true
	}
	assert.Len(t, addresses, 150, "each got its own address")

	// The instance is due at 09:02:00.150, a minute and a millisecond from now.
	e.Advance(time.Minute)
	in := ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/ins-000001", "")["instance"].(map[string]any)
	assert.Equal(t, "creating", in["status"])
	e.Advance(time.Millisecond)
	in = ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/ins-000001", "")["instance"].(map[string]any)
	assert.Equal(t, "active", in["status"])
	assert.Equal(t, "2026-01-15T09:02:00.150Z", in["updated_at"], "stamped with the time it was due")
	assert.Zero(t, e.s.queue.Len())
}

// Deleting a resource forgets the transition it had in progress, and a reset forgets them all.
func TestDeleteAndResetClearTheQueue(t *testing.T) {
	e := newEngine(Config{Durations: UniformDurations(time.Hour)})
	for _, path := range []string{"volumes", "filesystems", "snapshots"} {
		body := `{"name":"x","region":"NORD-NO-KRS-1","size":1,"url":"https://example.com/x.raw"}`
		if path != "snapshots" {
			body = `{"name":"x","region":"NORD-NO-KRS-1","size":1}`
		}
		id := ok(t, e, http.StatusCreated, "POST", "/compute/v1/"+path, body)[path[:len(path)-1]].(map[string]any)["id"].(string)
		require.Equal(t, 1, e.s.queue.Len(), path)
		ok(t, e, http.StatusNoContent, "DELETE", "/compute/v1/"+path+"/"+id, "")
		require.Zero(t, e.s.queue.Len(), "deleting a %s still creating forgets its transition", path)
	}
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`)
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)
	require.Equal(t, 2, e.s.queue.Len())
	e.Reset()
	require.Zero(t, e.s.queue.Len())
	e.Advance(2 * time.Hour) // would complete the forgotten transitions, and hand out their addresses
	f := ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`)
	assert.Equal(t, "fip-000001", f["floating_ip"].(map[string]any)["id"])
	e.Advance(time.Hour)
	f = ok(t, e, http.StatusOK, "GET", "/compute/v1/floating-ips/fip-000001", "")
	assert.Equal(t, "100.64.0.2", f["floating_ip"].(map[string]any)["ip_address"], "the first address again")
}

// With no durations a transition completes at the next request, not in the create's response.
func TestInstantTransitionsCompleteAtTheNextRequest(t *testing.T) {
	e := newEngine(Config{})
	in := ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)["instance"].(map[string]any)
	assert.Equal(t, "creating", in["status"])
	in = ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/ins-000001", "")["instance"].(map[string]any)
	assert.Equal(t, "active", in["status"])
	assert.NotNil(t, in["private_ip"])
}
