package computetest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/internal/fake"
	"github.com/compute-sdk/compute-go/internal/memnet"
)

// Server is a stateful in-memory fake of the whole Compute API, served over HTTP. It is safe for
// concurrent use. Create one with NewServer and Close it when done.
type Server struct {
	// URL is the base URL of the fake, such as "http://127.0.0.1:41234", for compute.WithBaseURL.
	// With WithInMemoryNetwork it is "http://127.0.0.1:80" in name only: only the clients this
	// Server returns can reach it.
	URL string
	// Token is the token the fake accepts (DefaultToken unless WithToken set another). It is for
	// reading: the server keeps its own copy, so changing this field changes nothing but what
	// Client sends.
	Token string

	e    *fake.Engine
	hs   *httptest.Server
	mem  *memnet.Listener
	hc   *http.Client
	once sync.Once
}

// NewServer starts a fake on a loopback port (or in memory, see WithInMemoryNetwork) with the
// default catalogue, no rate limit and instant transitions, unless options say otherwise.
func NewServer(opts ...Option) *Server {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if !cfg.inMemory && cfg.listener == nil && inSynctestBubble() {
		// A loopback socket inside a bubble: the bubble's clock never advances while a goroutine
		// waits on the network, so the test would hang until the binary's timeout. Fail now, and
		// say what to add.
		panic("computetest: NewServer inside a testing/synctest bubble needs computetest.WithInMemoryNetwork(): " +
			"a loopback socket would stop the bubble's fake clock and hang the test")
	}
	s := &Server{e: fake.New(cfg.engine)}
	s.Token = s.e.Token()
	switch {
	case cfg.listener != nil:
		s.hs = &httptest.Server{Listener: cfg.listener, Config: &http.Server{Handler: s.e}}
	case cfg.inMemory:
		s.mem = memnet.NewListener()
		s.hs = &httptest.Server{Listener: s.mem, Config: &http.Server{Handler: s.e}}
		s.hc = &http.Client{Transport: &http.Transport{DialContext: s.mem.Dial}}
	default:
		s.hs = httptest.NewUnstartedServer(s.e)
	}
	s.hs.Start()
	if s.hc == nil {
		s.hc = s.hs.Client()
	}
	s.URL = s.hs.URL
	return s
}

// Close shuts the server down and waits for the requests in flight.
func (s *Server) Close() {
	s.once.Do(func() {
		if t, ok := s.hc.Transport.(*http.Transport); ok && s.mem != nil {
			t.CloseIdleConnections()
		}
		s.hs.Close()
	})
}

// ServeHTTP serves one request of the API (or of the control endpoint, when enabled) directly,
// without the network: the Server as an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.e.ServeHTTP(w, r) }

// HTTPClient returns an *http.Client that reaches the server, also when it serves in memory.
func (s *Server) HTTPClient() *http.Client { return s.hc }

// NewClient returns an SDK client wired to the server: its base URL, its token and an HTTP client
// that reaches it, with the client-side rate limit set to the server's (or off when the server has
// none). opts are applied after those, so they can override any of them.
func (s *Server) NewClient(opts ...compute.Option) (*compute.Client, error) {
	base := []compute.Option{compute.WithBaseURL(s.URL), compute.WithHTTPClient(s.hc)}
	if rate := s.e.Rate(); rate > 0 {
		base = append(base, compute.WithRateLimit(rate, 1))
	} else {
		base = append(base, compute.WithoutRateLimit())
	}
	return compute.NewClient(s.Token, append(base, opts...)...)
}

// Client is NewClient for tests: it panics if an option is invalid, which is a mistake in the test
// itself (the way regexp.MustCompile treats a bad pattern).
func (s *Server) Client(opts ...compute.Option) *compute.Client {
	c, err := s.NewClient(opts...)
	if err != nil {
		panic("computetest: Server.Client: " + err.Error())
	}
	return c
}

// Catalog returns the catalogue as it is now (volume statuses change as volumes are attached).
func (s *Server) Catalog() Catalog { return s.e.Catalog() }

// Advance moves the server's clock forward by d, completing the transitions due by then. It works
// with any clock, real or fake. A negative d is ignored: the server's clock never goes back.
func (s *Server) Advance(d time.Duration) { s.e.Advance(d) }

// Reset forgets every resource, recorded request, fault rule, quota set over the control endpoint
// and rate-limit count and loads the catalogue again, as a fresh server (IDs start again from
// 000001).
func (s *Server) Reset() { s.e.Reset() }

// SetInstanceStatus forces an instance into a status, cancelling any transition in progress, so that
// a test can reach states the API cannot (error, pending_payment) or hold one (creating). It reports
// whether the instance exists.
func (s *Server) SetInstanceStatus(id string, status compute.InstanceStatus) bool {
	return s.e.SetInstanceStatus(id, string(status))
}

// Match selects requests by method and path. An empty field matches everything.
type Match = fake.Match

// Request is one request as the server received it, for assertions in tests.
type Request = fake.Request

// Fault is what an injected rule does to a request it hits. Latency applies first; then, in this
// order of precedence, Drop, Status or DropAfterProcessing decides the outcome; a Fault with only
// Latency delays the request and then processes it normally.
type Fault struct {
	// Latency delays the request before anything else; it ends early if the client goes away.
	Latency time.Duration
	// Drop closes the connection without processing the request or sending a response.
	Drop bool
	// Status sends a response with this status without processing the request. The body is Body if
	// set, otherwise the API's {code, message} with Code and Message.
	Status int
	// Code is the error code of the response, for example compute.CodeOutOfStock. A 429 without a
	// Code carries 02009, as the server's own rate limit does.
	Code compute.ErrorCode
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
	// charge is made) and then closes the connection without a response, the case where the client
	// cannot know the outcome.
	DropAfterProcessing bool
}

func (f Fault) engine() fake.Fault {
	return fake.Fault{Latency: f.Latency, Drop: f.Drop, Status: f.Status, Code: string(f.Code), Message: f.Message,
		RetryAfter: f.RetryAfter, Body: f.Body, ContentType: f.ContentType, DropAfterProcessing: f.DropAfterProcessing}
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

// Inject adds a fault rule. Rules are tried in the order they were added; the first that hits a
// request decides its fault. Authentication and rate limiting happen before faults, so a fault never
// hits a request the service would have refused anyway.
func (s *Server) Inject(r Rule) {
	s.e.Inject(fake.Rule{Match: r.Match, Times: r.Times, Probability: r.Probability, Fault: r.Fault.engine()})
}

// FailNext makes the next n requests that match m fail with f. It is Inject with Times: n.
func (s *Server) FailNext(n int, m Match, f Fault) {
	if n > 0 {
		s.Inject(Rule{Match: m, Times: n, Fault: f})
	}
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() { s.e.ClearFaults() }

// Requests returns a copy of every request received so far, in order of arrival; changing it
// changes nothing in the server.
func (s *Server) Requests() []Request { return s.e.Requests() }

// ResetRequests forgets the requests received so far.
func (s *Server) ResetRequests() { s.e.ResetRequests() }

// inSynctestBubble reports whether the caller runs inside a testing/synctest bubble, whose fake
// clock starts at midnight UTC, 2000-01-01. No real clock reads a time before 2001, and a test
// would have to advance its bubble's clock by a year to read one after; testing/synctest has no
// exported way to ask.
func inSynctestBubble() bool {
	return time.Now().Before(time.Date(2001, time.January, 1, 0, 0, 0, 0, time.UTC))
}
