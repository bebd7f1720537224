// Package latesend holds requests back between the limiter's turn and their write, as a busy
// machine holds a process back, for the pacing tests of every module.
package latesend

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// Transport holds each request back by Late(n), n counting its requests from 1, before Inner
// writes it.
type Transport struct {
	// Inner writes the requests.
	Inner http.RoundTripper
	// Late is how long the nth request is held back.
	Late func(n int64) time.Duration
	// Unseen writes a held-back request with a context without its trace hooks: the network held
	// it up, and the client cannot tell from when it was written.
	Unseen bool
	n      atomic.Int64
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	d := t.Late(t.n.Add(1))
	if d <= 0 {
		return t.Inner.RoundTrip(r)
	}
	time.Sleep(d)
	if !t.Unseen {
		return t.Inner.RoundTrip(r)
	}
	ctx, cancel := context.WithCancel(context.Background()) // the same request, without its trace
	defer cancel()
	defer context.AfterFunc(r.Context(), cancel)()
	return t.Inner.RoundTrip(r.WithContext(ctx))
}

// Cycle holds the requests back by lates in turn.
func Cycle(lates ...time.Duration) func(int64) time.Duration {
	return func(n int64) time.Duration { return lates[(n-1)%int64(len(lates))] }
}

// Every holds back by late one request in every, the one whose count leaves at when divided by
// every.
func Every(every, at int64, late time.Duration) func(int64) time.Duration {
	return func(n int64) time.Duration {
		if n%every == at {
			return late
		}
		return 0
	}
}
