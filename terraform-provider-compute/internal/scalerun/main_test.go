package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTheFloorsAtFiveHundredInstances(t *testing.T) {
	s := settings{rate: 10, transition: 5 * time.Second}
	for _, c := range []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"apply: N/r + 2T, the group's transition first", s.applyFloor(500), 60 * time.Second},
		{"apply as the issue states it: N/r + T", s.issueApplyFloor(500), 55 * time.Second},
		{"destroy: 2N/r + T", s.destroyFloor(500), 105 * time.Second},
		{"plan: (N/100)/r", s.planFloor(500), 500 * time.Millisecond},
		{"plan of a short list: one page", s.planFloor(20), 100 * time.Millisecond},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	// At most N/50 requests, and never fewer than the list's pages, a read of the key and group
	// and the read sent again after the first 429.
	for n, want := range map[int]int{500: 10, 20: 4, 100: 4, 250: 6, 1000: 20} {
		if got := planRequests(n); got != want {
			t.Errorf("planRequests(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestFlagsTakeTheIssuesRunByDefaultAndRefuseWhatCannotRun(t *testing.T) {
	s, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.instances != 500 || s.stacks != 4 || s.parallelism != 100 || s.rate != 10 || s.burst != 1 ||
		s.transition != 5*time.Second || s.ratio != 1.15 || s.max429 != 0 || s.lostShare != 0.05 ||
		!slices.Equal(s.steps, allSteps) {
		t.Fatalf("defaults = %+v", s)
	}
	s, err = parseFlags([]string{"-steps", "crash,main,crash"}, io.Discard)
	if err != nil || !slices.Equal(s.steps, []string{stepCrash, stepMain}) {
		t.Fatalf("-steps crash,main,crash: %v, %v", s.steps, err)
	}
	for _, args := range [][]string{
		{"-instances", "0"}, {"-stacks", "0"}, {"-instances", "3", "-stacks", "4"}, {"-rate", "0"},
		{"-rate", "NaN"}, {"-burst", "0"}, {"-parallelism", "0"}, {"-lost", "1"}, {"-lost", "-0.1"},
		{"-ratio", "-1"}, {"-max-429", "-2"}, {"-down", "0"}, {"-transition", "-1s"}, {"-steps", "apply"},
		{"extra"},
	} {
		var stderr strings.Builder
		if _, err := parseFlags(args, &stderr); err == nil {
			t.Errorf("%q accepted", args)
		} else if !strings.Contains(stderr.String(), "scalerun") && !strings.Contains(stderr.String(), "invalid") {
			t.Errorf("%q: stderr %q does not say what is wrong", args, stderr.String())
		}
	}
}
