package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/compute-sdk/compute-go/internal/latesend"
	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// count429 counts the 429s the fake answered since its log was last reset.
func count429(srv *computetest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Status == http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

// pacedCLI is a CLI whose runs pace as main's do (the machine-wide file included), against a fake
// that holds the token to 10 requests a second with no burst.
func pacedCLI(t *testing.T) *cli {
	t.Helper()
	h := newCLI(t, computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now), computetest.WithRateLimit(10, 1))
	h.pace = true
	h.fileLimiter = true
	h.env["HOME"] = t.TempDir()
	return h
}

// Commands run one after the other share the token's pace through a file in the user's cache
// directory, as separate processes do: ten back to back draw no 429 from a service that allows no
// burst, and take what the rate allows. Each pacing alone (COMPUTE_RATE_DIR=off), they draw 429s.
func TestMachineWidePacing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := pacedCLI(t)
		time.Sleep(time.Second)
		start := time.Now()
		for range 10 {
			r := h.run("ssh-key", "get", "key-ci", "-o", "id")
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Empty(t, r.stderr)
		}
		assert.Zero(t, count429(h.srv), "no 429 with the machine-wide pacing")
		assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond, "paced at the rate")
		entries, err := os.ReadDir(filepath.Join(h.env["HOME"], ".cache", "compute-go", "ratelimit"))
		require.NoError(t, err, "the budget's file is in the user's cache directory")
		assert.Len(t, entries, 1)

		time.Sleep(2 * time.Second)
		h.srv.ResetRequests()
		h.env["COMPUTE_RATE_DIR"] = "off"
		for range 5 {
			r := h.run("ssh-key", "get", "key-ci", "-o", "id")
			require.Equal(t, exitOK, r.code, r.stderr)
		}
		assert.Positive(t, count429(h.srv), "each process alone draws 429s")
	})
}

// COMPUTE_RATE_DIR puts the budget's file elsewhere; a directory that cannot be made or written
// leaves each process pacing alone, said once on stderr, and the command still works. With
// COMPUTE_REDIS_URL, Redis paces, not the file.
func TestMachineWidePacingDirectory(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := pacedCLI(t)
		dir := filepath.Join(t.TempDir(), "rate")
		h.env["COMPUTE_RATE_DIR"] = dir
		r := h.run("ssh-key", "get", "key-ci", "-o", "id")
		require.Equal(t, exitOK, r.code, r.stderr)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 1)

		// A directory that cannot be made, even by root: its parent is a file.
		h.env["COMPUTE_RATE_DIR"] = filepath.Join(writeFile(t, "not-a-dir", ""), "rate")
		r = h.run("ssh-key", "get", "key-ci", "-o", "id")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stderr, "compute: warning: the rate limit shared by this machine's processes is unavailable, pacing this process alone")
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "said once: %q", r.stderr)

		var redisUsed bool
		h.redis = func(string, string, float64, func(error)) (compute.Limiter, func(), error) {
			redisUsed = true
			lim, err := compute.NewLimiter(10, 1)
			return lim, func() {}, err
		}
		h.env["COMPUTE_RATE_DIR"] = filepath.Join(t.TempDir(), "unused")
		h.env[envRedisURL] = "redis://127.0.0.1:1/0"
		r = h.run("ssh-key", "get", "key-ci", "-o", "id")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.True(t, redisUsed, "Redis paces")
		_, err = os.Stat(h.env["COMPUTE_RATE_DIR"])
		assert.ErrorIs(t, err, os.ErrNotExist, "the file is not used")
	})
}

// A budget file that the limiter did not write (garbage here) is refused and replaced, and the
// processes go on sharing the pace through the new one: the warning says so, once, with the file's
// path, and does not claim that this process paces alone.
func TestMachineWidePacingRefusedFile(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := pacedCLI(t)
		dir := filepath.Join(t.TempDir(), "rate")
		h.env["COMPUTE_RATE_DIR"] = dir
		require.NoError(t, os.MkdirAll(dir, 0o700))
		path := filepath.Join(dir, ratelimitfile.Name(h.srv.Token))
		require.NoError(t, os.WriteFile(path, []byte("not a budget"), 0o600))

		r := h.run("ssh-key", "get", "key-ci", "-o", "id")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
		assert.Contains(t, r.stderr, "compute: warning: the rate limit shared by this machine's processes starts afresh")
		assert.Contains(t, r.stderr, path)
		assert.NotContains(t, r.stderr, "unavailable")
		assert.NotContains(t, r.stderr, "pacing this process alone")

		r = h.run("ssh-key", "get", "key-ci", "-o", "id")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Empty(t, r.stderr, "the new file serves")
	})
}

// Commands back to back on a brand-new budget, some of whose requests a busy machine holds back
// after their turn (up to 20 ms), draw no 429 from a service that allows no burst: the
// machine-wide pacing waits for the response before each request from the first one, not from a
// first 429.
func TestMachineWidePacingLateSendsOnANewBudget(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := pacedCLI(t)
		h.transport = func(rt http.RoundTripper) http.RoundTripper {
			return &latesend.Transport{Inner: rt,
				Late: latesend.Cycle(0, 20*time.Millisecond, 0, 5*time.Millisecond, 15*time.Millisecond)}
		}
		for range 20 {
			r := h.run("ssh-key", "get", "key-ci", "-o", "id")
			require.Equal(t, exitOK, r.code, r.stderr)
		}
		assert.Zero(t, count429(h.srv), "no 429 on a new budget")
	})
}
