package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// fleetWorkers bounds how many resources of one command are worked on at once. Their requests all
// wait for the client's one limiter, and the waits of one client share their polling, so more at
// once would only hold more goroutines.
const fleetWorkers = 16

// outcome is how one resource of a command given several went.
type outcome[T any] struct {
	arg  string // as given: an ID or a name
	id   string // the resource's ID, once known
	done string // what was done, for its line: "deleted", "stop requested"
	item *T     // what the command prints of it (get, --wait), if anything
	err  error
	// waited says a wait's progress told a person at a terminal how it ended already.
	waited bool
}

// work does the work of a command (cmd) on the resource that arg names.
type work[T any] func(ctx context.Context, arg string) outcome[T]

// fleet runs do on each of args at once (the client paces them as one), then reports: with one
// argument, as a command on one resource always has (its error returned as it is, a note on a
// terminal); with several, one line on stderr per resource as each ends, terminal or not, and a
// *reportedError whose exit code is the worst of their outcomes. It returns what the successful
// works have to print, in the order of args (an argument given twice counts once).
func fleet[T any](ctx context.Context, a *app, cmd *cobra.Command, k kind, args []string, do work[T]) ([]*T, error) {
	args = unique(args)
	if len(args) == 1 {
		o := do(ctx, args[0])
		if o.err != nil {
			return nil, o.err
		}
		if !o.waited && o.item == nil && o.done != "" {
			a.note("%s %s: %s", k.name, o.id, o.done)
		}
		return itemsOf([]outcome[T]{o}), nil
	}
	a.fleetMode = true
	outcomes := make([]outcome[T], len(args))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, fleetWorkers)
	for i, arg := range args {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			o := do(ctx, arg)
			mu.Lock()
			defer mu.Unlock()
			outcomes[i] = o
			a.reportOutcome(cmd, k, o.arg, o.id, o.done, o.err)
		})
	}
	wg.Wait()
	codes := make([]int, len(outcomes))
	for i, o := range outcomes {
		codes[i] = exitCode(o.err)
	}
	if code := worst(codes); code != exitOK {
		return itemsOf(outcomes), &reportedError{code: code, failed: len(codes) - countOK(codes), of: len(codes), kind: k.name}
	}
	return itemsOf(outcomes), nil
}

// itemsOf returns the items of the successful outcomes, in order.
func itemsOf[T any](outcomes []outcome[T]) []*T {
	var items []*T
	for _, o := range outcomes {
		if o.err == nil && o.item != nil {
			items = append(items, o.item)
		}
	}
	return items
}

// countOK counts the successes among codes.
func countOK(codes []int) int {
	n := 0
	for _, c := range codes {
		if c == exitOK {
			n++
		}
	}
	return n
}

// reportOutcome writes the line of one resource of a fleet on stderr: "instance ins-000001:
// deleted", or its error as the command would end with it, led by the resource ("compute: instance
// web-9: no instance has..."), with its hints.
func (a *app) reportOutcome(cmd *cobra.Command, k kind, arg, id, done string, err error) {
	if err == nil {
		if done != "" {
			fmt.Fprintln(a.stderr, a.safe(fmt.Sprintf("%s %s: %s", k.name, cmpOrEnv(id, arg), done)))
		}
		return
	}
	for _, line := range a.errorLines(a.hints(cmd, fmt.Errorf("%s %s: %w", k.name, arg, err))) {
		fmt.Fprintln(a.stderr, line)
	}
}

// worstOrder ranks exit codes from the worst: a write that may have taken effect, an interruption,
// a failure of the service or the network, 429s, a full quota, a refusal for a state, a shared
// name, an invalid request, a missing resource, input refused before sending; then success.
var worstOrder = []int{exitOutcomeUnknown, exitInterrupted, exitCreatedWaitFailed, exitNotCreated, exitOther,
	exitRateLimited, exitQuota, exitConflict, exitAmbiguous, exitInvalid, exitNotFound, exitUsage, exitOK}

// worst returns the worst of the exit codes of a fleet's outcomes. Exit code 2 says that nothing was
// sent, so it stands only when every outcome is 2; beside others it counts as 1.
func worst(codes []int) int {
	best := len(worstOrder) - 1
	for _, c := range codes {
		if i := slices.Index(worstOrder, c); i >= 0 && i < best {
			best = i
		}
	}
	code := worstOrder[best]
	if code == exitUsage && slices.ContainsFunc(codes, func(c int) bool { return c != exitUsage }) {
		return exitOther
	}
	return code
}

// reportedError ends a command on several resources some of which failed: each failure is on its
// line already, so it only says how many and carries the exit code.
type reportedError struct {
	code       int
	failed, of int
	kind       string
}

func (e *reportedError) Error() string {
	return fmt.Sprintf("%d of %d %ss failed", e.failed, e.of, e.kind)
}

// severalArgs accepts one or more arguments, none empty, named name in usage lines.
func severalArgs(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usagef("missing %s", name)
		}
		for _, a := range args {
			if a == "" {
				return usagef("%s is empty", name)
			}
		}
		return nil
	}
}

// many is the usage of an argument that may repeat: "INSTANCE_ID...".
func many(arg string) string { return arg + "..." }

// isMany reports whether a usage word is an argument that may repeat, and returns it without "...".
func isMany(word string) (string, bool) { return strings.CutSuffix(word, "...") }

// unique returns args without repeats, in their order.
func unique(args []string) []string {
	var out []string
	for _, a := range args {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
