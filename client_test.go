package compute

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientRefusesBadInput(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		token string
		opts  []Option
		want  string
	}{
		"empty token":         {"", []Option{WithBaseURL(localURL)}, "token is empty"},
		"blank token":         {"   ", []Option{WithBaseURL(localURL)}, "token is empty"},
		"token with a space":  {testToken + " ", []Option{WithBaseURL(localURL)}, "white space"},
		"token with newline":  {testToken + "\r\nX-Evil: 1", []Option{WithBaseURL(localURL)}, "control characters"},
		"no base URL":         {testToken, nil, "WithBaseURL or set COMPUTE_API_URL"},
		"empty base URL":      {testToken, []Option{WithBaseURL("")}, "empty URL"},
		"relative URL":        {testToken, []Option{WithBaseURL("api.example.com")}, "not an absolute http(s) URL"},
		"ftp URL":             {testToken, []Option{WithBaseURL("ftp://api.example.com")}, "not an absolute http(s) URL"},
		"URL with query":      {testToken, []Option{WithBaseURL("https://api.example.com/?a=b")}, "query"},
		"URL with userinfo":   {testToken, []Option{WithBaseURL("https://u:p@api.example.com")}, "credentials"},
		"plain http remote":   {testToken, []Option{WithBaseURL("http://api.example.com")}, "in clear"},
		"nil http client":     {testToken, []Option{WithBaseURL(localURL), WithHTTPClient(nil)}, "nil *http.Client"},
		"zero timeout":        {testToken, []Option{WithBaseURL(localURL), WithTimeout(0)}, "not positive"},
		"zero rate":           {testToken, []Option{WithBaseURL(localURL), WithRateLimit(0, 1)}, "rps must be > 0"},
		"zero burst":          {testToken, []Option{WithBaseURL(localURL), WithRateLimit(5, 0)}, "burst >= 1"},
		"negative retries":    {testToken, []Option{WithBaseURL(localURL), WithRetry(RetryPolicy{MaxRetries: -1})}, "negative"},
		"max below min":       {testToken, []Option{WithBaseURL(localURL), WithRetry(RetryPolicy{MinWait: time.Second, MaxWait: time.Millisecond})}, "below MinWait"},
		"user agent newline":  {testToken, []Option{WithBaseURL(localURL), WithUserAgent("a\nb")}, "control characters"},
		"nil logger":          {testToken, []Option{WithBaseURL(localURL), WithLogger(nil)}, "nil logger"},
		"unparsable base URL": {testToken, []Option{WithBaseURL("https://[::1")}, "WithBaseURL"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(tc.token, tc.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tc.want)
			requireNoToken(t, err.Error())
		})
	}
}

func TestNewClientAcceptsLoopbackAndOptIn(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://127.0.0.1:9", "http://localhost:9/", "http://[::1]:9", "https://api.example.com/base/"} {
		_, err := NewClient(testToken, WithBaseURL(u))
		assert.NoError(t, err, u)
	}
	_, err := NewClient(testToken, WithBaseURL("http://10.0.0.5"), WithInsecureHTTP())
	assert.NoError(t, err)
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com/base/"), nil)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/base", c.baseURL, "a trailing slash is dropped")
}

func TestNewClientFromEnv(t *testing.T) {
	t.Setenv(EnvToken, "")
	t.Setenv(EnvBaseURL, "")
	_, err := NewClientFromEnv()
	require.ErrorContains(t, err, "COMPUTE_API_TOKEN is not set")

	t.Setenv(EnvToken, testToken)
	_, err = NewClientFromEnv()
	require.ErrorContains(t, err, "COMPUTE_API_URL")

	t.Setenv(EnvBaseURL, "https://env.example.com")
	c, err := NewClientFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "https://env.example.com", c.baseURL)

	c, err = NewClientFromEnv(WithBaseURL("https://option.example.com"))
	require.NoError(t, err)
	assert.Equal(t, "https://option.example.com", c.baseURL, "an explicit option wins over the variable")
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) },
		WithUserAgent("my-tool/1.2"))
	ctx := context.Background()
	require.NoError(t, testCall(ctx, c, opGetInstance, []string{"i"}, nil))
	require.NoError(t, testCall(ctx, c, opCreateFloatingIP, nil, map[string]string{"name": "n"}))
	get, post := rec.all()[0], rec.all()[1]
	for _, r := range []seenRequest{get, post} {
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		assert.Equal(t, "compute-go/"+Version+" my-tool/1.2", r.Header.Get("User-Agent"))
		assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
		assert.Empty(t, r.Header.Get("X-Auth-Token"))
	}
	assert.Empty(t, get.Header.Get("Content-Type"), "no body, no content type")
	assert.Equal(t, "application/json", post.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"name":"n"}`, string(post.Body))
}

func TestLegacyAuthHeader(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }, WithLegacyAuthHeader())
	require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
	h := rec.all()[0].Header
	assert.Equal(t, testToken, h.Get("X-Auth-Token"))
	assert.Empty(t, h.Get("Authorization"))
}

func TestDefaultUserAgent(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
	assert.Equal(t, "compute-go/"+Version, rec.all()[0].Header.Get("User-Agent"))
}

// recordingTransport is a caller's transport; the test checks it is used but never replaced.
type recordingTransport struct {
	mu    sync.Mutex
	calls int
	next  http.RoundTripper
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func TestWithHTTPClientIsCopiedNeverMutated(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	t.Cleanup(srv.Close)
	rt := &recordingTransport{next: http.DefaultTransport}
	hc := &http.Client{Transport: rt, Timeout: 7 * time.Second}
	c, err := NewClient(testToken, WithBaseURL(srv.URL), WithHTTPClient(hc), WithoutRateLimit())
	require.NoError(t, err)
	require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
	assert.Same(t, rt, hc.Transport, "the caller's client keeps its transport")
	assert.Equal(t, 7*time.Second, hc.Timeout)
	assert.Nil(t, hc.CheckRedirect)
	assert.Equal(t, 1, rt.calls, "the caller's transport carries the request")
}

// TestConcurrentUse shares one client between goroutines under -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": strings.TrimPrefix(r.URL.Path, "/compute/v1/instances/")}})
	})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			id := fmt.Sprintf("i-%d", i)
			out, err := c.Instances.Get(context.Background(), id)
			assert.NoError(t, err)
			assert.Equal(t, id, out.ID)
		})
	}
	wg.Wait()
	assert.Equal(t, 16, rec.count())
}

// TestBaseURLEndingInTheAPIPrefix: a base URL that ends in /compute/v1, as the service's other
// clients write it, reaches the same paths as the host alone; another path is kept as a prefix, with
// or without a trailing slash, percent-encoded slashes included.
func TestBaseURLEndingInTheAPIPrefix(t *testing.T) {
	t.Parallel()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.EscapedPath())
		http.Error(w, `{"code":"02008","message":"instance not found"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	for base, want := range map[string]string{
		srv.URL:                    "/compute/v1/instances/ins-1",
		srv.URL + "/":              "/compute/v1/instances/ins-1",
		srv.URL + "/compute/v1":    "/compute/v1/instances/ins-1",
		srv.URL + "/compute/v1/":   "/compute/v1/instances/ins-1",
		srv.URL + "/gw":            "/gw/compute/v1/instances/ins-1",
		srv.URL + "/api/":          "/api/compute/v1/instances/ins-1",
		srv.URL + "/gw/compute/v1": "/gw/compute/v1/instances/ins-1",
		srv.URL + "/a%2Fb/":        "/a%2Fb/compute/v1/instances/ins-1",
	} {
		got = nil
		c, err := NewClient("tok", WithBaseURL(base), WithoutRateLimit())
		require.NoError(t, err, base)
		_, err = c.Instances.Get(context.Background(), "ins-1")
		require.ErrorIs(t, err, ErrNotFound, base)
		assert.Equal(t, []string{want}, got, base)
	}
}

// TestBaseURLWithAFragmentIsRefused: a fragment is not part of a base URL.
func TestBaseURLWithAFragmentIsRefused(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"https://api.example.com/#frag", "https://api.example.com#x"} {
		_, err := NewClient(testToken, WithBaseURL(u))
		require.ErrorContains(t, err, "fragment", u)
	}
}
