// Command scalerun measures the provider at scale: it starts compute-fake (enforcing the account's
// rate), Redis and terraform, applies, plans and destroys N instances of compute_instance sharing
// one SSH key and one security group, and kills an apply halfway, loses create responses and runs
// several state directories at once on one token, counting from compute-fake's request log. It
// prints a Markdown table with each step's time against its floor and its counts, and which bound
// a step broke. README.md says what each step does and what each figure means.
//
//	go run ./internal/scalerun                        # N = 500, 4 stacks, -rate 10 -burst 1, 5 s transitions
//	go run ./internal/scalerun -check -instances 20 -stacks 2 -transition 1s -ratio 0   # what .ci/run does
//
// Everything listens on loopback only, and the run stops everything it started when it ends or on
// Ctrl-C.
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

// The steps a run can take.
const (
	stepMain   = "main"   // apply, plan and destroy of N instances
	stepCrash  = "crash"  // an apply killed halfway, then applied again with adopt_existing
	stepLost   = "lost"   // an apply that loses some create responses
	stepStacks = "stacks" // several state directories at once on one token through Redis
)

var allSteps = []string{stepMain, stepCrash, stepLost, stepStacks}

// settings are the command line's choices.
type settings struct {
	instances   int
	stacks      int
	parallelism int
	rate        float64
	burst       int
	transition  time.Duration
	steps       []string
	lostShare   float64       // the share of create responses dropped in the lost step
	ratio       float64       // the bound on took / floor of the timed steps; 0 checks none
	max429      int           // the 429s after the first a step may meet; -1 checks none
	down        time.Duration // how long Redis stays down in the stacks step
	check       bool
	fakeBin     string
	providerBin string
	official    string // the service's own provider binary; "" for no official row
	officialSrc string
	terraform   string
	redisServer string
	logFile     string // where each step's request log is appended, one JSON object a request
}

// applyFloor is the least an apply of n instances of the run's configuration can take, the floor
// its bound is checked against: the security group settled a transition after its create (every
// instance names it, so no instance create can be sent before), then every create sent at the
// rate, the last one settled a transition later.
func (s settings) applyFloor(n int) time.Duration {
	return s.issueApplyFloor(n) + s.transition
}

// issueApplyFloor is the apply's floor as the issue that asked for the run states it: every create
// sent at the rate, the last one settled a transition later. It leaves out the security group's
// transition, which this configuration's instance creates all wait for; it is shown, not checked.
func (s settings) issueApplyFloor(n int) time.Duration {
	return time.Duration(float64(n)/s.rate*float64(time.Second)) + s.transition
}

// destroyFloor is the least a destroy of n instances can take: each delete and a read proving it
// gone at the rate, the last delete settled a transition later.
func (s settings) destroyFloor(n int) time.Duration {
	return time.Duration(2*float64(n)/s.rate*float64(time.Second)) + s.transition
}

// listPages is the pages of a list of n resources, at most 100 a page.
func listPages(n int) int { return max((n+99)/100, 1) }

// planFloor is the least a plan of n instances can take: the pages of their list at the rate.
func (s settings) planFloor(n int) time.Duration {
	return time.Duration(float64(listPages(n)) / s.rate * float64(time.Second))
}

// planRequests is the most requests a plan of n instances may send: n/50, and never fewer than
// the pages of the instances' list, a read of the SSH key and of the security group, and the one
// read sent again after the 429 that every step may meet (the first, before the pacing has seen
// how late the service receives what is sent).
func planRequests(n int) int { return max(n/50, listPages(n)+3) }

// commandBound is when a terraform command whose floor is floor is killed, finished or not.
func commandBound(floor time.Duration) time.Duration { return 3*floor + 2*time.Minute }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, takes the steps and prints the table, returning the exit status: 0, 1 when
// -check finds a bound broken, 2 for bad flags or a run that could not be set up.
func run(args []string, stdout, stderr io.Writer) int {
	s, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	// Ctrl-C or SIGTERM stops the step in progress, and everything it started.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, err := newHarness(s, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "scalerun:", err)
		return 2
	}
	defer h.close()
	fmt.Fprintln(stdout, h.heading())
	for _, step := range s.steps {
		if err := h.take(ctx, step); err != nil {
			h.print(stdout)
			if ctx.Err() != nil {
				fmt.Fprintln(stderr, "scalerun: interrupted; everything it started is stopped")
			} else {
				fmt.Fprintf(stderr, "scalerun: step %s: %v\n", step, err)
			}
			return 2
		}
	}
	if s.official != "" {
		if err := h.officialRow(ctx); err != nil {
			fmt.Fprintf(stderr, "scalerun: the official provider's row: %v\n", err)
		}
	}
	h.print(stdout)
	if s.check && !h.clean() {
		return 1
	}
	return 0
}

// parseFlags reads the command line; errors are reported on stderr.
func parseFlags(args []string, stderr io.Writer) (settings, error) {
	var s settings
	var steps string
	fs := flag.NewFlagSet("scalerun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&s.instances, "instances", 500, "instances of compute_instance in each step (N)")
	fs.IntVar(&s.stacks, "stacks", 4, "state directories applied at once in the stacks step, sharing the N instances")
	fs.IntVar(&s.parallelism, "parallelism", 100, "terraform's -parallelism for apply and destroy")
	fs.Float64Var(&s.rate, "rate", 10, "requests per second the fake allows the token (its -rate), and the provider's rate")
	fs.IntVar(&s.burst, "burst", 1, "the fake's -burst: 1 refuses any request sooner than 1/rate after the one before")
	fs.DurationVar(&s.transition, "transition", 5*time.Second, "how long each lifecycle transition takes (the fake's -speed, T)")
	fs.StringVar(&steps, "steps", strings.Join(allSteps, ","), "comma-separated steps: main (apply, plan, destroy), crash, lost, stacks")
	fs.Float64Var(&s.lostShare, "lost", 0.05, "the share of instance create responses the fake drops after processing in the lost step (besides the first, always dropped)")
	fs.Float64Var(&s.ratio, "ratio", 1.15, "the bound on took / floor for apply, destroy and the stacks; 0 checks no time")
	fs.IntVar(&s.max429, "max-429", 0, "the 429s after the first that a step of ours may meet; -1 checks none")
	fs.DurationVar(&s.down, "down", 3*time.Second, "how long Redis stays down midway through the stacks' apply")
	fs.BoolVar(&s.check, "check", false, "exit 1 when a step of ours broke a bound")
	fs.StringVar(&s.fakeBin, "fake", "", "the compute-fake binary (default: built from "+fakePackage+")")
	fs.StringVar(&s.providerBin, "provider", "", "the terraform-provider-compute binary (default: built from this module)")
	fs.StringVar(&s.official, "official", "", "a binary of the service's own provider: adds its row, on the same configuration")
	fs.StringVar(&s.officialSrc, "official-source", officialSource, "the official provider's source address")
	fs.StringVar(&s.terraform, "terraform", "terraform", "the terraform binary")
	fs.StringVar(&s.redisServer, "redis-server", "redis-server", "the redis-server binary, started on a free loopback port")
	fs.StringVar(&s.logFile, "log", "", "append each step's whole request log to this file, one JSON object a request, with the step's name")
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	bad := func(format string, a ...any) (settings, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintf(stderr, "scalerun: %v\n", err)
		return s, err
	}
	for _, st := range strings.Split(steps, ",") {
		if st == "" {
			continue
		}
		if !slices.Contains(allSteps, st) {
			return bad("-steps: unknown step %q (%s)", st, strings.Join(allSteps, ", "))
		}
		if !slices.Contains(s.steps, st) {
			s.steps = append(s.steps, st)
		}
	}
	switch {
	case fs.NArg() > 0:
		return bad("scalerun takes no arguments, got %q", fs.Args())
	case s.instances < 1 || s.instances > 10000:
		return bad("-instances must be from 1 to 10000, got %d", s.instances)
	case s.stacks < 1 || s.stacks > s.instances || s.stacks > 64:
		return bad("-stacks must be from 1 to -instances and at most 64, got %d", s.stacks)
	case s.parallelism < 1:
		return bad("-parallelism must be 1 or more, got %d", s.parallelism)
	case !(s.rate > 0) || math.IsInf(s.rate, 0) || s.rate > 1000:
		return bad("-rate must be more than 0 and at most 1000, got %g", s.rate)
	case s.burst < 1:
		return bad("-burst must be 1 or more, got %d", s.burst)
	case s.transition < 0 || s.down <= 0:
		return bad("-transition must not be negative, -down must be positive")
	case !(s.lostShare >= 0 && s.lostShare < 1):
		return bad("-lost must be from 0 to less than 1, got %g", s.lostShare)
	case !(s.ratio >= 0) || math.IsInf(s.ratio, 0):
		return bad("-ratio must be 0 or more, got %g", s.ratio)
	case s.max429 < -1:
		return bad("-max-429 must be -1 or more, got %d", s.max429)
	}
	return s, nil
}
