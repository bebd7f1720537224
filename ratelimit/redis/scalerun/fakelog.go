package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/compute-sdk/compute-go/internal/fakelog"
)

// controlHeader carries compute-fake's control token.
const controlHeader = "X-Fake-Control-Token"

// readLog reads compute-fake's request log through its control endpoint.
func readLog(hc *http.Client, base, controlToken string) ([]fakelog.Entry, error) {
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
		Requests []fakelog.Entry `json:"requests"`
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
func count(log []fakelog.Entry) counts {
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
