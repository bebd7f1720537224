package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compute-sdk/compute-go/internal/memnet"
	"github.com/stretchr/testify/require"
)

// testToken is the credential every test client uses; no error or log line may contain it.
const testToken = "tok-SECRET-7f3a9c1e"

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

// replyJSON writes v as a JSON response with the given status.
func replyJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
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

// replyRaw writes body verbatim with the given status.
func replyRaw(w http.ResponseWriter, status int, body string) {
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// golden returns the content of testdata/name.
func golden(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(tb, err)
	return b
}

// requireNoToken fails when s contains the test token.
func requireNoToken(t *testing.T, s string) {
	t.Helper()
	require.False(t, strings.Contains(s, testToken), "the token leaked: %s", s)
}

// testCall sends op through the client's call path with ids filling its path and body, when not
// nil, as the JSON body, and discards the success response: for tests of the mechanics under every
// endpoint.
func testCall(ctx context.Context, c *Client, op operation, ids []string, body any) error {
	r := request{op: op, ids: ids}
	if body != nil {
		r.body = anyBody{body}
	}
	_, err := c.do(ctx, r)
	return err
}

// anyBody sends any value as a request body, without validation.
type anyBody struct{ v any }

func (b anyBody) Validate() error              { return nil }
func (b anyBody) MarshalJSON() ([]byte, error) { return json.Marshal(b.v) }
