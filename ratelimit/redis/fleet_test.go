package redis_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
)

// The fleet: fleetProcesses copies of this test binary, each with fleetWorkers goroutines sharing one
// client, against one loopback server enforcing the contract's rate with no burst. The parent
// passes the run to its children in these variables; TestMain turns a child into fleetWorker.
const (
	envFleetWorker   = "COMPUTE_FLEET_WORKER"
	envFleetURL      = "COMPUTE_FLEET_URL"
	envFleetToken    = "COMPUTE_FLEET_TOKEN"
	envFleetInstance = "COMPUTE_FLEET_INSTANCE"
	envFleetRedis    = "COMPUTE_FLEET_REDIS"
	envFleetPrefix   = "COMPUTE_FLEET_PREFIX"
	envFleetStart    = "COMPUTE_FLEET_START"
	envFleetRun      = "COMPUTE_FLEET_RUN"

	fleetWorkers = 8
)

// BenchmarkFleet is the multi-process measurement: processes x 8 goroutines, one token, against a
// loopback computetest server enforcing 10 requests per second with a burst of 1, for
// COMPUTE_BENCH_PACE (a Go duration, default 60s) per op, with each process's own default limiter
// (limiter=local, what users get without sharing; 2 and 4 processes) and with this package's
// limiter on the Redis at COMPUTE_TEST_REDIS_ADDR (limiter=redis, 4 processes). Run it with
// -benchtime 1x:
//
//	COMPUTE_TEST_REDIS_ADDR=127.0.0.1:6379 go test -run '^$' -bench Fleet -benchtime 1x .
//
// It reports share (successful responses / (10 per second x the run)), 429s (sent by the server
// during the run), 429s/min and failed (calls that failed with a 429 once their retries ran out).
// With FLEET_TRACE set it prints the arrival times of the requests around each 429.
func BenchmarkFleet(b *testing.B) {
	run := 60 * time.Second
	if v := os.Getenv("COMPUTE_BENCH_PACE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("COMPUTE_BENCH_PACE: %v", err)
		}
		run = d
	}
	b.Run("limiter=local/processes=2", func(b *testing.B) { benchFleet(b, "", 2, run) })
	b.Run("limiter=local/processes=4", func(b *testing.B) { benchFleet(b, "", 4, run) })
	b.Run("limiter=redis/processes=4", func(b *testing.B) {
		_, addr := sharedRedis(b)
		benchFleet(b, addr, 4, run)
	})
}

// benchFleet runs the fleet of processes, sharing the Redis at redisAddr, or each process alone
// when it is "".
func benchFleet(b *testing.B, redisAddr string, processes int, run time.Duration) {
	const rate = compute.DefaultRateLimit
	srv := computetest.NewServer(computetest.WithRateLimit(rate, 1))
	b.Cleanup(srv.Close)
	inst, err := srv.Client().Instances.Create(context.Background(), &compute.InstanceCreateRequest{
		Name: "fleet-1", Hostname: "fleet-1", Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12",
		SSHKeys: []string{"key-ci"}})
	if err != nil {
		b.Fatal(err)
	}
	var share, n429, failed float64
	runs := 0
	for b.Loop() {
		srv.ResetRequests()
		start := time.Now().Add(500 * time.Millisecond) // every process starts at once
		env := append(os.Environ(),
			envFleetWorker+"=1", envFleetURL+"="+srv.URL, envFleetToken+"="+srv.Token,
			envFleetInstance+"="+inst.ID, envFleetRedis+"="+redisAddr,
			envFleetPrefix+"="+fmt.Sprintf("compute-go-bench:%d:", time.Now().UnixNano()),
			envFleetStart+"="+strconv.FormatInt(start.UnixNano(), 10), envFleetRun+"="+run.String())
		cmds := make([]*exec.Cmd, processes)
		outs := make([]*bytes.Buffer, processes)
		for i := range cmds {
			cmds[i] = exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
			cmds[i].Env = env
			outs[i] = &bytes.Buffer{}
			cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
			if err := cmds[i].Start(); err != nil {
				b.Fatal(err)
			}
		}
		var ok, refused int64
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				b.Fatalf("fleet process %d: %v\n%s", i, err, outs[i])
			}
			var o, r int64
			if _, err := fmt.Sscanf(outs[i].String(), "fleet ok=%d refused=%d", &o, &r); err != nil {
				b.Fatalf("fleet process %d: %v in %q", i, err, outs[i])
			}
			ok, refused = ok+o, refused+r
		}
		share += float64(ok) / (rate * run.Seconds())
		reqs := srv.Requests()
		for i, r := range reqs {
			if r.Status == http.StatusTooManyRequests {
				n429++
				if os.Getenv("FLEET_TRACE") != "" { // the requests around each 429, and their gaps
					for _, q := range reqs[max(0, i-3):min(len(reqs), i+3)] {
						fmt.Fprintf(os.Stderr, "%8s %d\n", q.Time.Sub(reqs[0].Time).Round(time.Millisecond), q.Status)
					}
					fmt.Fprintln(os.Stderr, "--")
				}
			}
		}
		failed += float64(refused)
		runs++
	}
	b.ReportMetric(share/float64(runs), "share")
	b.ReportMetric(n429/float64(runs), "429s")
	b.ReportMetric(n429/float64(runs)/run.Minutes(), "429s/min")
	b.ReportMetric(failed/float64(runs), "failed")
}

// fleetWorker is one process of the fleet: fleetWorkers goroutines calling Instances.Get on one
// client until the run ends. It prints its counts and returns the exit code.
func fleetWorker() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "fleet worker:", err); return 1 }
	startNano, err := strconv.ParseInt(os.Getenv(envFleetStart), 10, 64)
	if err != nil {
		return fail(err)
	}
	run, err := time.ParseDuration(os.Getenv(envFleetRun))
	if err != nil {
		return fail(err)
	}
	token := os.Getenv(envFleetToken)
	opts := []compute.Option{compute.WithBaseURL(os.Getenv(envFleetURL))}
	if addr := os.Getenv(envFleetRedis); addr != "" {
		rdb := goredis.NewClient(&goredis.Options{Addr: addr})
		defer rdb.Close()
		l, err := ratelimit.New(rdb, token, ratelimit.WithKeyPrefix(os.Getenv(envFleetPrefix)),
			ratelimit.WithErrorHandler(func(err error) {
				if err != nil {
					fmt.Fprintln(os.Stderr, "fleet worker:", err)
				}
			}))
		if err != nil {
			return fail(err)
		}
		opts = append(opts, compute.WithLimiter(l))
	}
	c, err := compute.NewClient(token, opts...)
	if err != nil {
		return fail(err)
	}
	id := os.Getenv(envFleetInstance)
	time.Sleep(time.Until(time.Unix(0, startNano)))
	ctx, cancel := context.WithTimeout(context.Background(), run)
	defer cancel()
	var ok, refused int64
	results := make(chan error, fleetWorkers)
	counts := make(chan [2]int64, fleetWorkers)
	for range fleetWorkers {
		go func() {
			var o, r int64
			defer func() { counts <- [2]int64{o, r} }()
			for ctx.Err() == nil {
				_, err := c.Instances.Get(ctx, id)
				switch {
				case err == nil:
					o++
				case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
					results <- nil
					return
				case errors.Is(err, compute.ErrRateLimited):
					r++
				default:
					results <- err
					return
				}
			}
			results <- nil
		}()
	}
	var firstErr error
	for range fleetWorkers {
		if err := <-results; err != nil && firstErr == nil {
			firstErr = err
		}
		n := <-counts
		ok, refused = ok+n[0], refused+n[1]
	}
	if firstErr != nil {
		return fail(firstErr)
	}
	fmt.Printf("fleet ok=%d refused=%d\n", ok, refused)
	return 0
}
