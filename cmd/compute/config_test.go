package main

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenAndURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		env    func(h *cli) map[string]string
		args   func(t *testing.T, h *cli) []string
		code   int
		stderr string
	}{
		{name: "the token from COMPUTE_API_TOKEN", code: exitOK},
		{name: "the token from --token-file, its newline trimmed",
			env: func(h *cli) map[string]string { return map[string]string{compute.EnvBaseURL: h.srv.URL} },
			args: func(t *testing.T, h *cli) []string {
				return []string{"--token-file", writeFile(t, "token", h.srv.Token+"\n")}
			}, code: exitOK},
		{name: "--token-file wins over COMPUTE_API_TOKEN",
			env: func(h *cli) map[string]string {
				return map[string]string{compute.EnvBaseURL: h.srv.URL, compute.EnvToken: "not-the-token"}
			},
			args: func(t *testing.T, h *cli) []string {
				return []string{"--token-file", writeFile(t, "token", h.srv.Token)}
			}, code: exitOK},
		{name: "--api-url wins over COMPUTE_API_URL",
			env: func(h *cli) map[string]string {
				return map[string]string{compute.EnvBaseURL: "http://127.0.0.1:9/nowhere", compute.EnvToken: h.srv.Token}
			},
			args: func(_ *testing.T, h *cli) []string { return []string{"--api-url", h.srv.URL} }, code: exitOK},
		{name: "no token", env: func(h *cli) map[string]string { return map[string]string{compute.EnvBaseURL: h.srv.URL} },
			code: exitUsage, stderr: "no API token: set COMPUTE_API_TOKEN, pass --token-file, or create a context (compute context create); there is no --token flag"},
		{name: "an empty token file", args: func(t *testing.T, _ *cli) []string {
			return []string{"--token-file", writeFile(t, "token", "\n")}
		}, code: exitUsage, stderr: "is empty"},
		{name: "a token file that cannot be read", args: func(t *testing.T, _ *cli) []string {
			return []string{"--token-file", t.TempDir() + "/missing"}
		}, code: exitUsage, stderr: "cannot read --token-file"},
		{name: "a token with a control character", args: func(t *testing.T, _ *cli) []string {
			return []string{"--token-file", writeFile(t, "token", "secret\x07token")}
		}, code: exitUsage, stderr: "cannot use the token from --token-file"},
		{name: "no URL", env: func(h *cli) map[string]string { return map[string]string{compute.EnvToken: h.srv.Token} },
			code: exitUsage, stderr: "no API URL: set COMPUTE_API_URL, pass --api-url, or create a context"},
		{name: "a URL the SDK refuses",
			env: func(h *cli) map[string]string {
				return map[string]string{compute.EnvBaseURL: "http://api.example.com", compute.EnvToken: h.srv.Token}
			}, code: exitUsage, stderr: "cannot use the token from COMPUTE_API_TOKEN with the URL from COMPUTE_API_URL"},
		{name: "a token the service refuses",
			env: func(h *cli) map[string]string {
				return map[string]string{compute.EnvBaseURL: h.srv.URL, compute.EnvToken: "wrong-token-0123456789"}
			}, code: exitOther, stderr: "401"},
		{name: "a negative --rate", args: func(*testing.T, *cli) []string { return []string{"--rate", "-1"} },
			code: exitUsage, stderr: "invalid --rate -1"},
		{name: "a --rate that is not a number", args: func(*testing.T, *cli) []string { return []string{"--rate", "NaN"} },
			code: exitUsage, stderr: "invalid --rate NaN"},
		{name: "a --rate so low a call would wait for ever", args: func(*testing.T, *cli) []string { return []string{"--rate", "1e-300"} },
			code: exitUsage, stderr: "at least 0.1"},
		{name: "a blank token", env: func(h *cli) map[string]string {
			return map[string]string{compute.EnvBaseURL: h.srv.URL, compute.EnvToken: "   "}
		}, code: exitUsage, stderr: "the API token is empty"},
		{name: "a token file with trailing spaces", args: func(t *testing.T, _ *cli) []string {
			return []string{"--token-file", writeFile(t, "token", "secret-token  \n")}
		}, code: exitUsage, stderr: "white space"},
		{name: "a negative --timeout", args: func(*testing.T, *cli) []string { return []string{"--timeout", "-1s"} },
			code: exitUsage, stderr: "invalid --timeout -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newCLI(t)
			if tc.env != nil {
				h.env = tc.env(h)
			}
			args := []string{"ssh-key", "list", "-o", "id"}
			if tc.args != nil {
				args = append(args, tc.args(t, h)...)
			}
			r := h.run(args...)
			assert.Equal(t, tc.code, r.code, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.NotContains(t, r.stderr, "secret\x07token")
			if tc.code == exitOK {
				assert.Equal(t, "key-laptop\nkey-ci\n", r.stdout)
				for _, req := range h.srv.Requests() {
					assert.Equal(t, "bearer", req.Auth)
				}
			} else if tc.code == exitUsage {
				assert.Empty(t, h.requests(), "nothing is sent")
			}
		})
	}
}

// --rate paces the requests of one command (the fake's clock is synctest's, so the times are
// exact); --rate 0 does not.
func TestRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate string
		gap  time.Duration
	}{
		{"2", 500 * time.Millisecond},
		{"0", 0},
	} {
		synctest.Test(t, func(t *testing.T) {
			h := newCLI(t, computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now))
			h.pace = true
			r := h.run(append(createWeb2, "--wait", "--rate", tc.rate)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			reqs := h.srv.Requests()
			require.Len(t, reqs, 3)
			for i := 1; i < len(reqs); i++ {
				gap := reqs[i].Time.Sub(reqs[i-1].Time)
				if tc.gap == 0 {
					assert.Zero(t, gap, "--rate 0: no pacing")
				} else {
					assert.InDelta(t, tc.gap.Seconds(), gap.Seconds(), 0.01, "--rate %s: request %d", tc.rate, i)
				}
			}
		})
	}
}

// countingLimiter lets every request through and counts them.
type countingLimiter struct{ waits atomic.Int32 }

func (l *countingLimiter) Wait(context.Context) (func(), error) {
	l.waits.Add(1)
	return nil, nil
}

func (l *countingLimiter) Throttled(context.Context, time.Duration) {}

// With COMPUTE_REDIS_URL set, every request waits in the limiter built for that Redis, the token
// and --rate; its troubles are warnings on stderr.
func TestRedisLimiterIsUsed(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	h.env[envRedisURL] = "redis://127.0.0.1:6379/2"
	lim := &countingLimiter{}
	var gotURL, gotToken string
	var gotRate float64
	closed := false
	h.redis = func(rawURL, token string, rps float64, warn func(error)) (compute.Limiter, func(), error) {
		gotURL, gotToken, gotRate = rawURL, token, rps
		warn(errors.New("dial tcp 127.0.0.1:6379: connection refused"))
		warn(nil)
		return lim, func() { closed = true }, nil
	}
	r := h.run(append(createWeb2, "--wait", "--rate", "4")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "redis://127.0.0.1:6379/2", gotURL)
	assert.Equal(t, h.srv.Token, gotToken)
	assert.InDelta(t, 4.0, gotRate, 0)
	assert.Equal(t, int32(len(h.srv.Requests())), lim.waits.Load(), "every request waits in the shared limiter")
	assert.True(t, closed, "the Redis client is closed at the end")
	assert.Contains(t, r.stderr, "compute: warning: the rate limit shared through Redis is unavailable, pacing this process alone: dial tcp")
	assert.Contains(t, r.stderr, "compute: warning: the rate limit shared through Redis is available again")
}

func TestRedisConfigurationErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url    string
		args   []string
		stderr string
	}{
		{"http://127.0.0.1:6379", nil, "invalid COMPUTE_REDIS_URL: redis: invalid URL scheme: http"},
		{"redis://:hunter%zz2@127.0.0.1:6379/0", nil, "invalid COMPUTE_REDIS_URL"},
		{"redis://127.0.0.1:6379/0", []string{"--rate", "0"}, "--rate 0 turns pacing off"},
	} {
		h := newCLI(t)
		h.env[envRedisURL] = tc.url
		r := h.run(append([]string{"ssh-key", "list"}, tc.args...)...)
		assert.Equal(t, exitUsage, r.code, r.stderr)
		assert.Contains(t, r.stderr, tc.stderr)
		assert.NotContains(t, r.stderr, "hunter", "the Redis password is never printed")
		assert.Empty(t, h.requests())
	}
}

// The real Redis limiter against a Redis that is not there: the command still runs, paced by the
// local fallback, and says so once on stderr.
func TestRedisDownFallsBack(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	h.pace = true
	h.env[envRedisURL] = "redis://127.0.0.1:1/0" // nothing listens on port 1
	r := h.run("ssh-key", "list", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "key-laptop\nkey-ci\n", r.stdout)
	assert.Contains(t, r.stderr, "compute: warning: the rate limit shared through Redis is unavailable, pacing this process alone")
	assert.Equal(t, 1, strings.Count(r.stderr, "is unavailable"), "once")
}

// Plain http to an address that is not loopback is refused with advice the command line can follow.
func TestInsecureHTTPAdvice(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run("ssh-key", "list", "--api-url", "http://192.0.2.1:8080")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "use https, or pass --insecure-http for a development address")
	assert.NotContains(t, r.stderr, "WithInsecureHTTP")
}
