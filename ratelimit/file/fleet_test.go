package file_test

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
	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
)

// The fleet's settings, passed by BenchmarkFleet to its children.
const (
	envFleetURL      = "COMPUTE_FILELIM_FLEET_URL"
	envFleetToken    = "COMPUTE_FILELIM_FLEET_TOKEN"
	envFleetInstance = "COMPUTE_FILELIM_FLEET_INSTANCE"
	envFleetShared   = "COMPUTE_FILELIM_FLEET_SHARED"

	fleetWorkers = 4
)

// BenchmarkFleet is the multi-process measurement: 4 copies of this test binary, each with 4
// goroutines sharing one client, on one token, against a loopback computetest server that enforces
// 10 requests per second with no burst, for COMPUTE_BENCH_PACE (a Go duration, default 10s) per
// op: each process with its own default limiter (limiter=process, what users get without sharing)
// and with this package's limiter in one directory (limiter=file). Run it with -benchtime 1x:
//
//	go test -run '^$' -bench Fleet -benchtime 1x .
//
// It reports share (successful responses / (10 per second x the run)), 429s (sent by the server
// during the run) and failed (calls that failed with a 429 once their retries ran out).
func BenchmarkFleet(b *testing.B) {
	run := 10 * time.Second
	if v := os.Getenv("COMPUTE_BENCH_PACE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("COMPUTE_BENCH_PACE: %v", err)
		}
		run = d
	}
	b.Run("limiter=process/processes=4", func(b *testing.B) { benchFleet(b, false, 4, run) })
	b.Run("limiter=file/processes=4", func(b *testing.B) { benchFleet(b, true, 4, run) })
}

// benchFleet runs the fleet of processes, sharing a budget's file or each pacing alone.
func benchFleet(b *testing.B, shared bool, processes int, run time.Duration) {
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
		time.Sleep(time.Second) // the server's budget refills after the create or the last run
		srv.ResetRequests()
		start := time.Now().Add(500 * time.Millisecond) // every process starts at once
		dir := ""
		if shared {
			dir = b.TempDir()
		}
		env := append(os.Environ(), envChild+"=fleet", envFleetURL+"="+srv.URL, envFleetToken+"="+srv.Token,
			envFleetInstance+"="+inst.ID, envFleetShared+"="+dir,
			envStart+"="+strconv.FormatInt(start.UnixNano(), 10), envRun+"="+run.String())
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
		for _, r := range srv.Requests() {
			if r.Status == http.StatusTooManyRequests {
				n429++
			}
		}
		failed += float64(refused)
		runs++
	}
	b.ReportMetric(share/float64(runs), "share")
	b.ReportMetric(n429/float64(runs), "429s")
	b.ReportMetric(failed/float64(runs), "failed")
}

// fleetChild is one process of the fleet: fleetWorkers goroutines calling Instances.Get on one
// client until the run ends. It prints its counts.
func fleetChild() error {
	startNano, err := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	if err != nil {
		return err
	}
	run, err := time.ParseDuration(os.Getenv(envRun))
	if err != nil {
		return err
	}
	token := os.Getenv(envFleetToken)
	opts := []compute.Option{compute.WithBaseURL(os.Getenv(envFleetURL))}
	if dir := os.Getenv(envFleetShared); dir != "" {
		l, err := ratelimitfile.New(token, ratelimitfile.WithDir(dir), ratelimitfile.WithErrorHandler(func(err error) {
			if err != nil {
				fmt.Fprintln(os.Stderr, "fleet:", err)
			}
		}))
		if err != nil {
			return err
		}
		defer l.Close()
		opts = append(opts, compute.WithLimiter(l))
	}
	c, err := compute.NewClient(token, opts...)
	if err != nil {
		return err
	}
	id := os.Getenv(envFleetInstance)
	time.Sleep(time.Until(time.Unix(0, startNano)))
	ctx, cancel := context.WithTimeout(context.Background(), run)
	defer cancel()
	type counts struct {
		ok, refused int64
		err         error
	}
	results := make(chan counts, fleetWorkers)
	for range fleetWorkers {
		go func() {
			var n counts
			for ctx.Err() == nil {
				_, err := c.Instances.Get(ctx, id)
				switch {
				case err == nil:
					n.ok++
				case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
				case errors.Is(err, compute.ErrRateLimited):
					n.refused++
				default:
					n.err = err
					results <- n
					return
				}
			}
			results <- n
		}()
	}
	var ok, refused int64
	for range fleetWorkers {
		n := <-results
		if n.err != nil {
			return n.err
		}
		ok, refused = ok+n.ok, refused+n.refused
	}
	fmt.Printf("fleet ok=%d refused=%d\n", ok, refused)
	return nil
}
