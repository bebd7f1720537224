// Command scalerun measures the scale run: several worker processes on one token, each bringing up
// its share of a fleet of instances with Instances.CreateOnce, waiting for them with WaitAll and
// WaitForStatus, and tearing them down with WaitAll and DeleteAndWait, against a compute-fake it
// starts itself, paced through Redis (ratelimit/redis) or each by its own limiter. Redis can be
// killed partway and restarted on the same port. It counts from compute-fake's request log and API
// and prints one line per run; README.md says what each figure means.
//
//	go run . -workers 8 -instances 500 -rate 10 -burst 1 -transition 5s -modes restart,redis,local
//
// The workers are this binary run again with -worker. Everything listens on loopback only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The modes of a run.
const (
	modeRestart = "restart" // shared budget in Redis, which is killed and restarted partway
	modeRedis   = "redis"   // shared budget in Redis, left alone
	modeLocal   = "local"   // each process with its own limiter at the full rate, no Redis
)

// settings are the command line's choices for the runs.
type settings struct {
	workers     int
	instances   int
	rate        float64
	burst       int
	transition  time.Duration
	modes       []string
	killAt      time.Duration // 0: a third of the floor
	down        time.Duration
	bound       time.Duration // 0: twice the floor plus a minute
	fakeBin     string
	redisServer string
	check       bool
	logFile     string        // where to write each run's request log, as JSON lines
	redisWait   time.Duration // the Redis limiter's timeout; 0 for its default
	churn       bool          // another job creates and deletes instances of other names meanwhile
	jitter      time.Duration // one request in 4 of every worker leaves this late
}

// churnRate is the churn's rate: a tenth of the account's.
func (s settings) churnRate() float64 { return s.rate / 10 }

// floor is the least the whole job can take: a create, a delete and a GET proving each instance
// gone at the rate, plus the last create's and the last delete's transition. With the churn, the
// rate it leaves the job is the account's less its own.
func (s settings) floor() time.Duration {
	r := s.rate
	if s.churn {
		r -= s.churnRate()
	}
	return time.Duration(3*float64(s.instances)/r*float64(time.Second)) + 2*s.transition
}

// hardBound is when a run stops by itself, finished or not.
func (s settings) hardBound() time.Duration {
	if s.bound > 0 {
		return s.bound
	}
	return 2*s.floor() + time.Minute
}

// killTime is when Redis is killed in a restart run, counted from the start.
func (s settings) killTime() time.Duration {
	if s.killAt > 0 {
		return s.killAt
	}
	return s.floor() / 3
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == workerFlag {
		os.Exit(worker(os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and runs each mode in turn, returning the exit status: 0, 1 when -check finds a
// run that failed, 2 for bad flags or a run that could not be set up.
func run(args []string, stdout, stderr io.Writer) int {
	s, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	tmp, err := os.MkdirTemp("", "scalerun-")
	if err != nil {
		fmt.Fprintln(stderr, "scalerun:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	f, err := locateFake(s.fakeBin, tmp, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "scalerun:", err)
		return 2
	}
	// Ctrl-C or SIGTERM stops the run in progress, and what it started.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	status := 0
	for _, mode := range s.modes {
		r, err := runOnce(ctx, s, mode, f, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "scalerun: mode %s: %v\n", mode, err)
			return 2
		}
		fmt.Fprintln(stdout, r.line())
		if s.check && !r.clean() {
			status = 1
		}
	}
	return status
}

// parseFlags reads the command line; errors are reported on stderr.
func parseFlags(args []string, stderr io.Writer) (settings, error) {
	var s settings
	var modes string
	fs := flag.NewFlagSet("scalerun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&s.workers, "workers", 8, "worker processes, all on one token")
	fs.IntVar(&s.instances, "instances", 500, "instances in all, shared out among the workers")
	fs.Float64Var(&s.rate, "rate", 10, "requests per second the fake allows the token, and the clients' rate")
	fs.IntVar(&s.burst, "burst", 1, "the fake's -burst, passed only when the fake has the flag")
	fs.DurationVar(&s.transition, "transition", 5*time.Second, "how long each lifecycle transition takes (the fake's -speed)")
	fs.StringVar(&modes, "modes", modeRestart, "comma-separated runs: restart (Redis killed and restarted), redis (left alone), local (each process its own limiter)")
	fs.DurationVar(&s.killAt, "kill-at", 0, "when Redis is killed in a restart run (default a third of the floor)")
	fs.DurationVar(&s.down, "down", 3*time.Second, "how long Redis stays down in a restart run")
	fs.DurationVar(&s.bound, "bound", 0, "a run stops by itself after this long, finished or not (default twice the floor plus a minute)")
	fs.StringVar(&s.fakeBin, "fake", "", "the compute-fake binary (default: built from github.com/compute-sdk/compute-go/cmd/compute-fake)")
	fs.StringVar(&s.redisServer, "redis-server", "redis-server", "the redis-server binary, started on a free loopback port")
	fs.DurationVar(&s.redisWait, "redis-timeout", 0, "the Redis limiter's bound on each command (ratelimit.WithTimeout; default its own, 100ms): a longer one tells a busy machine's stalls from Redis failing")
	fs.StringVar(&s.logFile, "log", "", "append each run's whole request log to this file, one JSON object a request, with the run's mode")
	fs.BoolVar(&s.churn, "churn", false, "another process on the token creates and deletes instances of other names during the run, at a tenth of the rate (its requests count in the floor)")
	fs.DurationVar(&s.jitter, "jitter", 0, "one request in 4 of every worker leaves this late after the limiter let it go, as on a loaded machine")
	fs.BoolVar(&s.check, "check", false, "exit 1 unless every run finished within its bound with no failed job call, no instance left and no duplicate create")
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	bad := func(format string, a ...any) (settings, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintf(stderr, "scalerun: %v\n", err)
		return s, err
	}
	s.modes = strings.Split(modes, ",")
	for _, m := range s.modes {
		if !slices.Contains([]string{modeRestart, modeRedis, modeLocal}, m) {
			return bad("-modes: unknown mode %q (restart, redis or local)", m)
		}
	}
	switch {
	case fs.NArg() > 0:
		return bad("scalerun takes no arguments, got %q", fs.Args())
	case s.workers < 1 || s.workers > 64:
		return bad("-workers must be from 1 to 64, got %d", s.workers)
	case s.instances < s.workers || s.instances > 10000:
		return bad("-instances must be from -workers to 10000, got %d", s.instances)
	case !(s.rate > 0) || math.IsInf(s.rate, 0) || s.rate > 1000:
		return bad("-rate must be more than 0 and at most 1000, got %g", s.rate)
	case s.burst < 1:
		return bad("-burst must be 1 or more, got %d", s.burst)
	case s.transition < 0 || s.killAt < 0 || s.down <= 0 || s.bound < 0 || s.redisWait < 0 || s.jitter < 0:
		return bad("-transition, -kill-at, -bound and -redis-timeout must not be negative, -down must be positive")
	}
	return s, nil
}
