// Package engine is the fake Compute API behind package computetest and cmd/compute-fake: its state,
// routes, request decoding with strict key checks, validation, lifecycles, catalogue and faults.
//
// It is a second, independent reading of the contract (compute-api.md, then
// compute-api-extended.md): it has its own wire types and its own validation and never imports the
// SDK package, so that a mistake in the SDK's struct tags or rules cannot hide behind the fake
// agreeing with it. Package computetest documents the choices it makes where the contract is silent.
package engine

import (
	"bytes"
	"crypto/subtle"
	_ "embed"
	"io"
	"math/rand/v2"
	"net/http"
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
	// Catalog is the seeded catalogue; a nil Catalog means DefaultCatalog.
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
	// instance is created at once, the only status the seed contract shows for it.
	SnapshotCreate time.Duration
}

// Limits are the account quotas the fake enforces. Zero means unlimited.
type Limits struct {
	// MaxInstances refuses a create beyond this many instances with code 02010.
	MaxInstances int
	// MaxFloatingIPs refuses a create beyond this many floating IPs with code 02049.
	MaxFloatingIPs int
	// MaxSnapshotsPerInstance refuses a snapshot beyond this many per instance with code 02012.
	MaxSnapshotsPerInstance int
	// MaxSnapshots refuses a snapshot (taken, imported or cloned) beyond this many with code 02010.
	MaxSnapshots int
	// MaxVolumes refuses a volume create beyond this many volumes with code 02010.
	MaxVolumes int
	// MaxFilesystems refuses a filesystem create beyond this many filesystems with code 02010.
	MaxFilesystems int
	// MaxSSHKeys refuses an SSH key create beyond this many keys with code 02010.
	MaxSSHKeys int
}

// Engine is the fake API as an http.Handler. It is safe for concurrent use.
type Engine struct {
	cfg Config

	mu          sync.Mutex
	offset      time.Duration
	catalog     Catalog
	instances   table[instance]
	groups      table[securityGroup]
	fips        table[floatingIP]
	snapshots   table[snapshot]
	sshKeys     table[sshKey]
	volumes     table[volume]
	filesystems table[filesystem]
	seq         map[string]int
	rules       []*faultRule
	rand        *rand.Rand
	log         []*Request
	buckets     map[string]*bucket
}

// New returns an Engine with the state empty and the catalogue seeded.
func New(cfg Config) *Engine {
	if cfg.Token == "" {
		cfg.Token = DefaultToken
	}
	if cfg.ControlToken != "" && (cfg.ControlToken == cfg.Token || slices.Contains(cfg.ReadOnly, cfg.ControlToken)) {
		// A control token that opens the API too could be confused with it: a mistake of the caller's.
		panic("computetest: the control token must differ from the API's tokens")
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Burst <= 0 {
		cfg.Burst = max(1, int(cfg.Rate))
	}
	cat := DefaultCatalog()
	if cfg.Catalog != nil {
		cat = cfg.Catalog.Clone()
	}
	cfg.Catalog = &cat
	e := &Engine{cfg: cfg}
	e.resetState()
	return e
}

// resetState empties the resources, the counters, the request log, the fault rules and the rate
// limit's buckets, and seeds the catalogue again. The caller holds e.mu, or e is not shared yet.
func (e *Engine) resetState() {
	e.catalog = e.cfg.Catalog.Clone()
	e.instances = newTable[instance]()
	e.groups = newTable[securityGroup]()
	e.fips = newTable[floatingIP]()
	e.snapshots = newTable[snapshot]()
	e.sshKeys = newTable[sshKey]()
	e.volumes = newTable[volume]()
	e.filesystems = newTable[filesystem]()
	seeded := stamp(catalogTime)
	for _, k := range e.catalog.SSHKeys {
		e.sshKeys.add(k.ID, seedSSHKey(k, seeded))
	}
	for _, v := range e.catalog.Volumes {
		e.volumes.add(v.ID, seedVolume(v, seeded))
	}
	e.seq = map[string]int{}
	e.rules = nil
	e.log = nil
	e.buckets = map[string]*bucket{}
	e.rand = rand.New(rand.NewPCG(e.cfg.Seed, e.cfg.Seed^0x9e3779b97f4a7c15))
}

// Reset forgets every resource, request, fault rule and rate-limit count, and seeds the catalogue
// again: the engine is as New made it, except that the clock keeps what Advance added.
func (e *Engine) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.resetState()
}

// Token is the token the engine accepts.
func (e *Engine) Token() string { return e.cfg.Token }

// Rate is the per-token rate limit, 0 when there is none.
func (e *Engine) Rate() float64 { return e.cfg.Rate }

// maxBody bounds what the fake reads of a request body; a 64 KiB startup script fits many times.
const maxBody = 4 << 20

// controlPrefix is where the control endpoint lives, a path the contract does not use.
const controlPrefix = "/_fake/"

// ServeHTTP runs one request through authentication, the rate limit and the fault rules, then
// processes it against the state.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, controlPrefix) {
		e.serveControl(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return // the client went away mid-body
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	header := r.Header.Clone()
	header.Del("Authorization")
	header.Del("X-Auth-Token")

	e.mu.Lock()
	now := e.now()
	entry := &Request{Time: now, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(),
		Body: body, Header: header}
	e.log = append(e.log, entry)
	if lim := e.cfg.LogLimit; lim > 0 && len(e.log) > lim {
		e.log = e.log[len(e.log)-lim:]
	}
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
		e.respondFault(w, entry, fault)
		return
	}
	status, doc, refusal := e.process(r, body, entry)
	if hit && fault.DropAfterProcessing {
		drop(w)
		return
	}
	e.respond(w, entry, status, doc, refusal)
}

// authenticate checks the credential as the contract states: Bearer or the deprecated X-Auth-Token;
// none is 401 with 02014, an unknown one 401 with 01204, a read-only one 403 with 02043 on a write.
// The caller holds e.mu.
func (e *Engine) authenticate(r *http.Request, entry *Request) (string, *apiError) {
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
	if token == "" {
		return "", fail(http.StatusUnauthorized, codeTokenNotProvided, "auth token not provided")
	}
	if same(token, e.cfg.Token) {
		return token, nil
	}
	for _, ro := range e.cfg.ReadOnly {
		if same(token, ro) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				return token, fail(http.StatusForbidden, codePermissionDenied, "permission denied: the token is read-only")
			}
			return token, nil
		}
	}
	return "", fail(http.StatusUnauthorized, codeAuthPermissionDenied, "invalid token")
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// limit applies the per-token rate limit, if one is set. The caller holds e.mu.
func (e *Engine) limit(token string, now time.Time) *apiError {
	if e.cfg.Rate <= 0 {
		return nil
	}
	b := e.buckets[token]
	if b == nil {
		b = &bucket{}
		e.buckets[token] = b
	}
	ok, retryAfter := b.take(now, e.cfg.Rate, e.cfg.Burst)
	if ok {
		return nil
	}
	return tooManyRequests(retryAfter, "too many requests: the limit is %g per second", e.cfg.Rate)
}

// tooManyRequests is a 429. The contract names no code for it; the fake sends 02009 ("not
// allowed"), a documented code, so that the body has the contract's {code, message} shape.
func tooManyRequests(retryAfter string, format string, args ...any) *apiError {
	e := fail(http.StatusTooManyRequests, codeNotAllowed, format, args...)
	e.retryAfter = retryAfter
	return e
}

// process settles due transitions and runs the request's route against the state, returning the
// encoded response body.
func (e *Engine) process(r *http.Request, body []byte, entry *Request) (int, document, *apiError) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	e.settle(now)
	rt, ids, refusal := findRoute(r.Method, entry.Path)
	if refusal != nil {
		return 0, document{}, refusal
	}
	entry.Processed = true
	status, v, refusal := rt.handle(e, &call{body: body, ids: ids, query: entry.Query, now: now})
	if refusal != nil || v == nil {
		return status, document{}, refusal
	}
	if doc, ok := v.(document); ok {
		return status, doc, nil
	}
	// Encoding under the lock means a response never shares memory with state another request is
	// changing.
	b, err := encode(v)
	if err != nil {
		return 0, document{}, fail(http.StatusInternalServerError, "", "encoding the response: %v", err)
	}
	return status, document{contentType: "application/json", body: b}, nil
}

// document is an encoded response body.
type document struct {
	contentType string
	body        []byte
}

// respond writes a success (a body, or none for 204) or a refusal, and records the status.
func (e *Engine) respond(w http.ResponseWriter, entry *Request, status int, doc document, refusal *apiError) {
	w.Header().Set("X-Request-Id", e.requestID())
	switch {
	case refusal != nil:
		e.record(entry, refusal.status)
		writeError(w, refusal)
	case doc.body == nil:
		e.record(entry, status)
		w.WriteHeader(status)
	default:
		e.record(entry, status)
		w.Header().Set("Content-Type", doc.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(doc.body)))
		w.WriteHeader(status)
		_, _ = w.Write(doc.body)
	}
}

// respondFault writes an injected fault's response.
func (e *Engine) respondFault(w http.ResponseWriter, entry *Request, f Fault) {
	e.record(entry, f.Status)
	w.Header().Set("X-Request-Id", e.requestID())
	if f.Body == nil {
		code := f.Code
		if code == "" && f.Status == http.StatusTooManyRequests {
			code = codeNotAllowed
		}
		writeError(w, &apiError{status: f.Status, code: code, message: f.Message, retryAfter: f.RetryAfter})
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

func (e *Engine) record(entry *Request, status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	entry.Status = status
}

func (e *Engine) requestID() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.newID("req")
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

//go:embed openapi.yaml
var openAPIDocument []byte

// openAPI serves the machine-readable description of the operations the fake implements.
func (e *Engine) openAPI(*call) (int, any, *apiError) {
	return http.StatusOK, document{contentType: "application/yaml", body: openAPIDocument}, nil
}
