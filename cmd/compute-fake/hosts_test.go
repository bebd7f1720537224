package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bound to loopback, the fake answers only Host names that are loopback, so that a web page cannot
// reach it through DNS rebinding (its own name resolved to 127.0.0.1); -allow-hosts adds names.
func TestHostAllowed(t *testing.T) {
	for _, host := range []string{"127.0.0.1:8080", "127.0.0.1", "127.9.8.7:1", "localhost:8080", "LocalHost",
		"localhost.", "[::1]:8080", "[::1]"} {
		assert.True(t, hostAllowed(host, nil), host)
	}
	for _, host := range []string{"evil.example:8080", "evil.example", "", "127.0.0.1.evil.example:8080",
		"localhost.evil.example", "0.0.0.0:8080", "10.1.2.3:8080", "[::]:8080", "[fe80::1]:8080", "::1"} {
		assert.False(t, hostAllowed(host, nil), host)
	}
	allowed := []string{"fake.internal", "fe80::1"}
	for _, host := range []string{"fake.internal:8080", "FAKE.internal", "[fe80::1]:8080", "localhost:1"} {
		assert.True(t, hostAllowed(host, allowed), host)
	}
	assert.False(t, hostAllowed("other.internal:8080", allowed))
	assert.True(t, hostAllowed("evil.example:8080", []string{"*"}), "* answers any name")
}

// An allowed name admits that name only, in any case, with or without a port or the root's dot:
// neither a name that ends with it (evilexample.com, which anyone may register) nor its subdomains
// (api.example.com), which must be listed each.
func TestAllowedHostIsMatchedWhole(t *testing.T) {
	allowed := []string{"example.com"}
	for _, host := range []string{"example.com", "EXAMPLE.com:8080", "example.com."} {
		assert.True(t, hostAllowed(host, allowed), host)
	}
	for _, host := range []string{"evilexample.com", "evilexample.com:8080", "api.example.com", "xample.com",
		"example.com.evil", "example.co", "example.comm", "com", "evil-example.com", "example.com.example.net"} {
		assert.False(t, hostAllowed(host, allowed), host)
	}
	assert.True(t, hostAllowed("api.example.com:8080", []string{"example.com", "api.example.com"}))
}

func TestHostsGuardOnlyALoopbackListener(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	get := func(h http.Handler, host string) int {
		r := httptest.NewRequest(http.MethodGet, "/compute/v1/images", nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	lo := guardHosts(api, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, nil)
	assert.Equal(t, http.StatusNoContent, get(lo, "127.0.0.1:8080"))
	assert.Equal(t, http.StatusMisdirectedRequest, get(lo, "evil.example:8080"))
	beyond := guardHosts(api, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}, nil)
	assert.Equal(t, http.StatusNoContent, get(beyond, "evil.example:8080"), "listening beyond loopback, names are the user's")
}

// The running fake refuses a foreign Host on the API and on the control endpoint, with the API's
// error body, and -allow-hosts (or COMPUTE_FAKE_ALLOW_HOSTS) lets one in.
func TestForeignHostRefused(t *testing.T) {
	ctx := context.Background()
	sendAs := func(p *inProcess, host string, c apiCall) response {
		t.Helper()
		hc := &http.Client{Transport: hostTransport{host}}
		return send(ctx, t, hc, p.url, computetest.DefaultToken, c)
	}
	p := startInProcess(t, "-rate", "0", "-control-token", "fake-control")
	for _, c := range []apiCall{listImages, readLog} {
		a := sendAs(p, "evil.example:8080", c)
		require.Equal(t, http.StatusMisdirectedRequest, a.status, a.raw)
		e := decodeAs[apiError](t, a)
		require.NotEmpty(t, e.Code)
		require.Contains(t, e.Message, "-allow-hosts")
		a = sendAs(p, "localhost:8080", c)
		require.Equal(t, http.StatusOK, a.status, a.raw)
	}

	p = startWithEnv(t, env(map[string]string{envHosts: "fake.internal"}), "-rate", "0", "-allow-hosts", "evil.example, other.example")
	require.Equal(t, http.StatusOK, sendAs(p, "evil.example:8080", listImages).status)
	require.Equal(t, http.StatusOK, sendAs(p, "other.example", listImages).status)
	require.Equal(t, http.StatusMisdirectedRequest, sendAs(p, "fake.internal", listImages).status, "the flag wins over the variable")
	p = startWithEnv(t, env(map[string]string{envHosts: "fake.internal"}), "-rate", "0")
	require.Equal(t, http.StatusOK, sendAs(p, "fake.internal", listImages).status)
}

// hostTransport sends every request with the Host header host, as a browser does after DNS
// rebinding: the name is the page's, the address loopback.
type hostTransport struct{ host string }

func (h hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = h.host
	return http.DefaultTransport.RoundTrip(r)
}
