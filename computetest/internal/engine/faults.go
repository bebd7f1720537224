package engine

import (
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"time"
)

// Match selects requests by method and path. An empty field matches everything.
type Match struct {
	// Method is an HTTP method such as "POST".
	Method string
	// Path is a path.Match pattern over the request's path as sent (escaped), for example
	// "/compute/v1/instances" or "/compute/v1/instances/*/actions".
	Path string
}

func (m Match) matches(method, escapedPath string) bool {
	if m.Method != "" && m.Method != method {
		return false
	}
	if m.Path == "" {
		return true
	}
	ok, err := path.Match(m.Path, escapedPath)
	return err == nil && ok
}

// Fault is what an injected rule does to a request it hits. Latency applies first; then, in this
// order of precedence, Drop, Status or DropAfterProcessing decides the outcome; a Fault with only
// Latency delays the request and then processes it normally.
type Fault struct {
	// Latency delays the request before anything else; it ends early if the client goes away.
	Latency time.Duration
	// Drop closes the connection without processing the request or sending a response.
	Drop bool
	// Status sends a response with this status without processing the request. The body is Body if set,
	// otherwise the contract's {code, message} with Code and Message.
	Status int
	// Code is the error code of the response, for example "02036".
	Code string
	// Message is the error message of the response.
	Message string
	// RetryAfter, if set, is sent as the Retry-After header with Status.
	RetryAfter string
	// Body, if set, is sent verbatim as the response's body with Status (an HTML page, a truncated
	// JSON document), with the content type ContentType (default text/html).
	Body []byte
	// ContentType is the Content-Type of Body.
	ContentType string
	// DropAfterProcessing processes the request (it takes effect: an instance is created, a
	// charge is made) and then closes the connection without sending a response, the case where the client
	// cannot know the outcome.
	DropAfterProcessing bool
}

// Rule injects a Fault into the requests that match it.
type Rule struct {
	// Match selects the requests.
	Match Match
	// Times is how many matching requests the rule hits before it is spent; 0 means no bound.
	Times int
	// Probability, when in (0, 1), hits each matching request with that probability (see
	// WithSeed); 0 hits every matching request.
	Probability float64
	// Fault is what happens to a hit request.
	Fault Fault
}

// faultRule is a Rule with its remaining count.
type faultRule struct {
	Rule
	left int // -1 = unbounded
}

// Inject adds a fault rule. Rules are tried in the order they were added; the first that hits a request
// decides its fault. Authentication and rate limiting happen before faults, so a fault never hits a
// request the service would have refused anyway.
func (e *Engine) Inject(r Rule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	left := r.Times
	if left <= 0 {
		left = -1
	}
	e.rules = append(e.rules, &faultRule{Rule: r, left: left})
}

// FailNext makes the next n requests that match m fail with f. It is Inject with Times: n.
func (e *Engine) FailNext(n int, m Match, f Fault) {
	if n <= 0 {
		return
	}
	e.Inject(Rule{Match: m, Times: n, Fault: f})
}

// ClearFaults removes every fault rule.
func (e *Engine) ClearFaults() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rules = nil
}

// pickFault returns the fault for this request, if a rule hits it. The caller holds e.mu.
func (e *Engine) pickFault(method, escapedPath string) (Fault, bool) {
	for i, r := range e.rules {
		if !r.Match.matches(method, escapedPath) {
			continue
		}
		if r.Probability > 0 && r.Probability < 1 && e.rand.Float64() >= r.Probability {
			continue
		}
		if r.left > 0 {
			r.left--
			if r.left == 0 {
				e.rules = slices.Delete(e.rules, i, i+1)
			}
		}
		return r.Fault, true
	}
	return Fault{}, false
}

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

// Requests returns a copy of every request received so far, in order of arrival; changing it
// changes nothing in the server.
func (e *Engine) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Request, len(e.log))
	for i, r := range e.log {
		out[i] = *r
		out[i].Header = r.Header.Clone()
		out[i].Query = maps.Clone(r.Query)
		for k, v := range out[i].Query {
			out[i].Query[k] = slices.Clone(v)
		}
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
