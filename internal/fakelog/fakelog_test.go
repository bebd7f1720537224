package fakelog

import (
	"slices"
	"testing"
)

func req(at, method, path string, status int) Entry {
	return Entry{Time: "2026-11-28T06:00:" + at + "Z", Method: method, Path: path, Status: status, Processed: status < 400}
}

func paths(log []Entry) []string {
	var out []string
	for _, e := range log {
		out = append(out, e.Time[17:23]+" "+e.Path)
	}
	return out
}

func TestMergeJoinsReadsOfALogThatKeepsItsLastRequests(t *testing.T) {
	a := req("00.100", "GET", "/a", 200)
	b := req("00.200", "GET", "/b", 200)
	c := req("00.300", "GET", "/c", 200)
	d := req("00.400", "GET", "/d", 200)
	var l Log
	l.Merge(nil)
	l.Merge([]Entry{a, b})
	l.Merge([]Entry{a, b, c}) // grew
	l.Merge([]Entry{c, d})    // a and b dropped by the fake
	l.Merge([]Entry{c, d})    // nothing new
	if want := paths([]Entry{a, b, c, d}); !slices.Equal(paths(l.All), want) {
		t.Fatalf("merged %v, want %v", paths(l.All), want)
	}
	if l.Overrun {
		t.Fatal("reads that overlap reported as an overrun")
	}

	e := req("00.500", "GET", "/e", 200)
	l.Merge([]Entry{e}) // c and d gone and nothing of the previous read left
	if !l.Overrun || len(l.All) != 5 {
		t.Fatalf("a read sharing nothing with the previous: overrun %v, %d entries", l.Overrun, len(l.All))
	}
}

func TestMergeTakesTheStatusOfARequestAnsweredBetweenReads(t *testing.T) {
	pending := req("00.100", "POST", "/compute/v1/instances", 0)
	pending.Processed = false
	answered := pending
	answered.Status, answered.Processed = 201, true
	var l Log
	l.Merge([]Entry{pending})
	l.Merge([]Entry{answered, req("00.200", "GET", "/compute/v1/instances", 200)})
	if len(l.All) != 2 || l.All[0].Status != 201 || !l.All[0].Processed {
		t.Fatalf("got %+v, want the create answered 201 then the list", l.All)
	}
}

func TestMergeTellsRepeatedRequestsApartByTheirNeighbours(t *testing.T) {
	// Two identical requests in one millisecond, then the fake drops the first.
	x := req("00.100", "GET", "/compute/v1/instances", 429)
	y := req("00.150", "GET", "/compute/v1/instances", 200)
	var l Log
	l.Merge([]Entry{x, x, y})
	l.Merge([]Entry{x, y, y})
	if len(l.All) != 4 {
		t.Fatalf("got %d entries %v, want 4", len(l.All), paths(l.All))
	}
}
