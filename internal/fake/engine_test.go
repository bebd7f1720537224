package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
	assert.Equal(t, "192.0.2.1", f["floating_ip"].(map[string]any)["ip_address"], "the first address again")
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

// FuzzServeHTTP sends one request of any method, path and body, with the API's token or the
// control endpoint's, to an engine that holds one resource of each kind: nothing panics, the status
// is one the API or the control endpoint sends (never 500), a JSON body is valid JSON, and a refusal
// carries a code and a message.
func FuzzServeHTTP(f *testing.F) {
	for _, s := range []struct{ method, path, body string }{
		{"POST", "/compute/v1/instances", `{"name":"a","hostname":"a","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1","image":"img-ubuntu-2404","ssh_keys":["key-ci"],"metadata":{"user_data":[{"type":"cloud-config","content":"x"}]}}`},
		{"PATCH", "/compute/v1/instances/ins-000001", `{"volumes":{"attach":"vol-data-1"},"security_groups":["sg-000001"]}`},
		{"POST", "/compute/v1/instances/ins-000001/actions", `{"action":"stop"}`},
		{"POST", "/compute/v1/instances/ins-000001/snapshots", `{"name":"s","replicated_region":"EUC-DE-MUC-1"}`},
		{"PUT", "/compute/v1/security-groups/sg-000001", `{"name":"g","rules":[{"protocol":"tcp","direction":"ingress","port_range_min":22,"port_range_max":22}]}`},
		{"POST", "/compute/v1/volumes", `{"name":"v","region":"NORD-NO-KRS-1","size":10,"type":"hdd"}`},
		{"POST", "/compute/v1/snapshots/snap-000001/clone", `{"name":"c","region":"NORD-NO-KRS-1"}`},
		{"GET", "/compute/v1/images?type=snapshot&per_page=2&page=3", ""},
		{"DELETE", "/compute/v1/floating-ips/fip-000001", ""},
		{"GET", "/compute/v1/volumes/vol-404", ""},
		{"POST", "/_fake/faults", `{"match":{"method":"GET","path":"/compute/v1/*"},"times":1,"fault":{"status":503,"latency":"1s"}}`},
		{"PUT", "/_fake/quotas", `{"instances":3}`},
		{"PUT", "/_fake/volumes/vol-000001/status", `{"status":"error"}`},
	} {
		f.Add(s.method, s.path, []byte(s.body))
	}
	statuses := []int{200, 201, 204, 400, 401, 403, 404, 429}
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		e := newEngine(Config{Clock: newClock().Now})
		for _, r := range []struct{ path, body string }{
			{"/compute/v1/security-groups", `{"name":"g","region":"NORD-NO-KRS-1","rules":[]}`},
			{"/compute/v1/floating-ips", `{"name":"f","region":"NORD-NO-KRS-1"}`},
			{"/compute/v1/instances", `{"name":"a","hostname":"a","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1","image":"img-ubuntu-2404","ssh_keys":["key-ci"],"floating_ip":"fip-000001","security_groups":["sg-000001"]}`},
			{"/compute/v1/instances/ins-000001/snapshots", `{"name":"s"}`},
			{"/compute/v1/volumes", `{"name":"v","region":"NORD-NO-KRS-1","size":10}`},
			{"/compute/v1/filesystems", `{"name":"fs","region":"NORD-NO-KRS-1","size":10}`},
		} {
			ok(t, e, http.StatusCreated, "POST", r.path, r.body)
		}
		r, err := http.NewRequest(method, "http://127.0.0.1"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		r.Header.Set("Authorization", "Bearer "+DefaultToken)
		r.Header.Set(controlHeader, testControlToken)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		require.Contains(t, statuses, w.Code, "%s %q: %s", method, path, w.Body)
		if w.Header().Get("Content-Type") != "application/json" {
			return
		}
		var m any
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &m), "%s %q: %s", method, path, w.Body)
		if w.Code >= 400 {
			var refusal struct{ Code, Message string }
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &refusal))
			require.NotEmpty(t, refusal.Code, "%s %q: %s", method, path, w.Body)
			require.NotEmpty(t, refusal.Message, "%s %q: %s", method, path, w.Body)
		}
	})
}

// LogBytes drops the oldest requests once they pass it (a request counts its body and its path
// here), and LogLimit once they are more than it; the last request always stays, whatever its size.
func TestTheLogKeepsItsBounds(t *testing.T) {
	body := `{"name":"` + strings.Repeat("a", 90) + `"}` // 101 bytes, refused, logged all the same
	logged := func(e *Engine) (n int, size int) {
		for _, r := range e.Requests() {
			n, size = n+1, size+len(r.Body)
		}
		return n, size
	}
	e := newEngine(Config{LogBytes: 250})
	for range 5 {
		send(t, e, "POST", "/compute/v1/ssh-keys", body)
	}
	n, size := logged(e)
	require.Equal(t, 2, n, "two requests of 121 bytes fit in 250")
	require.Equal(t, 202, size)
	e = newEngine(Config{LogBytes: 100, LogLimit: 3}) // the POST's 101 + 20 bytes pass it, 3 GETs of 18 do not
	send(t, e, "POST", "/compute/v1/ssh-keys", body)
	n, _ = logged(e)
	require.Equal(t, 1, n, "the last request stays")
	for range 4 {
		send(t, e, "GET", "/compute/v1/images", "")
	}
	n, size = logged(e)
	require.Equal(t, 3, n, "LogLimit")
	require.Zero(t, size)
	ok(t, e, http.StatusNoContent, "DELETE", "/_fake/requests", "")
	require.Zero(t, e.logSize)
}

// What the log keeps of a request counts in LogBytes: its headers and its path too, not only its
// body, so that requests with large headers (refused, without a token) cannot grow the log past it.
func TestTheLogCountsHeadersAndPaths(t *testing.T) {
	e := newEngine(Config{LogBytes: 1 << 20})
	big := strings.Repeat("h", 200<<10)
	for i := range 20 {
		r := httptest.NewRequest("GET", "/compute/v1/images?q="+big[:i], nil)
		r.Header.Set("X-Padding", big)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		require.Equal(t, http.StatusUnauthorized, w.Code)
	}
	kept := 0
	for _, r := range e.Requests() {
		for k, vs := range r.Header {
			kept += len(k)
			for _, v := range vs {
				kept += len(v)
			}
		}
	}
	require.LessOrEqual(t, kept, 1<<20, "headers kept")
	require.Greater(t, kept, 3*(200<<10), "the log still keeps what fits")

	e = newEngine(Config{LogBytes: 1 << 20})
	for range 20 {
		send(t, e, "GET", "/compute/v1/images?name="+big, "")
	}
	paths := 0
	for _, r := range e.Requests() {
		paths += len(r.Query.Get("name"))
	}
	require.LessOrEqual(t, paths, 1<<20, "queries kept")
}
