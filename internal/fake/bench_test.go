package fake

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkRequestAsTheFakeFills runs the same requests against a fake that holds only what they
// need and against one that also holds 20,000 resources (5,000 each of instances, floating IPs,
// volumes and security groups, every one with its create transition still pending), so that the
// ratio of the two shows how a request's cost grows with the state; the paired sub-benchmark
// measures that ratio with both in the same loop. It goes through ServeHTTP without the network,
// which would only add the same cost to both.
func BenchmarkRequestAsTheFakeFills(b *testing.B) {
	requests := []struct{ name, method, path, body string }{
		{"list", "GET", "/compute/v1/floating-ips?per_page=10", ""},
		{"get", "GET", "/compute/v1/instances/ins-000001", ""},
		{"update", "PATCH", "/compute/v1/floating-ips/fip-000001", `{"description":"x"}`},
		{"create-delete", "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`},
	}
	sizes := []int{0, 20000}
	engines := map[int]*Engine{}
	for _, size := range sizes {
		e := New(Config{Durations: UniformDurations(time.Hour), LogLimit: 1000}) // as compute-fake
		fill(b, e, "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`, 10)
		fill(b, e, "/compute/v1/instances", instanceBodyJSON, 1)
		for _, kind := range []struct{ path, body string }{
			{"/compute/v1/instances", instanceBodyJSON},
			{"/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`},
			{"/compute/v1/volumes", `{"name":"v","region":"NORD-NO-KRS-1","size":1}`},
			{"/compute/v1/security-groups", `{"name":"sg","region":"NORD-NO-KRS-1","rules":[]}`},
		} {
			fill(b, e, kind.path, kind.body, size/4)
		}
		engines[size] = e
	}
	for _, rq := range requests {
		send := func(b *testing.B, e *Engine) {
			w := serve(e, rq.method, rq.path, rq.body)
			if w.Code >= 300 {
				b.Fatalf("%s %s: %d %s", rq.method, rq.path, w.Code, w.Body)
			}
			if rq.name == "create-delete" { // the fake stays the size it was
				id := w.Body.String()[strings.Index(w.Body.String(), `"id":"`)+6:][:10]
				if w := serve(e, "DELETE", rq.path+"/"+id, ""); w.Code != http.StatusNoContent {
					b.Fatalf("DELETE %s: %d %s", id, w.Code, w.Body)
				}
			}
		}
		for _, size := range sizes { // one after the other, so that the machine's drift touches both alike
			b.Run(fmt.Sprintf("%s/resources=%d", rq.name, size), func(b *testing.B) {
				for b.Loop() {
					send(b, engines[size])
				}
			})
		}
		// paired sends the request to both fakes in turn and times each, so that both see the same
		// moment of the machine: its full/empty ratio is the one to read.
		b.Run(rq.name+"/paired", func(b *testing.B) {
			var spent [2]time.Duration
			for b.Loop() {
				for i, size := range sizes {
					start := time.Now()
					send(b, engines[size])
					spent[i] += time.Since(start)
				}
			}
			b.ReportMetric(float64(spent[0].Nanoseconds())/float64(b.N), "empty-ns/op")
			b.ReportMetric(float64(spent[1].Nanoseconds())/float64(b.N), "full-ns/op")
			b.ReportMetric(float64(spent[1])/float64(spent[0]), "full/empty")
		})
	}
}

func serve(e *Engine, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+DefaultToken)
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	return w
}

func fill(b *testing.B, e *Engine, path, body string, n int) {
	b.Helper()
	for range n {
		if w := serve(e, "POST", path, body); w.Code != http.StatusCreated {
			b.Fatalf("POST %s: %d %s", path, w.Code, w.Body)
		}
	}
}
