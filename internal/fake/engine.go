package fake

import (
	"cmp"
	"crypto/subtle"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultToken is the token an Engine accepts unless Config.Token says otherwise. It looks random
// and shares no five characters in a row with any path, field or message of the SDK, so that the
// SDK's scrubbing of a token echoed by a server never masks its own words in a test's errors.
const DefaultToken = "Zq8Wv3Xj7Lm2Rt9Hk4Pd"

// Config is what an Engine is built from. The zero value of a field means its default.
type Config struct {
	// Token is the token accepted for reads and writes (DefaultToken when empty).
	Token string
	// ReadOnly are tokens that may read but not write (403 with 02043 on a write).
	ReadOnly []string
	// Catalog is the catalogue the fake starts with; nil means DefaultCatalog.
	Catalog *Catalog
	// Durations are the lifecycle transitions' durations.
	Durations Durations
	// Limits are the account quotas.
	Limits Limits
	// Rate is the per-token rate limit in requests per second; 0 turns it off.
	Rate float64
	// Burst is the rate limit's burst; 0 means one second's worth.
	Burst int
	// Clock is the engine's clock (time.Now when nil).
	Clock func() time.Time
	// LogLimit keeps only the last LogLimit requests in the log; 0 keeps them all.
	LogLimit int
	// LogBytes keeps what the log holds of its requests (bodies, headers, paths and queries) under
	// LogBytes bytes in all, each header and query parameter counted at what it costs in memory,
	// dropping the oldest requests first (the last one always stays); 0 does not bound them.
	LogBytes int
	// Seed seeds the random choices of probabilistic fault rules (1 when 0).
	Seed uint64
	// ControlToken, when not empty, enables the control endpoint under /_fake/ and is the token it
	// requires (see control.go). It must differ from Token.
	ControlToken string
}

// Durations is how long each lifecycle transition takes on the engine's clock. The zero value makes
// every transition finish at once.
type Durations struct {
	// InstanceCreate is creating -> active.
	InstanceCreate time.Duration
	// InstanceStop is stopping -> stopped.
	InstanceStop time.Duration
	// InstanceStart is starting -> active.
	InstanceStart time.Duration
	// InstanceReset is resetting -> active.
	InstanceReset time.Duration
	// InstanceDelete is deleting -> gone (404).
	InstanceDelete time.Duration
	// SecurityGroupCreate is creating -> created.
	SecurityGroupCreate time.Duration
	// FloatingIPCreate is creating -> created; the address is assigned at the end.
	FloatingIPCreate time.Duration
	// VolumeCreate is creating -> created.
	VolumeCreate time.Duration
	// FilesystemCreate is creating -> created; the mount path is assigned at the end.
	FilesystemCreate time.Duration
	// SnapshotCreate is creating -> created for an imported or cloned snapshot. A snapshot of an
	// instance is created at once, the only status the API shows for it.
	SnapshotCreate time.Duration
}

// UniformDurations gives every transition the same duration d.
func UniformDurations(d time.Duration) Durations {
	var out Durations
	v := reflect.ValueOf(&out).Elem()
	for i := range v.NumField() {
		v.Field(i).Set(reflect.ValueOf(d))
	}
	return out
}

// Engine is the fake API as an http.Handler. It is safe for concurrent use.
type Engine struct {
	cfg Config

	mu      sync.Mutex
	offset  time.Duration
	s       *state
	rules   []*faultRule
	ruleSeq int
	rand    *rand.Rand
	log     []*Request
	logSize int // the bytes of the log's requests, as loggedSize counts them
	buckets map[string]bucket
}

// New returns an Engine with the catalogue and nothing else.
func New(cfg Config) *Engine {
	cfg.Token = cmp.Or(cfg.Token, DefaultToken)
	if cfg.ControlToken != "" && (cfg.ControlToken == cfg.Token || slices.Contains(cfg.ReadOnly, cfg.ControlToken)) {
		// A control token that opens the API too could be confused with it: a mistake of the caller's.
		panic("computetest: the control token must differ from the API's tokens")
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	cfg.Seed = cmp.Or(cfg.Seed, 1)
	if cfg.Burst <= 0 {
		cfg.Burst = max(1, int(cfg.Rate))
	}
	cat := DefaultCatalog()
	if cfg.Catalog != nil {
		cat = cfg.Catalog.Clone()
	}
	cfg.Catalog = &cat
	e := &Engine{cfg: cfg}
	e.reset()
	return e
}

// reset empties the state, the request log, the fault rules and the rate limit's buckets. The
// caller holds e.mu, or e is not shared yet.
func (e *Engine) reset() {
	e.s = newState(e.cfg)
	e.rules, e.ruleSeq = nil, 0
	e.clearLog()
	e.buckets = map[string]bucket{}
	e.rand = rand.New(rand.NewPCG(e.cfg.Seed, e.cfg.Seed^0x9e3779b97f4a7c15))
}

// Token is the token the engine accepts.
func (e *Engine) Token() string { return e.cfg.Token }

// Rate is the per-token rate limit, 0 when there is none.
func (e *Engine) Rate() float64 { return e.cfg.Rate }

// now is the engine's clock plus what Advance added, truncated to the API's millisecond precision
// so that what the engine stores is what it shows.
func (e *Engine) now() time.Time {
	return e.cfg.Clock().Add(e.offset).UTC().Truncate(time.Millisecond)
}

// state is the state as it is now, every transition due by now completed in order of due time.
// Every read and change of the state goes through it. The caller holds e.mu.
func (e *Engine) state() (*state, time.Time) {
	now := e.now()
	e.s.queue.settle(now)
	return e.s, now
}

// prefix is where the compute family lives.
const prefix = "/compute/v1/"

// controlPrefix is where the control endpoint lives, a path the API does not use.
const controlPrefix = "/_fake/"

// ServeHTTP runs one request through authentication, the rate limit and the fault rules, then
// processes it against the state.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, controlPrefix) {
		e.serveControl(w, r)
		return
	}
	body, err := readBody(r)
	if err != nil {
		return // the client went away mid-body
	}
	header := r.Header.Clone()
	header.Del("Authorization")
	header.Del("X-Auth-Token")

	e.mu.Lock()
	now := e.now()
	entry := &Request{Time: now, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(),
		Body: body, Header: header}
	e.log, e.logSize = append(e.log, entry), e.logSize+loggedSize(entry)
	e.trimLog()
	token, refusal := e.authenticate(r, entry)
	if refusal == nil {
		refusal = e.limit(token, now)
	}
	var fault Fault
	var hit bool
	if refusal == nil {
		fault, hit = e.pickFault(r.Method, entry.Path)
		entry.Fault = hit
	}
	e.mu.Unlock()

	if refusal != nil {
		e.respond(w, entry, 0, document{}, refusal)
		return
	}
	if hit && fault.Latency > 0 {
		select {
		case <-time.After(fault.Latency): // a timer no longer referenced is collected, fired or not
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case hit && fault.Drop:
		drop(w)
		return
	case hit && fault.Status != 0:
		e.respondFault(w, entry, fault)
		return
	}
	status, doc, refusal := e.process(r.Method, body, entry)
	if hit && fault.DropAfterProcessing {
		drop(w)
		return
	}
	e.respond(w, entry, status, doc, refusal)
}

// readBody reads a request's body, up to one byte past what decodeBody accepts.
func readBody(r *http.Request) ([]byte, error) { return io.ReadAll(io.LimitReader(r.Body, maxBody+1)) }

// process runs the request's route against the state as it is now.
func (e *Engine) process(method string, body []byte, entry *Request) (int, document, *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, now := e.state()
	rt, ids, refusal := findRoute(routes, prefix, method, entry.Path)
	if refusal != nil {
		return 0, document{}, refusal
	}
	entry.Processed = true
	doc, refusal := rt.respond(e, call{ids: ids, query: entry.Query, now: now}, body)
	return rt.status, doc, refusal
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
		if r.Times > 0 {
			r.Times--
			if r.Times == 0 {
				e.rules = slices.Delete(e.rules, i, i+1)
			}
		}
		return r.Fault, true
	}
	return Fault{}, false
}

// authenticate checks the credential: Bearer or the deprecated X-Auth-Token; none is 401 with
// 02014, an unknown one 401 with 01204, a read-only one 403 with 02043 on a write. The caller holds
// e.mu.
func (e *Engine) authenticate(r *http.Request, entry *Request) (string, *Error) {
	var token string
	if h := r.Header.Get("Authorization"); h != "" {
		entry.Auth = "bearer"
		scheme, rest, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return "", fail(http.StatusUnauthorized, codeAuthPermissionDenied, "the Authorization header must be a Bearer token")
		}
		token = strings.TrimSpace(rest)
	} else if h := r.Header.Get("X-Auth-Token"); h != "" {
		entry.Auth = "x-auth-token"
		token = strings.TrimSpace(h)
	}
	switch {
	case token == "":
		return "", fail(http.StatusUnauthorized, codeTokenNotProvided, "auth token not provided")
	case same(token, e.cfg.Token):
		return token, nil
	case !slices.ContainsFunc(e.cfg.ReadOnly, func(ro string) bool { return same(token, ro) }):
		return "", fail(http.StatusUnauthorized, codeAuthPermissionDenied, "invalid token")
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		return token, fail(http.StatusForbidden, codePermissionDenied, "permission denied: the token is read-only")
	}
	return token, nil
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// limit applies the per-token rate limit, if one is set. The caller holds e.mu.
func (e *Engine) limit(token string, now time.Time) *Error {
	if e.cfg.Rate <= 0 {
		return nil
	}
	b := e.buckets[token]
	ok, retryAfter := b.take(now, e.cfg.Rate, e.cfg.Burst)
	e.buckets[token] = b
	if ok {
		return nil
	}
	return tooManyRequests(retryAfter, "too many requests: the limit is %g per second", e.cfg.Rate)
}

// bucket is a token bucket: rate tokens a second, up to burst, one per request.
type bucket struct {
	tokens float64
	last   time.Time
}

// take spends a token for a request arriving at now. When none is left it returns false and the
// whole seconds until one will be, for the Retry-After header (at least 1).
func (b *bucket) take(now time.Time, rate float64, burst int) (bool, string) {
	if b.last.IsZero() {
		b.tokens = float64(burst)
	} else if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(float64(burst), b.tokens+elapsed*rate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, ""
	}
	wait := math.Ceil((1 - b.tokens) / rate)
	return false, strconv.Itoa(int(math.Max(1, wait)))
}

// respond writes the response of the API, and records its status.
func (e *Engine) respond(w http.ResponseWriter, entry *Request, status int, doc document, refusal *Error) {
	if refusal != nil {
		status = refusal.status
	}
	w.Header().Set("X-Request-Id", e.finish(entry, status))
	write(w, status, doc, refusal)
}

// write writes a refusal, or a success with its body (none for a 204).
func write(w http.ResponseWriter, status int, doc document, refusal *Error) {
	switch {
	case refusal != nil:
		writeError(w, refusal)
	case doc.body == nil:
		w.WriteHeader(status)
	default:
		w.Header().Set("Content-Type", doc.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(doc.body)))
		w.WriteHeader(status)
		_, _ = w.Write(doc.body)
	}
}

// respondFault writes an injected fault's response.
func (e *Engine) respondFault(w http.ResponseWriter, entry *Request, f Fault) {
	if f.Body == nil {
		code := f.Code
		if code == "" && f.Status == http.StatusTooManyRequests {
			code = codeNotAllowed
		}
		e.respond(w, entry, 0, document{}, &Error{status: f.Status, code: code, message: f.Message, retryAfter: f.RetryAfter})
		return
	}
	w.Header().Set("X-Request-Id", e.finish(entry, f.Status))
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	w.Header().Set("Content-Type", cmp.Or(f.ContentType, "text/html"))
	w.WriteHeader(f.Status)
	_, _ = w.Write(f.Body)
}

// trimLog drops the oldest requests while the log holds more than Config.LogLimit of them, or
// more than Config.LogBytes, keeping the last. The caller holds e.mu.
func (e *Engine) trimLog() {
	n := 0
	for len(e.log)-n > 1 && (e.cfg.LogLimit > 0 && len(e.log)-n > e.cfg.LogLimit || e.cfg.LogBytes > 0 && e.logSize > e.cfg.LogBytes) {
		e.logSize -= loggedSize(e.log[n])
		n++
	}
	clear(e.log[:n]) // so that the dropped requests are not kept alive by the array
	e.log = e.log[n:]
}

// What the log holds of a header or a query parameter beyond the bytes of its name and values: its
// entry in the map (net/textproto's own estimate; Go's maps hold 80 to 130 bytes an entry), and
// each value's string (16 bytes, and more once rounded up to the allocator's sizes). Without them
// a request of 1 MiB of empty header values, which costs 4 to 16 MiB, would count a few bytes.
const (
	loggedEntryCost = 200
	loggedValueCost = 24
)

// loggedSize is what the log holds of r, in bytes: its body, path, query and headers (which a
// request without a token can make large: net/http reads up to 1 MiB of them), each header and
// query parameter counted at what it costs, not only its text.
func loggedSize(r *Request) int {
	n := len(r.Body) + len(r.Path)
	for _, m := range []map[string][]string{r.Header, r.Query} {
		for k, vs := range m {
			n += loggedEntryCost + len(k) + loggedValueCost*len(vs)
			for _, v := range vs {
				n += len(v)
			}
		}
	}
	return n
}

// clearLog forgets every request. The caller holds e.mu.
func (e *Engine) clearLog() { e.log, e.logSize = nil, 0 }

// finish records a response's status in the log and gives the response its request ID.
func (e *Engine) finish(entry *Request, status int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	entry.Status = status
	return e.s.newID("req")
}

// drop closes the connection without a response.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // net/http's own way to abort a response; it closes the stream
}
