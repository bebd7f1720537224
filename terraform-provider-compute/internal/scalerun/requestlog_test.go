package main

import (
	"testing"

	"github.com/compute-sdk/compute-go/internal/fakelog"
)

func req(at, method, path string, status int) fakelog.Entry {
	return fakelog.Entry{Time: "2026-11-28T06:00:" + at + "Z", Method: method, Path: path, Status: status, Processed: status < 400}
}

func TestCountClassifiesTheRequestsAndFindsDuplicateCreatesOfEachKind(t *testing.T) {
	create := func(at, collection, name string, status int) fakelog.Entry {
		e := req(at, "POST", apiPrefix+collection, status)
		e.Body = `{"name":"` + name + `","region":"NORD-NO-KRS-1"}`
		return e
	}
	lost := create("00.450", "instances", "web-2", 0)
	lost.Processed, lost.Fault = true, true // processed, its response dropped
	log := []fakelog.Entry{
		req("00.000", "GET", apiPrefix+"instances", 429),
		req("00.100", "GET", apiPrefix+"instances", 200),
		create("00.150", "ssh-keys", "web-1", 201),    // another kind: not a duplicate of the instance
		create("00.160", "security-groups", "g", 201), // not an instance
		create("00.200", "instances", "web-1", 201),
		create("00.300", "instances", "web-2", 429), // refused: not a create
		lost,
		create("00.500", "instances", "web-1", 201), // a second instance named web-1
		req("00.600", "GET", apiPrefix+"instances/ins-000001", 200),
		req("00.700", "DELETE", apiPrefix+"instances/ins-000001", 204),
		req("00.800", "GET", apiPrefix+"instances/ins-000001", 404),
		req("00.900", "POST", apiPrefix+"instances/ins-000001/actions", 202),
		req("01.000", "GET", apiPrefix+"ssh-keys", 429),
	}
	want := counts{total: 13, throttled: 3, lists: 3, gets: 2, creates: 6, deletes: 1, other: 1,
		instances: 3, duplicates: 1, dropped: 1}
	if got := count(log); got != want {
		t.Fatalf("count = %+v\nwant    %+v", got, want)
	}
	if got := count(log).later429s(); got != 2 {
		t.Fatalf("429s after the first = %d, want 2", got)
	}
	if got := count(nil).later429s(); got != 0 {
		t.Fatalf("429s after the first of no request = %d, want 0", got)
	}
}
