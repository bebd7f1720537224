package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// entry is one request of compute-fake's log (GET /_fake/requests).
type entry struct {
	Time      string              `json:"time"`
	Method    string              `json:"method"`
	Path      string              `json:"path"`
	Query     map[string][]string `json:"query"`
	Body      string              `json:"body"`
	Status    int                 `json:"status"`
	Fault     bool                `json:"fault"`
	Processed bool                `json:"processed"`
}

// same reports whether a and b are one request: its status and outcome may have been filled in
// between two reads of the log, the rest never changes.
func (a *entry) same(b *entry) bool {
	return a.Time == b.Time && a.Method == b.Method && a.Path == b.Path && a.Body == b.Body &&
		url.Values(a.Query).Encode() == url.Values(b.Query).Encode()
}

// requestLog is the whole log of a step, put together from reads of compute-fake's log, which
// keeps only its last 1,000 requests.
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

// logWatch reads compute-fake's log while a step runs, so that none of the step's requests is lost
// when the fake forgets its oldest.
type logWatch struct {
	f    *fakeServer
	stop chan struct{}
	done chan struct{}

	mu  sync.Mutex
	log requestLog
	err error // the last read's failure, if it failed
}

// watchLog forgets what the fake logged so far and reads its log every interval until finish.
func (f *fakeServer) watchLog(every time.Duration) (*logWatch, error) {
	if err := f.control(http.MethodDelete, "/_fake/requests", nil, nil); err != nil {
		return nil, err
	}
	w := &logWatch{f: f, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(every):
			}
			w.read()
		}
	}()
	return w, nil
}

func (w *logWatch) read() {
	var doc struct {
		Requests []entry `json:"requests"`
	}
	err := w.f.control(http.MethodGet, "/_fake/requests", nil, &doc)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.err = err
	if err == nil {
		w.log.merge(doc.Requests)
	}
}

// counts returns the figures of the requests read so far.
func (w *logWatch) counts() counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return count(w.log.all)
}

// finish stops the reads and returns the whole log, after a last read.
func (w *logWatch) finish() (requestLog, error) {
	close(w.stop)
	<-w.done
	w.read()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log, w.err
}

// apiPrefix is the path of every API request.
const apiPrefix = "/compute/v1/"

// counts are the figures the request log gives.
type counts struct {
	total      int
	throttled  int // 429 responses
	lists      int // GET of a collection
	gets       int // GET of one resource
	creates    int // POST to a collection (sent, whatever the answer)
	deletes    int // DELETE of one resource
	other      int
	instances  int // instance creates processed
	duplicates int // processed creates of a kind for a name already created in the log
	dropped    int // responses dropped by a fault after the request was processed
}

// count classifies the log's requests.
func count(log []entry) counts {
	var c counts
	created := map[string]int{} // by collection and name
	for i := range log {
		e := &log[i]
		c.total++
		if e.Status == http.StatusTooManyRequests {
			c.throttled++
		}
		if e.Fault && e.Processed && e.Status == 0 {
			c.dropped++
		}
		rest, api := strings.CutPrefix(e.Path, apiPrefix)
		collection, id, one := strings.Cut(rest, "/")
		one = one && id != "" && !strings.Contains(id, "/")
		whole := api && !strings.Contains(rest, "/")
		switch {
		case e.Method == http.MethodGet && whole:
			c.lists++
		case e.Method == http.MethodGet && api && one:
			c.gets++
		case e.Method == http.MethodPost && whole:
			c.creates++
			if !e.Processed {
				break
			}
			if collection == "instances" {
				c.instances++
			}
			var body struct {
				Name string `json:"name"`
			}
			if json.Unmarshal([]byte(e.Body), &body) == nil && body.Name != "" {
				if created[collection+"\x00"+body.Name]++; created[collection+"\x00"+body.Name] > 1 {
					c.duplicates++
				}
			}
		case e.Method == http.MethodDelete && api && one:
			c.deletes++
		default:
			c.other++
		}
	}
	return c
}

// later429s is the 429s after the first, which turns a client's pacing from responses on.
func (c counts) later429s() int { return max(c.throttled-1, 0) }
