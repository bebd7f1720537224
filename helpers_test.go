package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compute-sdk/compute-go/internal/memnet"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Where a test lives, in one rule: a test of one file's code is in that file's _test.go, in package
// compute (volumes.go's in volumes_test.go); the cross-cutting suites stand alone (fault_matrix_test.go,
// the retry spec; security_test.go; hostile_server_test.go, the bounds suite; integration_test.go, the
// SDK end to end against computetest; bench_test.go; fuzz_test.go; doc_test.go, readme_test.go and
// example_test.go, the docs), and any other test that needs computetest, which imports this package,
// is in package compute_test, so in integration_test.go or, for an example, an example_*_test.go; the
// helpers that more than one test file uses are here, those that one file uses are in that file.

// testToken is the credential every test client uses; no error or log line may contain it.
const testToken = "tok-SECRET-7f3a9c1e"

// localURL is a plain-http base URL that NewClient accepts: a loopback address.
const localURL = "http://127.0.0.1:8080"

// seenRequest is what the test server saw of one attempt.
type seenRequest struct {
	Method string
	Path   string // escaped, as sent on the wire, without the query
	Query  string
	Header http.Header
	Body   []byte
}

// recorder keeps the requests a test server received.
type recorder struct {
	mu   sync.Mutex
	reqs []seenRequest
}

func (r *recorder) add(req seenRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
}

// all returns a copy of the requests seen so far.
func (r *recorder) all() []seenRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seenRequest(nil), r.reqs...)
}

// count is the number of requests seen so far.
func (r *recorder) count() int { return len(r.all()) }

// lockedBuffer is a log sink shared by goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newTestClient serves h on an in-memory network (so it works inside a testing/synctest bubble, where
// waits take no real time) and returns a client for it with the given options applied after the test
// defaults: no rate limit, retries with 1-10 ms waits, and a debug logger whose output is checked for
// the token when the test ends. Every request is recorded before h sees it.
func newTestClient(t *testing.T, h http.HandlerFunc, opts ...Option) (*Client, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv, hc, closeAll := memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.add(seenRequest{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}))
	logs := &lockedBuffer{}
	base := []Option{
		WithBaseURL(srv.URL),
		WithHTTPClient(hc),
		WithoutRateLimit(),
		WithRetry(RetryPolicy{MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond}),
		WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
	}
	c, err := NewClient(testToken, append(base, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() {
		closeAll()
		require.NotContains(t, logs.String(), testToken, "the token leaked into a log line")
	})
	return c, rec
}

// responding returns a client whose every request gets status and body from an in-process transport:
// no network, but the SDK's whole call path (retry loop, attempt transport, call, envelope decoding).
func responding(tb testing.TB, status int, body string) *Client {
	tb.Helper()
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: status,
			Header:     http.Header{"Content-Type": {"application/json"}},
			Body:       io.NopCloser(strings.NewReader(body)),
			Request:    r,
		}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}),
		WithoutRateLimit(), WithoutRetries())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// roundTripFunc is an in-process http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// clientWithDialer serves 201 responses on an in-memory listener reached through connect, which makes
// the n-th connection (from 1): it may fail without dialling, or call dial and return the connection,
// wrapped or not. It returns the client, how many requests reached the server, and how many dials
// were made.
func clientWithDialer(t *testing.T, connect func(ctx context.Context, n int32, dial func() (net.Conn, error)) (net.Conn, error), opts ...Option) (*Client, *atomic.Int32, *atomic.Int32) {
	l := memnet.NewListener()
	hits, dials := &atomic.Int32{}, &atomic.Int32{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		replyJSON(w, http.StatusCreated, map[string]any{})
	}))
	srv.Listener = l
	srv.Start()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return connect(ctx, dials.Add(1), func() (net.Conn, error) { return l.Dial(ctx, network, addr) })
	}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	c, err := NewClient(testToken, append([]Option{WithBaseURL(srv.URL), WithHTTPClient(&http.Client{Transport: tr}), defaultRetry()}, opts...)...)
	require.NoError(t, err)
	return c, hits, dials
}

// testCall sends op through the client's call path with ids filling its path and body, when not
// nil, as the JSON body, and discards the success response: for tests of the mechanics under every
// endpoint.
func testCall(ctx context.Context, c *Client, op operation, ids []string, body any) error {
	r := request{op: op, ids: ids}
	if body != nil {
		r.body = anyBody{body}
	}
	err := c.do(ctx, r, nil)
	return err
}

// anyBody sends any value as a request body, without validation.
type anyBody struct{ v any }

func (b anyBody) Validate() error              { return nil }
func (b anyBody) MarshalJSON() ([]byte, error) { return json.Marshal(b.v) }

// defaultRetry is the default retry policy: the retry tests run it inside synctest bubbles, real
// backoff values in fake time.
func defaultRetry() Option { return WithRetry(DefaultRetryPolicy()) }

// createBody is a create request's body for testCall.
var createBody = map[string]string{"name": "web-1"}

// replyJSON writes v as a JSON response with the given status.
func replyJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// replyRaw writes body verbatim with the given status.
func replyRaw(w http.ResponseWriter, status int, body string) {
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// serveJSON responds to every request with body as a 200 JSON response.
func serveJSON(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}
}

// sequence responds to the request numbered n (from 1) with first[n-1] while there is one, and every
// later request with rest.
func sequence(rest http.HandlerFunc, first ...http.HandlerFunc) http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if i := int(n.Add(1)) - 1; i < len(first) {
			first[i](w, r)
			return
		}
		rest(w, r)
	}
}

// withStatus responds with code and an empty body.
func withStatus(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
}

// rateLimited responds 429 with the given Retry-After.
func rateLimited(retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", retryAfter)
		w.WriteHeader(http.StatusTooManyRequests)
	}
}

// echoInstance responds with the golden instance under the ID its request's path ends with, as the
// service does for a GET or PATCH of one instance.
func echoInstance(t *testing.T) http.HandlerFunc {
	body := golden(t, "instance_get_response.json")
	return func(w http.ResponseWriter, r *http.Request) {
		var env map[string]map[string]any
		if err := json.Unmarshal(body, &env); err != nil {
			panic(err)
		}
		env["instance"]["id"] = path.Base(r.URL.Path)
		replyJSON(w, http.StatusOK, env)
	}
}

// instanceNotFound responds 404 with the instance's not-found code (02008).
func instanceNotFound(w http.ResponseWriter, r *http.Request) {
	replyJSON(w, http.StatusNotFound, map[string]string{"code": string(CodeInstanceNotFound), "message": "Instance not found"})
}

// hangUp closes the connection after reading the request: the request may have been processed.
func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// hangUntilGone sends no response until the client goes away.
func hangUntilGone(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(time.Hour):
	}
}

// universalResponse is a success body that every operation can decode: each envelope key, with the
// statuses the waiters await.
const universalResponse = `{
 "id": "k-1",
 "instance": {"id": "i-1", "status": "active"},
 "snapshot": {"id": "s-1", "status": "created"},
 "security_group": {"id": "sg-1", "status": "created"},
 "floating_ip": {"id": "f-1", "status": "created"},
 "volume": {"id": "v-1", "status": "created"},
 "filesystem": {"id": "fs-1", "status": "created"},
 "availability": {"type": "instances", "region": "r1", "instance_types": []},
 "instances": [], "snapshots": [], "security_groups": [], "floating_ips": [], "images": [],
 "ssh_keys": [], "volumes": [], "filesystems": [], "quotas": [], "reservations": [],
 "actions": ["stop"],
 "total_count": 0, "page": 1, "per_page": 50
}`

// statusServer responses GET /compute/v1/instances/{id} with the given statuses in turn, the last one
// repeated; a numeric "status" entry (such as "503") responses that HTTP error instead. It records
// the fake time of each request since start.
type statusServer struct {
	mu       sync.Mutex
	statuses []string
	start    time.Time
	at       []time.Duration
}

func (s *statusServer) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.at = append(s.at, time.Since(s.start))
	st := s.statuses[0]
	if len(s.statuses) > 1 {
		s.statuses = s.statuses[1:]
	}
	s.mu.Unlock()
	switch st {
	case "403":
		replyJSON(w, http.StatusForbidden, map[string]string{"code": "02043", "message": "Permission denied"})
	case "404":
		replyJSON(w, http.StatusNotFound, map[string]string{"code": "02008", "message": "Instance not found"})
	case "503":
		replyJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "02004", "message": "busy"})
	case "html404": // a proxy's or a gateway's page
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html><body>404 Not Found</body></html>"))
	default:
		replyJSON(w, http.StatusOK, map[string]any{"instance": map[string]any{"id": "i-1", "name": "web-1", "status": st}})
	}
}

func (s *statusServer) times() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.at...)
}

// newStatusServer must be called inside the synctest bubble, so that start is fake time.
func newStatusServer(statuses ...string) *statusServer {
	return &statusServer{statuses: statuses, start: time.Now()}
}

// boundedCtx bounds a wait in fake time, so that a regression fails the test instead of polling
// forever.
func boundedCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	t.Cleanup(cancel)
	return ctx
}

// requireNoToken fails when s contains the test token.
func requireNoToken(t *testing.T, s string) {
	t.Helper()
	require.False(t, strings.Contains(strings.ToLower(s), strings.ToLower(testToken)), "the token leaked: %s", s)
}

// requireInvalid asserts that err is a *ValidationError about field and that no request was sent.
func requireInvalid(t *testing.T, err error, field string, rec *recorder) {
	t.Helper()
	require.Error(t, err)
	var verr *ValidationError
	require.True(t, errors.As(err, &verr), "want a *ValidationError, got %T: %v", err, err)
	assert.Equal(t, field, verr.Field, "reason: %s", verr.Reason)
	assert.True(t, errors.Is(err, ErrInvalidRequest))
	assert.Equal(t, 0, rec.count(), "a request was sent")
}

// refusedCase is one input the SDK must refuse, naming field, before sending anything.
type refusedCase struct {
	name  string
	field string
	call  func(ctx context.Context, c *Client) error
}

// runRefused runs every case against a server that must never be reached.
func runRefused(t *testing.T, cases []refusedCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				replyRaw(w, http.StatusInternalServerError, "the request should have been refused")
			})
			requireInvalid(t, tc.call(context.Background(), c), tc.field, rec)
		})
	}
}

// validationCase is a request that Validate must refuse, naming field.
type validationCase struct {
	v     validator
	field string
}

// requireValidationFields checks that Validate refuses each request with a *ValidationError naming
// its field.
func requireValidationFields(t *testing.T, cases map[string]validationCase) {
	t.Helper()
	for name, tc := range cases {
		err := tc.v.Validate()
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, tc.field, ve.Field, name)
	}
}

// noErr drops a call's result and keeps its error.
func noErr[T any](_ T, err error) error { return err }

// golden returns the content of testdata/name.
func golden(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(tb, err)
	return b
}

// goldenCase is one operation's golden test: the exact request it must send, and a contract-shaped
// response it must decode. Every request and response body is a literal file under testdata/,
// written from the contract (compute-api.md, and compute-api-extended.md for the operations it adds).
type goldenCase struct {
	// name names the subtest, after the operation ("instance_create").
	name string
	// method, path and query are what the server must see (path escaped, query encoded).
	method, path, query string
	// reqFile is the testdata file holding the expected JSON body; "" means no body may be sent.
	reqFile string
	// status and respFile are the response; respFile "" responses an empty body.
	status   int
	respFile string
	// call performs the operation and returns its result (nil for none).
	call func(ctx context.Context, c *Client) (any, error)
	// check, when set, verifies the result against the decoded response file.
	check func(t *testing.T, result any, respBody []byte)
}

// goldenSeen records "METHOD /escaped/path" of every request a golden case checked.
var goldenSeen sync.Map

// runGolden runs gc against a test server and asserts the request byte for byte (JSON-equal body).
func runGolden(t *testing.T, gc goldenCase) {
	t.Helper()
	var respBody []byte
	if gc.respFile != "" {
		respBody = golden(t, gc.respFile)
	}
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if respBody == nil {
			w.WriteHeader(gc.status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(gc.status)
		_, _ = w.Write(respBody)
	})
	result, err := gc.call(context.Background(), c)
	require.NoError(t, err)
	reqs := rec.all()
	require.Len(t, reqs, 1)
	got := reqs[0]
	require.Equal(t, gc.method, got.Method)
	require.Equal(t, gc.path, got.Path)
	require.Equal(t, gc.query, got.Query)
	goldenSeen.Store(got.Method+" "+got.Path, true)
	require.Equal(t, "application/json", got.Header.Get("Accept"))
	if gc.reqFile == "" {
		require.Empty(t, got.Body, "no body expected")
		require.Empty(t, got.Header.Get("Content-Type"))
	} else {
		require.Equal(t, "application/json", got.Header.Get("Content-Type"))
		require.JSONEq(t, string(golden(t, gc.reqFile)), string(got.Body))
	}
	if gc.check != nil {
		gc.check(t, result, respBody)
	}
}

// runGoldenCases runs each case as a parallel subtest.
func runGoldenCases(t *testing.T, cases []goldenCase) {
	t.Helper()
	for _, gc := range cases {
		t.Run(gc.name, func(t *testing.T) {
			t.Parallel()
			runGolden(t, gc)
		})
	}
}

// envelopeItem returns the object under key in a golden response; for a list response (an array under
// key) it returns the first element.
func envelopeItem(t *testing.T, respBody []byte, key string) []byte {
	t.Helper()
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(respBody, &env))
	raw, ok := env[key]
	require.True(t, ok, "golden response has no %q", key)
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		var items []json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &items))
		require.NotEmpty(t, items)
		return items[0]
	}
	return raw
}

// requireFullyMapped decodes obj strictly into a T and fails when a JSON key of obj has no field in T
// (an unmapped key), when a field of T has no key in obj, or when a field decodes to its zero value
// (a key silently not mapped). Golden responses therefore give every field a non-zero value; fields
// named in zeroOK (Go names) may stay zero (a golden null). It returns the decoded value.
func requireFullyMapped[T any](t *testing.T, obj []byte, zeroOK ...string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&v), "a JSON key of the golden response is not mapped to a field")
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &keys))
	rv := reflect.ValueOf(v)
	require.Equal(t, rv.NumField(), len(keys), "the type has %d fields, the golden object %d keys", rv.NumField(), len(keys))
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Type().Field(i)
		if !f.IsExported() || slices.Contains(zeroOK, f.Name) {
			continue
		}
		require.False(t, rv.Field(i).IsZero(), "field %s decoded to its zero value: is its JSON key mapped?", f.Name)
	}
	return v
}

// strictDecode decodes obj into a T and fails when a JSON key has no field in T: a golden key the
// SDK does not map (a wrong tag) fails here, whatever the SDK's own encoder would write.
func strictDecode[T any](t *testing.T, obj []byte) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&v), "a JSON key of the golden response is not mapped to a field")
	return v
}

// checkOne checks a single-resource result against the golden response: the object under key, or
// the whole body when key is "" (an unwrapped response). full also requires every field of T to be
// present and non-zero in the golden object (except zeroOK).
func checkOne[T any](key string, full bool, zeroOK ...string) func(*testing.T, any, []byte) {
	return func(t *testing.T, result any, respBody []byte) {
		t.Helper()
		obj := respBody
		if key != "" {
			obj = envelopeItem(t, respBody, key)
		}
		want := strictDecode[T](t, obj)
		if full {
			want = requireFullyMapped[T](t, obj, zeroOK...)
		}
		got, ok := result.(*T)
		require.True(t, ok, "result is %T", result)
		require.NotNil(t, got)
		require.Equal(t, want, *got)
	}
}

// checkPage checks a page result: its items decode exactly as the golden list and its counts are
// the golden ones.
func checkPage[T any](key string, total, page, perPage int) func(*testing.T, any, []byte) {
	return func(t *testing.T, result any, respBody []byte) {
		t.Helper()
		var env map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(respBody, &env))
		want := strictDecode[[]T](t, env[key])
		p, ok := result.(*Page[T])
		require.True(t, ok, "result is %T", result)
		require.Equal(t, want, p.Items)
		assert.Equal(t, total, p.TotalCount)
		assert.Equal(t, page, p.Page)
		assert.Equal(t, perPage, p.PerPage)
	}
}

// checkInstance compares the SDK's result with the instance of the golden response, decoded strictly.
func checkInstance(t *testing.T, result any, respBody []byte) {
	t.Helper()
	want := requireFullyMapped[Instance](t, envelopeItem(t, respBody, "instance"))
	got, ok := result.(*Instance)
	require.True(t, ok, "result is %T", result)
	require.NotNil(t, got)
	require.Equal(t, want, *got)
}

// validCreate returns a create request that passes validation; tests break one rule at a time.
func validCreate() *InstanceCreateRequest {
	return &InstanceCreateRequest{
		Name: "web-1", Hostname: "web-1", Type: "n1.large", Region: "eu-west-1", Image: "img-1",
		SSHKeys: []string{"key-1"},
	}
}

// declaredOperations is "METHOD /path" of every entry of the operation table but the description
// document itself (openapi.yaml), each once, in the order declared.
func declaredOperations() ([]string, error) {
	var declared []string
	for _, op := range operations {
		if e := op.method + " " + op.path; e != "GET /compute/v1/openapi.yaml" && !slices.Contains(declared, e) {
			declared = append(declared, e)
		}
	}
	return declared, nil
}

// firstErr drains a sequence and returns its first error.
func firstErr[T any](seq iter.Seq2[T, error]) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// pagedServer serves total things in pages, honouring page and per_page (default 2) unless
// ignorePage is set, and reports which pages were asked through asked.
func pagedServer(total int, ignorePage bool, asked chan<- int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page == 0 || ignorePage {
			page = 1
		}
		perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		if perPage == 0 {
			perPage = 2
		}
		if asked != nil {
			asked <- page
		}
		items := []thing{}
		for i := (page - 1) * perPage; i < min(page*perPage, total); i++ {
			items = append(items, thing{ID: fmt.Sprintf("t%d", i+1)})
		}
		replyJSON(w, 200, map[string]any{"instances": items, "total_count": total, "page": page, "per_page": perPage})
	}
}
