package main

import (
	"testing"
	"time"

	"github.com/compute-sdk/compute-go/internal/fakelog"
)

func req(at, method, path string, status int) fakelog.Entry {
	return fakelog.Entry{Time: "2026-11-28T06:00:" + at + "Z", Method: method, Path: path, Status: status, Processed: status < 400}
}

func TestCountClassifiesTheRequestsAndFindsDuplicateCreates(t *testing.T) {
	create := func(at, name string, status int) fakelog.Entry {
		e := req(at, "POST", instancesPath, status)
		e.Body = `{"name":"` + name + `","hostname":"h"}`
		return e
	}
	log := []fakelog.Entry{
		req("00.000", "GET", instancesPath, 429),
		req("00.100", "GET", instancesPath, 200),
		create("00.200", "one", 201),
		create("00.300", "two", 429), // refused: not a create
		create("00.400", "two", 201),
		create("00.500", "one", 201), // a second instance named one
		req("00.600", "GET", instancesPath+"/ins-000001", 200),
		req("00.700", "DELETE", instancesPath+"/ins-000001", 204),
		req("00.800", "GET", instancesPath+"/ins-000001", 404),
		req("00.900", "POST", instancesPath+"/ins-000001/actions", 202),
		req("01.000", "GET", instancesPath, 429),
	}
	c := count(log)
	want := counts{total: 11, throttled: 3, lists: 3, gets: 2, creates: 4, deletes: 1, other: 1, duplicates: 1}
	want.first = time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	want.last = time.Date(2026, 11, 28, 6, 0, 1, 0, time.UTC)
	if c != want {
		t.Fatalf("count = %+v\nwant    %+v", c, want)
	}
}

func TestTheFloorIsThreeRequestsAnInstanceAndTwoTransitions(t *testing.T) {
	s := settings{instances: 500, rate: 10, transition: 5 * time.Second}
	if got := s.floor(); got != 160*time.Second {
		t.Fatalf("floor = %s, want 160s", got)
	}
	if got := s.hardBound(); got != 380*time.Second {
		t.Fatalf("hard bound = %s, want 2 x 160s + 60s", got)
	}
	if got := s.killTime(); got.Round(time.Second) != 53*time.Second {
		t.Fatalf("Redis killed at %s, want a third of the floor", got)
	}
}

// TestTheChurnsRequestsCountInTheFloor: with the churn, the floor is the job's requests and the
// churn's during the run at the rate, plus the two transitions.
func TestTheChurnsRequestsCountInTheFloor(t *testing.T) {
	s := settings{instances: 500, rate: 10, transition: 5 * time.Second, churn: true}
	r := &result{s: s, churn: &churnReport{During: 170, After: 12}}
	if got := r.floor(); got != 177*time.Second {
		t.Fatalf("floor = %s, want (1,500 + 170)/10 + 10 s", got)
	}
	if got := s.floor().Round(100 * time.Millisecond); got != 176700*time.Millisecond {
		t.Fatalf("the floor the bounds start from = %s, want 1,500 at 9 a second + 10 s", got)
	}
}
