package fake

import (
	"net/http"
	"net/url"
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
