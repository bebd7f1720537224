// Package fakelog puts together the whole request log of a run from reads of compute-fake's log
// (GET /_fake/requests), which keeps only its last requests. The scale runs of the provider and of
// ratelimit/redis read it so.
package fakelog

import (
	"net/url"
	"slices"
)

// Entry is one request of compute-fake's log.
type Entry struct {
	Time      string              `json:"time"`      // when the fake received it, RFC 3339 with nanoseconds
	Method    string              `json:"method"`    // the HTTP method
	Path      string              `json:"path"`      // the path as sent
	Query     map[string][]string `json:"query"`     // the query string's values
	Body      string              `json:"body"`      // the request's body
	Status    int                 `json:"status"`    // the response's status, 0 if none went back (yet)
	Fault     bool                `json:"fault"`     // an injected fault hit it
	Processed bool                `json:"processed"` // it took effect on the fake's state
}

// Same reports whether a and b are one request: its status and outcome may have been filled in
// between two reads of the log, the rest never changes.
func (a *Entry) Same(b *Entry) bool {
	return a.Time == b.Time && a.Method == b.Method && a.Path == b.Path && a.Body == b.Body &&
		url.Values(a.Query).Encode() == url.Values(b.Query).Encode()
}

// Log is the whole log, put together from reads of compute-fake's log.
type Log struct {
	// All are the requests so far, oldest first.
	All []Entry
	// Overrun reports a read that shared nothing with the one before: requests may be missing.
	Overrun bool

	window int // how many of the last entries of All the previous read showed
}

// Merge adds a read of the log: the oldest requests it shows are the newest the previous read
// showed, less those the fake dropped since, and the requests after them are new.
func (l *Log) Merge(read []Entry) {
	prev := l.All[len(l.All)-l.window:]
	for dropped := 0; dropped <= len(prev); dropped++ {
		overlap := prev[dropped:]
		if len(overlap) > len(read) || !sameRequests(overlap, read[:len(overlap)]) {
			continue
		}
		copy(overlap, read[:len(overlap)]) // statuses filled in since
		l.All = append(l.All, read[len(overlap):]...)
		l.window = len(read)
		l.Overrun = l.Overrun || len(overlap) == 0 && len(prev) > 0
		return
	}
}

func sameRequests(a, b []Entry) bool {
	return slices.EqualFunc(a, b, func(x, y Entry) bool { return x.Same(&y) })
}
