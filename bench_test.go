package compute_test

// The benchmarks measure what the SDK costs per call (request building, the go-retryablehttp loop,
// the limiter gate, the per-attempt transport, envelope decoding) against a baseline measured in the
// same run: the same exchange written by hand with net/http and encoding/json, against the same
// loopback server, through the same keep-alive *http.Transport, decoding into the same
// compute.Instance. Each pair is one benchmark with the sub-benchmarks impl=sdk and impl=raw, so
// that benchstat puts them side by side with the ratio:
//
//	for i in 1 2 3 4 5 6; do go test -run '^$' -bench . -benchmem -count 1 .; done | tee bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl bench.txt
//
// BenchmarkPaired measures the same pairs a second way, alternating one SDK call and one raw call in
// the same loop, so that both see the same machine load; on a busy machine its sdk/raw ratio is far
// steadier than the ratio of two benchmarks run one after the other.
//
// The exchange benchmarks (Get, List, All, Create, APIError) use a server responding fixed,
// pre-encoded bodies, so the server's cost is small and the same for both sides and the ratio shows
// the client's overhead; computetest would add its own work (state, request log, JSON encoding under
// a lock) to both sides and flatten the ratio. Server allocations count in B/op and allocs/op on both
// sides alike (same process), so the difference of the two is the client's. The pacing benchmark
// uses computetest, whose rate limit it needs. BENCHMARKS.md has the figures.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

const (
	benchToken = "bench-token-0123456789"
	// benchTotal instances are served by the fixed server, in pages of benchPerPage.
	benchTotal   = 10_000
	benchPerPage = 100
	// benchNotFound is the instance ID the fixed server sends a 404 response for.
	benchNotFound = "i-missing"
)

// benchInstanceID is the ID of testdata/instance_get_response.json's instance: a Get must ask for the
// instance the response holds, or the SDK refuses the response.
const benchInstanceID = "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f"

// benchFixture is a loopback server responding fixed bodies, and an *http.Client whose keep-alive
// transport both the SDK (through WithHTTPClient, which keeps the transport) and the raw baseline use.
type benchFixture struct {
	url string
	hc  *http.Client
}

// newBenchFixture serves, on a loopback socket:
//
//	GET  /compute/v1/instances/i-missing         404 {"code":"02008","message":...}
//	GET  /compute/v1/instances/{id}              200 testdata/instance_get_response.json
//	GET  /compute/v1/instances?page=N            200 page N of benchTotal distinct instances
//	POST /compute/v1/instances                   201 testdata/instance_create_response.json
//
// Every response has a Content-Length and an X-Request-Id, like the service's.
func newBenchFixture(b *testing.B) *benchFixture {
	b.Helper()
	get := benchGolden(b, "instance_get_response.json")
	created := benchGolden(b, "instance_create_response.json")
	pages, err := benchPages()
	if err != nil {
		b.Fatal(err)
	}
	notFound := []byte(`{"code":"02008","message":"Instance not found"}`)
	reply := func(w http.ResponseWriter, status int, body []byte) {
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		h["X-Request-Id"] = []string{"req-0001"}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /compute/v1/instances/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == benchNotFound {
			reply(w, http.StatusNotFound, notFound)
			return
		}
		reply(w, http.StatusOK, get)
	})
	mux.HandleFunc("GET /compute/v1/instances", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page < 1 {
			page = 1
		}
		if page > len(pages) {
			reply(w, http.StatusOK, []byte(`{"instances":[],"total_count":`+strconv.Itoa(benchTotal)+`}`))
			return
		}
		reply(w, http.StatusOK, pages[page-1])
	})
	mux.HandleFunc("POST /compute/v1/instances", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		reply(w, http.StatusCreated, created)
	})
	srv := httptest.NewServer(mux)
	tr := &http.Transport{MaxIdleConns: 16, MaxIdleConnsPerHost: 16, IdleConnTimeout: time.Minute}
	b.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return &benchFixture{url: srv.URL, hc: &http.Client{Transport: tr}}
}

// client is the SDK as shipped: retries on (the default policy) and the limiter on, at a rate high
// enough never to make a caller wait.
func (f *benchFixture) client(b *testing.B) *compute.Client {
	b.Helper()
	c, err := compute.NewClient(benchToken, compute.WithBaseURL(f.url), compute.WithHTTPClient(f.hc),
		compute.WithRateLimit(1e9, 1<<20))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// benchGolden reads testdata/name.
func benchGolden(b *testing.B, name string) []byte {
	b.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// benchPages encodes, once per process, benchTotal distinct instances (copies of the golden one with
// their own ID and name, so that the walker's repeated-page check sees different pages) in pages of
// benchPerPage.
var benchPages = sync.OnceValues(func() ([][]byte, error) {
	get, err := os.ReadFile(filepath.Join("testdata", "instance_get_response.json"))
	if err != nil {
		return nil, err
	}
	var env struct {
		Instance compute.Instance `json:"instance"`
	}
	if err := json.Unmarshal(get, &env); err != nil {
		return nil, err
	}
	var pages [][]byte
	for p := 1; (p-1)*benchPerPage < benchTotal; p++ {
		pg := rawPage{TotalCount: benchTotal, Page: p, PerPage: benchPerPage}
		for i := (p - 1) * benchPerPage; i < min(p*benchPerPage, benchTotal); i++ {
			inst := env.Instance
			inst.ID = fmt.Sprintf("%08x-5b2e-4d8a-9f0e-1a2b3c4d5e6f", i)
			inst.Name = fmt.Sprintf("web-%d", i)
			pg.Instances = append(pg.Instances, inst)
		}
		body, err := json.Marshal(pg)
		if err != nil {
			return nil, err
		}
		pages = append(pages, body)
	}
	return pages, nil
})

// rawPage is the list envelope as a hand-written client would declare it.
type rawPage struct {
	Instances  []compute.Instance `json:"instances"`
	TotalCount int                `json:"total_count"`
	Page       int                `json:"page"`
	PerPage    int                `json:"per_page"`
}

// rawAPIError is the error a hand-written client would build from a 4xx response.
type rawAPIError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *rawAPIError) Error() string { return strconv.Itoa(e.Status) + " " + e.Code + ": " + e.Message }

// rawDo is the hand-written baseline of one call: build the request with the same headers the SDK
// sends, send it, and decode a 2xx response into out with encoding/json, or a non-2xx one into a
// *rawAPIError with json.Unmarshal.
func rawDo(ctx context.Context, hc *http.Client, method, u string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+benchToken)
	req.Header.Set("User-Agent", "compute-go/"+compute.Version)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		e := &rawAPIError{Status: resp.StatusCode}
		if err := json.Unmarshal(raw, e); err != nil {
			return err
		}
		return e
	}
	err = json.NewDecoder(resp.Body).Decode(out)
	_, _ = io.Copy(io.Discard, resp.Body) // let the connection be reused
	return err
}

// benchCase is one exchange done two ways: by the SDK and by hand. Each op returns how many items it
// saw (1 for a single call) and fails on an unexpected response.
type benchCase struct {
	sdk, raw func() (int, error)
	// items is the number of items one op must see.
	items int
}

// run runs the two sides as the sub-benchmarks impl=sdk and impl=raw.
func (bc benchCase) run(b *testing.B) {
	b.Run("impl=sdk", func(b *testing.B) { benchLoop(b, bc.sdk, bc.items) })
	b.Run("impl=raw", func(b *testing.B) { benchLoop(b, bc.raw, bc.items) })
}

// benchLoop runs op in a b.Loop, failing on its first error. For an op that walks a list (items > 1) it
// also reports items/s, allocs/item and B/item, from the runtime's counters around the loop; those
// count the server's allocations too, like B/op and allocs/op, and alike for both sides.
func benchLoop(b *testing.B, op func() (int, error), items int) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	seen := 0
	for b.Loop() {
		n, err := op()
		if err == nil && n != items {
			err = fmt.Errorf("saw %d items, want %d", n, items)
		}
		if err != nil {
			b.Fatal(err)
		}
		seen += n
	}
	runtime.ReadMemStats(&after)
	if items > 1 && seen > 0 {
		b.ReportMetric(float64(seen)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(seen), "allocs/item")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(seen), "B/item")
	}
}

// benchOne turns the result of a single-object call into benchLoop's count.
func benchOne(inst *compute.Instance, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	if inst == nil || inst.ID == "" {
		return 0, errors.New("no instance in the response")
	}
	return 1, nil
}

// benchGetCase is Instances.Get against a hand-written GET decoding {"instance": {...}}.
func benchGetCase(b *testing.B, f *benchFixture) benchCase {
	ctx := context.Background()
	c := f.client(b)
	u := f.url + "/compute/v1/instances/" + benchInstanceID
	return benchCase{
		items: 1,
		sdk:   func() (int, error) { return benchOne(c.Instances.Get(ctx, benchInstanceID)) },
		raw: func() (int, error) {
			var out struct {
				Instance *compute.Instance `json:"instance"`
			}
			err := rawDo(ctx, f.hc, http.MethodGet, u, nil, &out)
			return benchOne(out.Instance, err)
		},
	}
}

// benchListCase is one page of 100 instances: Instances.List against a hand-written GET decoding the
// list envelope.
func benchListCase(b *testing.B, f *benchFixture) benchCase {
	ctx := context.Background()
	c := f.client(b)
	u := f.url + "/compute/v1/instances?page=1&per_page=" + strconv.Itoa(benchPerPage)
	return benchCase{
		items: benchPerPage,
		sdk: func() (int, error) {
			p, err := c.Instances.List(ctx, &compute.ListOptions{Page: 1, PerPage: benchPerPage})
			if err != nil {
				return 0, err
			}
			return len(p.Items), nil
		},
		raw: func() (int, error) {
			var p rawPage
			err := rawDo(ctx, f.hc, http.MethodGet, u, nil, &p)
			return len(p.Instances), err
		},
	}
}

// benchAllCase walks all 10,000 instances at 100 per page (100 requests an op): Instances.All
// against a hand-written page loop.
func benchAllCase(b *testing.B, f *benchFixture) benchCase { return benchWalkCase(b, f, benchTotal) }

// benchWalkCase walks the first limit instances (a multiple of benchPerPage, at most benchTotal):
// the SDK's loop breaks out of Instances.All, which then fetches no further page; the raw loop
// stops after the last page needed.
func benchWalkCase(b *testing.B, f *benchFixture, limit int) benchCase {
	ctx := context.Background()
	c := f.client(b)
	return benchCase{
		items: limit,
		sdk: func() (int, error) {
			n := 0
			for inst, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: benchPerPage}) {
				if err != nil {
					return n, err
				}
				if inst.ID == "" {
					return n, errors.New("empty instance")
				}
				if n++; n == limit {
					break
				}
			}
			return n, nil
		},
		raw: func() (int, error) {
			n := 0
			for page := 1; ; page++ {
				var p rawPage
				u := f.url + "/compute/v1/instances?page=" + strconv.Itoa(page) + "&per_page=" + strconv.Itoa(benchPerPage)
				if err := rawDo(ctx, f.hc, http.MethodGet, u, nil, &p); err != nil {
					return n, err
				}
				for _, inst := range p.Instances {
					if inst.ID == "" {
						return n, errors.New("empty instance")
					}
					n++
				}
				if n >= limit || len(p.Instances) < benchPerPage || page*benchPerPage >= p.TotalCount {
					return n, nil
				}
			}
		},
	}
}

// benchCreateCase is Instances.Create (validation, JSON encoding, POST, decoding) against a hand-written
// json.Marshal and POST decoding {"instance": {...}}, without validation, which a hand-written
// client would not have.
func benchCreateCase(b *testing.B, f *benchFixture) benchCase {
	ctx := context.Background()
	c := f.client(b)
	u := f.url + "/compute/v1/instances"
	var req compute.InstanceCreateRequest
	if err := json.Unmarshal(benchGolden(b, "instance_create_request.json"), &req); err != nil {
		b.Fatal(err)
	}
	return benchCase{
		items: 1,
		sdk:   func() (int, error) { return benchOne(c.Instances.Create(ctx, &req)) },
		raw: func() (int, error) {
			body, err := json.Marshal(&req)
			if err != nil {
				return 0, err
			}
			var out struct {
				Instance *compute.Instance `json:"instance"`
			}
			err = rawDo(ctx, f.hc, http.MethodPost, u, body, &out)
			return benchOne(out.Instance, err)
		},
	}
}

// benchAPIErrorCase is the error path: a GET with a 404 response of {"code","message"}, read by the SDK into a
// *compute.APIError and by hand with json.Unmarshal into a struct{Code, Message}.
func benchAPIErrorCase(b *testing.B, f *benchFixture) benchCase {
	ctx := context.Background()
	c := f.client(b)
	u := f.url + "/compute/v1/instances/" + benchNotFound
	return benchCase{
		items: 1,
		sdk: func() (int, error) {
			_, err := c.Instances.Get(ctx, benchNotFound)
			var apiErr *compute.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != compute.CodeInstanceNotFound {
				return 0, fmt.Errorf("want a 02008 *APIError, got %v", err)
			}
			return 1, nil
		},
		raw: func() (int, error) {
			var out struct {
				Instance *compute.Instance `json:"instance"`
			}
			err := rawDo(ctx, f.hc, http.MethodGet, u, nil, &out)
			var apiErr *rawAPIError
			if !errors.As(err, &apiErr) || apiErr.Code != "02008" {
				return 0, fmt.Errorf("want a 02008 *rawAPIError, got %v", err)
			}
			return 1, nil
		},
	}
}

// BenchmarkGetInstance is Get instance: SDK against raw (see benchGetCase).
func BenchmarkGetInstance(b *testing.B) { benchGetCase(b, newBenchFixture(b)).run(b) }

// BenchmarkListInstances is List a page of 100 instances: SDK against raw (see benchListCase).
func BenchmarkListInstances(b *testing.B) { benchListCase(b, newBenchFixture(b)).run(b) }

// BenchmarkAllInstances is All over 10,000 instances at per_page 100: SDK against raw (see benchAllCase).
// One op is the whole walk; items/s, allocs/item and B/item are per instance.
func BenchmarkAllInstances(b *testing.B) { benchAllCase(b, newBenchFixture(b)).run(b) }

// BenchmarkCreateInstance is Create instance: SDK against raw (see benchCreateCase).
func BenchmarkCreateInstance(b *testing.B) { benchCreateCase(b, newBenchFixture(b)).run(b) }

// BenchmarkAPIError is the 404 error path: SDK against raw (see benchAPIErrorCase).
func BenchmarkAPIError(b *testing.B) { benchAPIErrorCase(b, newBenchFixture(b)).run(b) }

// BenchmarkPaired runs each case's SDK and raw op alternately in one loop (the order flips every
// iteration), timing each call, so that both sides share whatever else the machine is doing. It
// reports, per case:
//
//	sdk-ns/op, raw-ns/op   mean time of one call of each side
//	sdk/raw                the ratio of the means
//	sdk/raw-p50            the ratio of the medians, which a descheduled call or a GC pause that
//	                       lands on one side moves less
//
// ns/op is the time of one SDK op plus one raw op. A walk of all 10,000 instances takes a fifth of a
// second, too long for enough pairs in a one-second run, so op=all1000 walks the first 1,000 (10
// pages): the same pages, so the same cost per item.
func BenchmarkPaired(b *testing.B) {
	f := newBenchFixture(b)
	for _, tc := range []struct {
		name string
		mk   func(*testing.B, *benchFixture) benchCase
	}{
		{"get", benchGetCase}, {"list", benchListCase}, {"all1000", benchAll1000Case},
		{"create", benchCreateCase}, {"apierror", benchAPIErrorCase},
	} {
		b.Run("op="+tc.name, func(b *testing.B) { benchPaired(b, tc.mk(b, f)) })
	}
}

// benchAll1000Case walks the first 1,000 instances; see BenchmarkPaired.
func benchAll1000Case(b *testing.B, f *benchFixture) benchCase { return benchWalkCase(b, f, 1000) }

// benchPaired times bc's two sides alternately; see BenchmarkPaired.
func benchPaired(b *testing.B, bc benchCase) {
	var sdk, raw []time.Duration
	timed := func(op func() (int, error), into *[]time.Duration) {
		start := time.Now()
		n, err := op()
		*into = append(*into, time.Since(start))
		if err == nil && n != bc.items {
			err = fmt.Errorf("saw %d items, want %d", n, bc.items)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			timed(bc.sdk, &sdk)
			timed(bc.raw, &raw)
		} else {
			timed(bc.raw, &raw)
			timed(bc.sdk, &sdk)
		}
	}
	mean := func(d []time.Duration) float64 {
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		return float64(sum) / float64(len(d))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2])
	}
	b.ReportMetric(mean(sdk), "sdk-ns/op")
	b.ReportMetric(mean(raw), "raw-ns/op")
	b.ReportMetric(mean(sdk)/mean(raw), "sdk/raw")
	b.ReportMetric(median(sdk)/median(raw), "sdk/raw-p50")
}

// Pacing parameters: paceRequests requests at paceRate per second from paceWorkers goroutines take
// about five seconds.
const (
	paceRate     = 200
	paceRequests = 1000
	paceWorkers  = 16
)

// BenchmarkLimiterPacing has paceWorkers goroutines share one client limited to paceRate requests
// per second (burst 1, retries on) against a computetest server enforcing the same rate
// (WithRateLimit(paceRate, 0): a burst of one second's worth, paceRate requests, and a bucket that
// starts full). One op is a fixed batch of paceRequests Instances.Get calls, whatever b.N asks, so
// ns/op is the batch's wall time. It reports:
//
//	of-rate       throughput over the middle 90% of the responses (from the 5th to the 95th
//	              percentile of their times), as a fraction of the rate: the steady state, leaving
//	              out the start (the client's burst is 1, so at most one request goes early) and
//	              the end, where a stall of the whole process (a busy machine) would show as lost
//	              throughput although the limiter kept granting on time and catches up after it
//	of-rate-wall  n / (wall time of the batch) as a fraction of the rate, start and end included
//	429s          responses 429 the server sent during the batch, counted from srv.Requests()
//	failed        calls that still failed with a 429 once their retries ran out
//	p99-ms        99th percentile of the call latency, the limiter wait included
//	svc-ms        mean time from the limiter's grant to the response's headers (the service time)
//
// With paceWorkers goroutines no client can exceed paceWorkers / (service time) requests per second
// (Little's law), so of-rate can reach 1 only while svc-ms stays under paceWorkers/paceRate = 80 ms.
// A p99-ms well above the limiter's queue (paceWorkers/paceRate, 80 ms) means the process was
// stalled by a busy machine; of-rate-wall then drops below of-rate.
func BenchmarkLimiterPacing(b *testing.B) { benchPace(b, paceRate, 0, paceRequests) }

// BenchmarkPacingEnforcedRate is what a busy automation gets from the default limiter: 16 goroutines
// share one client with the SDK's defaults (10 requests per second, burst 1, retries on) and call
// Instances.Get against a loopback computetest server enforcing the contract's 10 per second with a
// burst of 1 (strict: a request less than 100 ms after the one before is refused), 2 and 10. One op
// is a run of COMPUTE_BENCH_PACE (a Go duration, default 60s) whatever b.N asks, so run it with
// -benchtime 1x:
//
//	go test -run '^$' -bench PacingEnforcedRate -benchtime 1x .
//
// burst=1/far=60ms is the strict server 60 ms away, with 10 ms of jitter each way. It takes four
// minutes, so it runs only when the -bench pattern names it (not under -bench .).
// It reports:
//
//	share     successful responses / (10 per second x the run's duration): the share of the
//	          account's rate the client was served
//	429s      429 responses the server sent during the run
//	429s/min  the same per minute
//	failed    calls that still failed with a 429 once their retries ran out
func BenchmarkPacingEnforcedRate(b *testing.B) {
	if !strings.Contains(flag.Lookup("test.bench").Value.String(), "PacingEnforcedRate") {
		b.Skip("takes four minutes: name it, as in -bench PacingEnforcedRate")
	}
	run := 60 * time.Second
	if v := os.Getenv("COMPUTE_BENCH_PACE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("COMPUTE_BENCH_PACE: %v", err)
		}
		run = d
	}
	for _, burst := range []int{1, 2, 10} {
		b.Run(fmt.Sprintf("burst=%d", burst), func(b *testing.B) { benchEnforced(b, burst, 0, run) })
	}
	b.Run("burst=1/far=60ms", func(b *testing.B) { benchEnforced(b, 1, 60*time.Millisecond, run) })
}

// benchEnforced is one server burst of BenchmarkPacingEnforcedRate; a far service (far > 0) is that
// round trip away, each way half of it with up to a sixth of it either side (60 ms: 30 ± 5 ms).
func benchEnforced(b *testing.B, burst int, far time.Duration, run time.Duration) {
	const rate, workers = compute.DefaultRateLimit, 16
	srv := computetest.NewServer(computetest.WithRateLimit(rate, burst))
	b.Cleanup(srv.Close)
	opts := []compute.Option{compute.WithRateLimit(rate, compute.DefaultRateBurst)} // the SDK's default
	if far > 0 {
		opts = append(opts, compute.WithHTTPClient(&http.Client{Transport: &farTransport{next: srv.HTTPClient().Transport, rtt: far}}))
	}
	c := srv.Client(opts...)
	inst, err := c.Instances.Create(context.Background(), &compute.InstanceCreateRequest{
		Name: "pace-1", Hostname: "pace-1", Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12",
		SSHKeys: []string{"key-ci"}})
	if err != nil {
		b.Fatal(err)
	}
	var share, n429, failed float64
	runs := 0
	for b.Loop() {
		srv.ResetRequests()
		ctx, cancel := context.WithTimeout(context.Background(), run)
		var ok, refused atomic.Int64
		errs := make(chan error, workers)
		var wg sync.WaitGroup
		start := time.Now()
		for range workers {
			wg.Go(func() {
				for ctx.Err() == nil {
					_, err := c.Instances.Get(ctx, inst.ID)
					switch {
					case err == nil:
						ok.Add(1)
					case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
						return // the run ended during the call, or the limiter's wait would outlast it
					case errors.Is(err, compute.ErrRateLimited):
						refused.Add(1)
					default:
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		cancel()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		share += float64(ok.Load()) / (rate * elapsed.Seconds())
		for _, r := range srv.Requests() {
			if r.Status == http.StatusTooManyRequests {
				n429++
			}
		}
		failed += float64(refused.Load())
		runs++
	}
	b.ReportMetric(share/float64(runs), "share")
	b.ReportMetric(n429/float64(runs), "429s")
	b.ReportMetric(n429/float64(runs)/run.Minutes(), "429s/min")
	b.ReportMetric(failed/float64(runs), "failed")
}

// benchPace is BenchmarkLimiterPacing at rate requests per second, against a server with the given burst
// (0 for one second's worth), with batches of requests calls.
func benchPace(b *testing.B, rate float64, serverBurst, requests int) {
	srv := computetest.NewServer(computetest.WithRateLimit(rate, serverBurst))
	b.Cleanup(srv.Close)
	// The SDK calls this transport after the limiter granted the attempt, so it times the service
	// alone: from the grant to the response's headers.
	svc := &timedTransport{next: srv.HTTPClient().Transport}
	c := srv.Client(compute.WithRateLimit(rate, 1), compute.WithHTTPClient(&http.Client{Transport: svc}))
	ctx := context.Background()
	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
		Name: "pace-1", Hostname: "pace-1", Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12",
		SSHKeys: []string{"key-ci"}})
	if err != nil {
		b.Fatal(err)
	}
	var steady, wall, n429, failed float64
	var lat []time.Duration
	runs := 0
	for b.Loop() {
		srv.ResetRequests()
		svc.reset()
		done := make([]time.Time, requests)
		took := make([]time.Duration, requests)
		var next, refused atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, paceWorkers)
		start := time.Now()
		for range paceWorkers {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= requests {
						return
					}
					t0 := time.Now()
					if _, err := c.Instances.Get(ctx, inst.ID); errors.Is(err, compute.ErrRateLimited) {
						refused.Add(1)
					} else if err != nil {
						errs <- err
						return
					}
					done[i] = time.Now()
					took[i] = done[i].Sub(t0)
				}
			})
		}
		wg.Wait()
		end := time.Now()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		slices.SortFunc(done, func(x, y time.Time) int { return x.Compare(y) })
		lo, hi := requests/20, requests-1-requests/20
		steady += float64(hi-lo) / done[hi].Sub(done[lo]).Seconds() / rate
		wall += float64(requests) / end.Sub(start).Seconds() / rate
		for _, r := range srv.Requests() {
			if r.Status == http.StatusTooManyRequests {
				n429++
			}
		}
		failed += float64(refused.Load())
		lat = append(lat, took...)
		runs++
	}
	slices.Sort(lat)
	b.ReportMetric(steady/float64(runs), "of-rate")
	b.ReportMetric(wall/float64(runs), "of-rate-wall")
	b.ReportMetric(n429/float64(runs), "429s")
	b.ReportMetric(failed/float64(runs), "failed")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(svc.mean().Seconds()*1000, "svc-ms")
}

// farTransport delays each request on its way and its response on the way back by half of rtt,
// plus or minus up to a sixth of rtt each, as a network path with jitter would.
type farTransport struct {
	next http.RoundTripper
	rtt  time.Duration
}

func (t *farTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	leg := func() time.Duration { return t.rtt/2 - t.rtt/6 + time.Duration(rand.Int64N(int64(t.rtt/3)+1)) }
	time.Sleep(leg())
	resp, err := t.next.RoundTrip(r)
	time.Sleep(leg())
	return resp, err
}

// timedTransport measures the mean time of the round trips it carries.
type timedTransport struct {
	next     http.RoundTripper
	total, n atomic.Int64
}

func (t *timedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	t.total.Add(int64(time.Since(start)))
	t.n.Add(1)
	return resp, err
}

func (t *timedTransport) reset() { t.total.Store(0); t.n.Store(0) }

func (t *timedTransport) mean() time.Duration {
	if n := t.n.Load(); n > 0 {
		return time.Duration(t.total.Load() / n)
	}
	return 0
}

// BenchmarkObserverCost is Instances.Get without an observer (what every client pays), with an
// Observer whose hooks do nothing, and with a Response captured through the context, in one run.
func BenchmarkObserverCost(b *testing.B) {
	f := newBenchFixture(b)
	ctx := context.Background()
	noop := compute.Observer{
		CallStart: func(ctx context.Context, _ compute.Call) context.Context { return ctx },
		CallEnd:   func(context.Context, compute.Response, error) {},
		Attempt:   func(context.Context, compute.Attempt) {},
	}
	for _, tc := range []struct {
		name string
		opts []compute.Option
		ctx  func() context.Context
	}{
		{"none", nil, func() context.Context { return ctx }},
		{"observer", []compute.Option{compute.WithObserver(noop)}, func() context.Context { return ctx }},
		{"capture", nil, func() context.Context { return compute.CaptureResponse(ctx, &compute.Response{}) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := compute.NewClient(benchToken, append([]compute.Option{compute.WithBaseURL(f.url), compute.WithHTTPClient(f.hc),
				compute.WithRateLimit(1e9, 1<<20)}, tc.opts...)...)
			if err != nil {
				b.Fatal(err)
			}
			benchLoop(b, func() (int, error) { return benchOne(c.Instances.Get(tc.ctx(), benchInstanceID)) }, 1)
		})
	}
}
