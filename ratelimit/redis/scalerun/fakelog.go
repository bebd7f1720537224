package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// controlHeader carries compute-fake's control token.
const controlHeader = "X-Fake-Control-Token"

// entry is one request of compute-fake's log (GET /_fake/requests).
type entry struct {
	Time      string              `json:"time"`
	Method    string              `json:"method"`
	Path      string              `json:"path"`
	Query     map[string][]string `json:"query"`
	Body      string              `json:"body"`
	Status    int                 `json:"status"`
	Processed bool                `json:"processed"`
}

// same reports whether a and b are one request: its status and outcome may have been filled in
// between two reads of the log, the rest never changes.
func (a *entry) same(b *entry) bool {
	return a.Time == b.Time && a.Method == b.Method && a.Path == b.Path && a.Body == b.Body &&
		url.Values(a.Query).Encode() == url.Values(b.Query).Encode()
}

// requestLog is the whole log of a run, put together from reads of compute-fake's log, which keeps
// only its last requests.
type requestLog struct {
	all     []entry
	window  int  // how many of the last entries of all the previous read showed
	overrun bool // a read shared nothing with the one before: requests may be missing
}

// merge adds a read of the log: the oldest requests it shows are the newest the previous read
// showed, less those the fake dropped since, and the requests after them are new.
func (l *requestLog) merge(read []entry) {
	prev := l.all[len(l.all)-l.window:]
	for dropped := 0; dropped <= len(prev); dropped++ {
		overlap := prev[dropped:]
		if len(overlap) > len(read) || !sameRequests(overlap, read[:len(overlap)]) {
			continue
		}
		copy(overlap, read[:len(overlap)]) // statuses filled in since
		l.all = append(l.all, read[len(overlap):]...)
		l.window = len(read)
		l.overrun = l.overrun || len(overlap) == 0 && len(prev) > 0
		return
	}
}

func sameRequests(a, b []entry) bool {
	return slices.EqualFunc(a, b, func(x, y entry) bool { return x.same(&y) })
}

// readLog reads compute-fake's request log through its control endpoint.
func readLog(hc *http.Client, base, controlToken string) ([]entry, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/_fake/requests", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(controlHeader, controlToken)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /_fake/requests: %s", resp.Status)
	}
	var doc struct {
		Requests []entry `json:"requests"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("GET /_fake/requests: %w", err)
	}
	return doc.Requests, nil
}

// counts are the figures the request log gives.
type counts struct {
	total      int
	throttled  int // 429 responses
	lists      int // GET /instances: lookup pages and wait pages
	gets       int // GET /instances/{id}
	creates    int // POST /instances
	deletes    int // DELETE /instances/{id}
	other      int
	duplicates int // processed creates beyond the first of each name
	first      time.Time
	last       time.Time
}

// instancesPath is the collection every request of the run goes to.
const instancesPath = "/compute/v1/instances"

// count classifies the log's requests.
func count(log []entry) counts {
	var c counts
	creates := map[string]int{}
	for i := range log {
		e := &log[i]
		c.total++
		if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
			if c.first.IsZero() {
				c.first = t
			}
			c.last = t
		}
		if e.Status == http.StatusTooManyRequests {
			c.throttled++
		}
		one := strings.HasPrefix(e.Path, instancesPath+"/") && !strings.Contains(e.Path[len(instancesPath)+1:], "/")
		switch {
		case e.Method == http.MethodGet && e.Path == instancesPath:
			c.lists++
		case e.Method == http.MethodGet && one:
			c.gets++
		case e.Method == http.MethodPost && e.Path == instancesPath:
			c.creates++
			var body struct {
				Name string `json:"name"`
			}
			if e.Processed && json.Unmarshal([]byte(e.Body), &body) == nil {
				if creates[body.Name]++; creates[body.Name] > 1 {
					c.duplicates++
				}
			}
		case e.Method == http.MethodDelete && one:
			c.deletes++
		default:
			c.other++
		}
	}
	return c
}
