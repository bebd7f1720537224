package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
)

// A worker is this binary run again with workerFlag, its job in envWorker (JSON) and the token in
// envToken, so that neither shows in a process listing.
const (
	workerFlag = "-worker"
	envWorker  = "SCALERUN_WORKER"
	envToken   = "SCALERUN_TOKEN"
)

// stuckGrace is how long after its deadline a worker waits for calls that ignore their context
// before it counts them failed and reports.
const stuckGrace = 5 * time.Second

// job is one worker's part of a run.
type job struct {
	Index     int           `json:"index"`
	Names     []string      `json:"names"`      // the instances it brings up, unique to the run
	URL       string        `json:"url"`        // compute-fake's base URL
	Mode      string        `json:"mode"`       // restart, redis or local
	Rate      float64       `json:"rate"`       // the account's rate
	Workers   int           `json:"workers"`    // processes sharing the token
	RedisAddr string        `json:"redis_addr"` // empty in local mode
	KeyPrefix string        `json:"key_prefix"` // the run's own Redis key prefix
	RedisWait time.Duration `json:"redis_wait"` // the Redis limiter's timeout; 0 for its default
	Start     int64         `json:"start"`      // Unix nanoseconds when every worker starts
	Deadline  int64         `json:"deadline"`   // Unix nanoseconds when every call ends
	RunID     string        `json:"run_id"`     // in the names of the run's instances
	Churn     bool          `json:"churn"`      // this worker is the churn (churn.go), not one of the job's
	ChurnRate float64       `json:"churn_rate"` // the churn's requests per second
	Jitter    time.Duration `json:"jitter"`     // one request in 4 leaves this late, as on a loaded machine
	Settle    time.Duration `json:"settle"`     // how long after its create the churn deletes an instance
}

// report is what a worker prints on stdout when it ends, as one JSON object.
type report struct {
	Created       int      `json:"created"`        // CreateOnce calls that returned an instance
	FailedCreates int      `json:"failed_creates"` // CreateOnce calls that failed or never returned
	FailedWaits   int      `json:"failed_waits"`   // WaitForStatus(active) calls that failed or never returned
	FailedDeletes int      `json:"failed_deletes"` // DeleteAndWait calls that failed or never returned
	Stuck         int      `json:"stuck"`          // calls among the failed that had not returned stuckGrace after the deadline
	LookupPages   int64    `json:"lookup_pages"`   // list requests sent on CreateOnce's behalf
	Errors        []string `json:"errors"`         // the first few distinct errors
	Done          int64    `json:"done"`           // Unix nanoseconds when the teardown ended; 0 if it did not
	Phases        [3]int64 `json:"phases"`         // Unix nanoseconds when creates, waits and teardown each ended
}

// counting is a transport that counts the list requests a worker sends while it creates: its
// CreateOnce lookups, since no wait runs before every create has returned (the waits' walks come
// after). It tells them by time, not by context, so that it holds however the SDK runs a lookup.
type counting struct {
	base     http.RoundTripper
	creating atomic.Bool
	lookups  atomic.Int64
	sent     atomic.Int64
	jitter   time.Duration // one request in 4 leaves this late, after the limiter let it go
}

func (t *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/instances") && t.creating.Load() {
		t.lookups.Add(1)
	}
	if n := t.sent.Add(1); t.jitter > 0 && n%4 == 2 {
		time.Sleep(t.jitter)
	}
	return t.base.RoundTrip(r)
}

// redisLog puts go-redis's own messages (a failed dial) on the worker's log lines.
type redisLog func(format string, a ...any)

func (l redisLog) Printf(_ context.Context, format string, a ...any) { l("go-redis: "+format, a...) }

// worker runs the job in the environment and prints its report; it returns the exit status.
func worker(stdout, stderr io.Writer) int {
	var j job
	if err := json.Unmarshal([]byte(os.Getenv(envWorker)), &j); err != nil {
		fmt.Fprintln(stderr, "scalerun worker: bad job:", err)
		return 2
	}
	logf := func(format string, a ...any) {
		at := time.Since(time.Unix(0, j.Start)).Seconds()
		fmt.Fprintf(stderr, "scalerun worker %d at %.1fs: %s\n", j.Index, at, fmt.Sprintf(format, a...))
	}
	goredis.SetLogger(redisLog(logf))
	tr := &counting{base: &http.Transport{MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second}, jitter: j.Jitter}
	opts := []compute.Option{compute.WithBaseURL(j.URL), compute.WithHTTPClient(&http.Client{Transport: tr})}
	token := os.Getenv(envToken)
	if j.Mode == modeLocal {
		l, err := compute.NewLimiter(j.Rate, 1)
		if err != nil {
			logf("%v", err)
			return 2
		}
		opts = append(opts, compute.WithLimiter(l))
	} else {
		rdb := goredis.NewClient(&goredis.Options{Addr: j.RedisAddr})
		defer rdb.Close()
		// The default fallback: this process's share of wall-clock slots, as the limiter's doc advises.
		var timeout ratelimit.Option
		if j.RedisWait > 0 {
			timeout = ratelimit.WithTimeout(j.RedisWait)
		}
		l, err := ratelimit.New(rdb, token, ratelimit.WithRate(j.Rate), ratelimit.WithKeyPrefix(j.KeyPrefix), timeout,
			ratelimit.WithErrorHandler(func(err error) {
				if err != nil {
					logf("limiter falls back: %v", err)
				} else {
					logf("limiter back on Redis")
				}
			}))
		if err != nil {
			logf("%v", err)
			return 2
		}
		defer l.Close() // leaves the budget at once
		opts = append(opts, compute.WithLimiter(l))
	}
	c, err := compute.NewClient(token, opts...)
	if err != nil {
		logf("%v", err)
		return 2
	}
	if j.Churn {
		b, err := json.Marshal(j.churn(c, tr.sent.Load, untilEOF(os.Stdin)))
		if err != nil {
			logf("%v", err)
			return 2
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	tr.creating.Store(true)
	rep := j.do(c, func() { tr.creating.Store(false) })
	rep.LookupPages = tr.lookups.Load()
	b, err := json.Marshal(rep)
	if err != nil {
		logf("%v", err)
		return 2
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

// do brings the job's instances up, calling createsReturned once every create has returned, waits for
// them and tears them down, each call bounded by the job's deadline.
func (j job) do(c *compute.Client, createsReturned func()) report {
	var rep report
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		msg := err.Error()
		if len(rep.Errors) < 5 && !slices.Contains(rep.Errors, msg) {
			rep.Errors = append(rep.Errors, msg)
		}
	}
	deadline := time.Unix(0, j.Deadline)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	time.Sleep(time.Until(time.Unix(0, j.Start)))

	// Bring up: one CreateOnce per instance, all at once.
	ids := make([]string, len(j.Names))
	errs, stuck := bounded(len(j.Names), deadline.Add(stuckGrace), func(run func(int, func() error)) {
		var wg sync.WaitGroup
		for i, name := range j.Names {
			wg.Go(func() {
				run(i, func() error {
					inst, err := c.Instances.CreateOnce(ctx, &compute.InstanceCreateRequest{
						Name: name, Hostname: fmt.Sprintf("h%d", i), Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1",
						Image: "debian-12", SSHKeys: []string{"key-ci"}})
					if err == nil {
						ids[i] = inst.ID
					}
					return err
				})
			})
		}
		wg.Wait()
	})
	rep.Phases[0] = time.Now().UnixNano()
	createsReturned()
	rep.Stuck += stuck
	var created []string
	for i, err := range errs {
		switch {
		case err != nil:
			rep.FailedCreates++
			fail(fmt.Errorf("CreateOnce: %w", err))
		case ids[i] != "":
			created = append(created, ids[i])
		}
	}
	rep.Created = len(created)

	// Wait until every instance made is active, then tear them all down, each with WaitAll.
	phase := func(n int, call func(ctx context.Context, id string) error) (failed int) {
		errs, stuck := bounded(len(created), deadline.Add(stuckGrace), func(run func(int, func() error)) {
			index := map[string]int{}
			for i, id := range created {
				index[id] = i
			}
			_ = compute.WaitAll(ctx, created, func(ctx context.Context, id string) error {
				var err error
				run(index[id], func() error { err = call(ctx, id); return err })
				return err
			})
		})
		rep.Phases[n] = time.Now().UnixNano()
		rep.Stuck += stuck
		for _, err := range errs {
			if err != nil {
				failed++
				fail(err)
			}
		}
		return failed
	}
	rep.FailedWaits = phase(1, func(ctx context.Context, id string) error {
		_, err := c.Instances.WaitForStatus(ctx, id, compute.InstanceStatusActive)
		if err != nil {
			return fmt.Errorf("WaitForStatus(active): %w", err)
		}
		return nil
	})
	rep.FailedDeletes = phase(2, func(ctx context.Context, id string) error {
		if err := c.Instances.DeleteAndWait(ctx, id); err != nil {
			return fmt.Errorf("DeleteAndWait: %w", err)
		}
		return nil
	})
	if time.Now().Before(deadline) {
		rep.Done = rep.Phases[2]
	}
	return rep
}

// errStuck is the error of a call that had not returned by its bound.
var errStuck = fmt.Errorf("the call had not returned %s after the run's deadline", stuckGrace)

// bounded runs start, which calls run(i, call) once for each i below n, and returns each call's
// error; a call that has not returned by until gets errStuck (and stuck counts them), so that one
// call ignoring its context cannot keep the worker from reporting.
func bounded(n int, until time.Time, start func(run func(i int, call func() error))) (errs []error, stuck int) {
	var mu sync.Mutex
	results := make([]error, n)
	returned := make([]bool, n)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start(func(i int, call func() error) {
			err := call()
			mu.Lock()
			results[i], returned[i] = err, true
			mu.Unlock()
		})
	}()
	timer := time.NewTimer(time.Until(until))
	defer timer.Stop()
	select {
	case <-finished:
	case <-timer.C:
	}
	mu.Lock()
	defer mu.Unlock()
	errs = make([]error, n)
	for i := range n {
		errs[i] = results[i]
		if !returned[i] {
			errs[i] = errStuck
			stuck++
		}
	}
	return errs, stuck
}
