package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/compute-sdk/compute-go/internal/fakelog"
)

// logWatch reads compute-fake's log while a step runs, so that none of the step's requests is lost
// when the fake forgets its oldest.
type logWatch struct {
	f    *fakeServer
	stop chan struct{}
	done chan struct{}

	mu  sync.Mutex
	log fakelog.Log
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
		Requests []fakelog.Entry `json:"requests"`
	}
	err := w.f.control(http.MethodGet, "/_fake/requests", nil, &doc)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.err = err
	if err == nil {
		w.log.Merge(doc.Requests)
	}
}

// counts returns the figures of the requests read so far.
func (w *logWatch) counts() counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return count(w.log.All)
}

// finish stops the reads and returns the whole log, after a last read.
func (w *logWatch) finish() (fakelog.Log, error) {
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
func count(log []fakelog.Entry) counts {
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
