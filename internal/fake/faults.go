package fake

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
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

// methods are the methods a rule may name.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions}

// problem says why a Match can never select a request, "" when it can: a method that is not an
// upper-case HTTP method, a path that is a URL or carries a query or a fragment, an invalid
// pattern, or the control endpoint (escaped or not), which faults never reach.
func (m Match) problem() string {
	unescaped, _ := url.PathUnescape(m.Path) // "" when it holds a malformed escape
	switch p := m.Path; {
	case m.Method != "" && !slices.Contains(methods, m.Method):
		return fmt.Sprintf("match.method must be one of %s (upper case), got %q", strings.Join(methods, ", "), m.Method)
	case p == "":
		return ""
	case strings.Contains(p, "://") || !strings.HasPrefix(p, "/"):
		return fmt.Sprintf("match.path must be a path such as /compute/v1/instances/*, not a URL or a relative path, got %q", p)
	case strings.Contains(p, "?") && strings.Contains(p, "="):
		return fmt.Sprintf("match.path is matched against the path alone, without the query, got %q", p)
	case strings.Contains(p, "#"):
		return fmt.Sprintf("match.path is matched against the path as sent, which never holds a fragment, got %q", p)
	case strings.HasPrefix(p, controlPrefix) || strings.HasPrefix(unescaped, controlPrefix):
		return fmt.Sprintf("match.path %q is under %s, whose requests are never faulted", p, controlPrefix)
	}
	if _, err := path.Match(m.Path, ""); err != nil {
		return fmt.Sprintf("match.path %q is not a valid path.Match pattern: %v", m.Path, err)
	}
	return ""
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
	// otherwise the API's {code, message} with Code and Message.
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
	// DropAfterProcessing processes the request (an instance is created, a charge is made) and then
	// closes the connection without a response: the client cannot know the outcome.
	DropAfterProcessing bool
}

// Rule injects a Fault into the requests that match it.
type Rule struct {
	// Match selects the requests.
	Match Match
	// Times is how many matching requests the rule hits before it is spent; 0 means no bound.
	Times int
	// Probability, when in (0, 1), hits each matching request with that probability (see
	// Config.Seed); 0 hits every matching request.
	Probability float64
	// Fault is what happens to a hit request.
	Fault Fault
}

// faultRule is a Rule with its identifier; its Times counts down the hits it has left.
type faultRule struct {
	Rule
	id string
}
