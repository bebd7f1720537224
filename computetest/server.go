package computetest

import (
	"bytes"
	"crypto/subtle"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
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

	cfg  config
	hs   *httptest.Server
	mem  *memnet.Listener
	hc   *http.Client
	once sync.Once

	mu        sync.Mutex
	offset    time.Duration
	catalog   Catalog
	instances table[instance]
	groups    table[securityGroup]
	fips      table[floatingIP]
	snapshots table[snapshot]
	seq       map[string]int
	rules     []*rule
	rand      *rand.Rand
	log       []*Request
	buckets   map[string]*bucket
}

// NewServer starts a fake on a loopback port (or in memory, see WithInMemoryNetwork) with the
// default catalogue, no rate limit and instant transitions, unless options say otherwise.
func NewServer(opts ...Option) *Server {
	s := newServer(opts)
	switch {
	case s.cfg.listener != nil:
		s.hs = &httptest.Server{Listener: s.cfg.listener, Config: &http.Server{Handler: s}}
	case s.cfg.inMemory:
		s.mem = memnet.NewListener()
		s.hs = &httptest.Server{Listener: s.mem, Config: &http.Server{Handler: s}}
		s.hc = &http.Client{Transport: &http.Transport{DialContext: s.mem.Dial}}
	default:
		s.hs = httptest.NewUnstartedServer(s)
	}
	s.hs.Start()
	if s.hc == nil {
		s.hc = s.hs.Client()
	}
	s.URL = s.hs.URL
	return s
}

func newServer(opts []Option) *Server {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.burst <= 0 {
		cfg.burst = max(1, int(cfg.rate))
	}
	return &Server{
		Token:     cfg.token,
		cfg:       cfg,
		catalog:   cfg.catalog.clone(),
		instances: newTable[instance](),
		groups:    newTable[securityGroup](),
		fips:      newTable[floatingIP](),
		snapshots: newTable[snapshot](),
		seq:       map[string]int{},
		rand:      rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15)),
		buckets:   map[string]*bucket{},
	}
}

// WithListener serves on l (for example a listener on a fixed port) instead of a fresh loopback
// port. The server closes l when it closes.
func WithListener(l net.Listener) Option { return func(c *config) { c.listener = l } }

// Close shuts the server down and waits for the requests in flight.
func (s *Server) Close() {
	s.once.Do(func() {
		if t, ok := s.hc.Transport.(*http.Transport); ok && s.mem != nil {
			t.CloseIdleConnections()
		}
		s.hs.Close()
	})
}

// HTTPClient returns an *http.Client that reaches the server, also when it serves in memory.
func (s *Server) HTTPClient() *http.Client { return s.hc }

// NewClient returns an SDK client wired to the server: its base URL, its token and an HTTP client
// that reaches it, with the client-side rate limit set to the server's (or off when the server has
// none). opts are applied after those, so they can override any of them.
func (s *Server) NewClient(opts ...compute.Option) (*compute.Client, error) {
	base := []compute.Option{compute.WithBaseURL(s.URL), compute.WithHTTPClient(s.hc)}
	if s.cfg.rate > 0 {
		base = append(base, compute.WithRateLimit(s.cfg.rate, 1))
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
func (s *Server) Catalog() Catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle(s.now())
	return s.catalog.clone()
}

// ServeHTTP runs one request through authentication, the rate limit and the fault rules, then
// processes it against the state.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return // the client went away mid-body
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	header := r.Header.Clone()
	header.Del("Authorization")
	header.Del("X-Auth-Token")

	s.mu.Lock()
	now := s.now()
	entry := &Request{Time: now, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(),
		Body: body, Header: header}
	s.log = append(s.log, entry)
	if lim := s.cfg.logLimit; lim > 0 && len(s.log) > lim {
		s.log = s.log[len(s.log)-lim:]
	}
	token, refusal := s.authenticate(r, entry)
	if refusal == nil {
		refusal = s.limit(token, now)
	}
	var fault Fault
	var hit bool
	if refusal == nil {
		fault, hit = s.pickFault(r.Method, entry.Path)
		entry.Fault = hit
	}
	s.mu.Unlock()

	if refusal != nil {
		s.answer(w, entry, 0, document{}, refusal)
		return
	}
	if hit && fault.Latency > 0 {
		t := time.NewTimer(fault.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	switch {
	case hit && fault.Drop:
		drop(w)
		return
	case hit && fault.Status != 0:
		s.answerFault(w, entry, fault)
		return
	}
	status, doc, refusal := s.process(r, entry)
	if hit && fault.DropAfterProcessing {
		drop(w)
		return
	}
	s.answer(w, entry, status, doc, refusal)
}

// authenticate checks the credential as the contract states: Bearer or the deprecated X-Auth-Token;
// none is 401 with 02014, an unknown one 401, a read-only one 403 with 02043 on a write. The caller
// holds s.mu.
func (s *Server) authenticate(r *http.Request, entry *Request) (string, *apiError) {
	var token string
	if h := r.Header.Get("Authorization"); h != "" {
		entry.Auth = "bearer"
		scheme, rest, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return "", fail(http.StatusUnauthorized, compute.CodeAuthPermissionDenied, "the Authorization header must be a Bearer token")
		}
		token = strings.TrimSpace(rest)
	} else if h := r.Header.Get("X-Auth-Token"); h != "" {
		entry.Auth = "x-auth-token"
		token = strings.TrimSpace(h)
	}
	if token == "" {
		return "", fail(http.StatusUnauthorized, compute.CodeAuthTokenNotProvided, "auth token not provided")
	}
	if same(token, s.cfg.token) {
		return token, nil
	}
	for _, ro := range s.cfg.readOnly {
		if same(token, ro) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				return token, fail(http.StatusForbidden, compute.CodePermissionDenied, "permission denied: the token is read-only")
			}
			return token, nil
		}
	}
	return "", fail(http.StatusUnauthorized, compute.CodeAuthPermissionDenied, "invalid token")
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// limit applies the per-token rate limit, if one is set. The caller holds s.mu.
func (s *Server) limit(token string, now time.Time) *apiError {
	if s.cfg.rate <= 0 {
		return nil
	}
	b := s.buckets[token]
	if b == nil {
		b = &bucket{}
		s.buckets[token] = b
	}
	ok, retryAfter := b.take(now, s.cfg.rate, s.cfg.burst)
	if ok {
		return nil
	}
	// The contract names no code for a 429, so the body carries none.
	e := fail(http.StatusTooManyRequests, "", "too many requests: the limit is %g per second", s.cfg.rate)
	e.retryAfter = retryAfter
	return e
}

// process settles due transitions and runs the request's route against the state, returning the
// encoded answer.
func (s *Server) process(r *http.Request, entry *Request) (int, document, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settle(now)
	rt, ids, refusal := findRoute(r.Method, entry.Path)
	if refusal != nil {
		return 0, document{}, refusal
	}
	entry.Processed = true
	status, v, refusal := rt.handle(s, &call{r: r, ids: ids, query: entry.Query, now: now})
	if refusal != nil || v == nil {
		return status, document{}, refusal
	}
	if doc, ok := v.(document); ok {
		return status, doc, nil
	}
	// Encoding under the lock means an answer never shares memory with state another request is
	// changing.
	body, err := encode(v)
	if err != nil {
		return 0, document{}, fail(http.StatusInternalServerError, "", "encoding the answer: %v", err)
	}
	return status, document{contentType: "application/json", body: body}, nil
}

// document is an encoded answer body.
type document struct {
	contentType string
	body        []byte
}

// answer writes a success (body, or none for 204) or a refusal, and records the status.
func (s *Server) answer(w http.ResponseWriter, entry *Request, status int, doc document, refusal *apiError) {
	w.Header().Set("X-Request-Id", s.requestID())
	switch {
	case refusal != nil:
		s.record(entry, refusal.status)
		writeError(w, refusal)
	case doc.body == nil:
		s.record(entry, status)
		w.WriteHeader(status)
	default:
		s.record(entry, status)
		w.Header().Set("Content-Type", doc.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(doc.body)))
		w.WriteHeader(status)
		_, _ = w.Write(doc.body)
	}
}

// answerFault writes an injected fault's answer.
func (s *Server) answerFault(w http.ResponseWriter, entry *Request, f Fault) {
	s.record(entry, f.Status)
	w.Header().Set("X-Request-Id", s.requestID())
	if f.Body == nil {
		writeError(w, &apiError{status: f.Status, code: f.Code, message: f.Message, retryAfter: f.RetryAfter})
		return
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	ct := f.ContentType
	if ct == "" {
		ct = "text/html"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(f.Status)
	_, _ = w.Write(f.Body)
}

func (s *Server) record(entry *Request, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entry.Status = status
}

func (s *Server) requestID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newID("req")
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // net/http's own way to abort a response; it closes the stream
}
