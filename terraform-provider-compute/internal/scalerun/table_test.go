package main

import (
	"strings"
	"testing"
	"time"
)

func TestARowBreaksABoundForEachThingItGotWrong(t *testing.T) {
	s := settings{ratio: 1.15, max429: 0}
	ok := &row{step: "apply", ours: true, wall: 60 * time.Second, floor: 55 * time.Second, ratioMax: 1.15,
		c: counts{throttled: 1}, web: 500}
	ok.checkCommon(s)
	if len(ok.problems) != 0 {
		t.Fatalf("a row within its bounds: %q", ok.problems)
	}
	bad := &row{step: "apply", ours: true, wall: 64 * time.Second, floor: 55 * time.Second, ratioMax: 1.15,
		c: counts{throttled: 3, duplicates: 2}, errors: 1, overrun: true}
	bad.checkCommon(s)
	want := []string{"took 1.16 x the floor, over 1.15", "2 429s after the first, over 0", "2 duplicate creates", "1 errors", "the request log overran"}
	if strings.Join(bad.problems, "; ") != strings.Join(want, "; ") {
		t.Fatalf("problems = %q\nwant       %q", bad.problems, want)
	}
	// -ratio 0 and -max-429 -1 check neither the time nor the 429s.
	loose := &row{wall: time.Hour, floor: time.Second, ratioMax: 1.15, c: counts{throttled: 50}}
	loose.checkCommon(settings{ratio: 0, max429: -1})
	if len(loose.problems) != 0 {
		t.Fatalf("unchecked bounds reported: %q", loose.problems)
	}
}

func TestTheTableShowsEachRowAndWhatItBroke(t *testing.T) {
	var b strings.Builder
	r := &row{step: "plan", ours: true, wall: 1500 * time.Millisecond, floor: 500 * time.Millisecond,
		c: counts{total: 7, lists: 5, gets: 2}, web: 500}
	r.want(false, "%d requests, over %d", 12, 10)
	theirs := &row{step: "official provider: apply", wall: 30 * time.Second, floor: 55 * time.Second,
		c: counts{total: 900, throttled: 400, creates: 700}, errors: 60, web: 41, overrun: true}
	printTable(&b, []*row{r, theirs})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, want := range []string{
		"| plan | 1.5 s | 0.5 s | 3.00 | 7: 5 / 2 / 0 / 0 | 0 | 0 | 0 | 500 | **12 requests, over 10** |",
		"| official provider: apply | 30.0 s | 55.0 s | 0.55 | >= 900: 0 / 0 / 700 / 0 | 399 | 0 | 60 | 41 | (not ours) |",
	} {
		if lines[i+2] != want {
			t.Errorf("line %d = %s\nwant      %s", i+2, lines[i+2], want)
		}
	}
}

func TestTheIssueNotesWeighEachApplyAgainstTheFloorWithoutTheGroupsTransition(t *testing.T) {
	rows := []*row{
		{step: "apply", wall: 66 * time.Second, floor: 60 * time.Second, issueFloor: 55 * time.Second},
		{step: "plan", wall: time.Second, floor: time.Second / 2},
	}
	got := issueNotes(rows)
	want := "apply: against the issue's floor N/r + T = 55.0 s, which leaves out the security group's transition that every instance create waits for: took 1.20 x that"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("groupNotes = %q\nwant [%q]", got, want)
	}
}
