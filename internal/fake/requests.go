package fake

import (
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Request is one request as the server received it, for assertions in tests.
type Request struct {
	// Time is when the server received it, on the server's clock.
	Time time.Time
	// Method is the HTTP method.
	Method string
	// Path is the path exactly as sent, escaped (an ID "a/b" shows as "a%2Fb").
	Path string
	// Query is the parsed query string.
	Query url.Values
	// Body is the request body as received.
	Body []byte
	// Auth is how the request authenticated: "bearer", "x-auth-token", or "" when it carried no
	// token. The token itself is not recorded.
	Auth string
	// Header is the request's header without Authorization and X-Auth-Token.
	Header http.Header
	// Status is the status of the response, 0 if the connection was dropped without a response.
	Status int
	// Fault says the request was hit by an injected fault.
	Fault bool
	// Processed says the request took effect on the server's state (or, for a read, was served
	// from it). A request refused by authentication, the rate limit or a fault is not processed.
	Processed bool
}

// Requests returns a copy of every request received so far, in order of arrival.
func (e *Engine) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Request, len(e.log))
	for i, r := range e.log {
		out[i] = *r
		out[i].Header = r.Header.Clone()
		out[i].Query = url.Values(http.Header(r.Query).Clone()) // both are a map[string][]string
		out[i].Body = slices.Clone(r.Body)
	}
	return out
}

// ResetRequests forgets the requests received so far.
func (e *Engine) ResetRequests() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = nil
}
