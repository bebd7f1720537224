package main

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contexts: create keeps a URL and a token under a name (owner-only file, token never printed) and
// uses it; use switches; the environment overrides the file; --context overrides the environment.
func TestContexts(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	home := t.TempDir()
	h.env = map[string]string{"HOME": home, "XDG_CONFIG_HOME": ""}
	h.tty = true
	path := filepath.Join(home, ".config", "compute", "config.json")
	tokenFile := writeFile(t, "token", h.srv.Token+"\n")
	var log string
	step := func(args ...string) result {
		t.Helper()
		r := h.run(args...)
		log += "$ compute " + joinArgs(args) + "\n" + r.stdout + r.stderr + "[exit " + itoa(r.code) + "]\n"
		return r
	}

	r := step("instance", "list", "-o", "id")
	assert.Equal(t, exitUsage, r.code, "no context, no environment")

	r = step("context", "create", "fake", "--api-url", h.srv.URL, "--token-file", tokenFile)
	require.Equal(t, exitOK, r.code, r.stderr)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the token is readable by its owner alone")
	dir, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dir.Mode().Perm())

	step("context", "create", "fake", "--api-url", h.srv.URL, "--token-file", tokenFile)
	step("context", "create", "other", "--api-url", "https://api.example.com", "--token-file", writeFile(t, "other", "other-token-0123456789"))
	step("context", "list")
	step("context", "use", "fake")
	step("context", "list", "-o", "json")

	r = step("ssh-key", "list", "-o", "id")
	require.Equal(t, exitOK, r.code, "the current context is used: %s", r.stderr)
	assert.Equal(t, "key-laptop\nkey-ci\n", r.stdout)

	// A token from the environment never goes to the current context's URL.
	h.env[compute.EnvToken] = "Wq3Rt8Zx5Lp2Nm7Kd4Vb"
	r = step("ssh-key", "list", "-o", "id")
	assert.Equal(t, exitUsage, r.code, "the environment's token is not sent to the context's URL")
	// --context wins over the environment.
	r = step("ssh-key", "list", "-o", "id", "--context", "fake")
	assert.Equal(t, exitOK, r.code, r.stderr)
	delete(h.env, compute.EnvToken)

	step("context", "use", "nope")
	step("ssh-key", "list", "--context", "nope")
	step("context", "delete", "other")
	step("context", "list", "-o", "name")

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(raw), h.srv.Token, "the file holds the token")
	log = regexp.MustCompile(`http://127\.0\.0\.1:\d+`).ReplaceAllString(log, "http://127.0.0.1:PORT")
	log = regexp.MustCompile(regexp.QuoteMeta(home)).ReplaceAllString(log, "$$HOME")
	log = regexp.MustCompile(`\S+/(token|other)\b`).ReplaceAllString(log, "$$TMP/$1")
	log = regexp.MustCompile(`request req-\d+`).ReplaceAllString(log, "request req-N")
	golden(t, "contexts.txt", log)
	assert.NotContains(t, log, h.srv.Token)
}

// --debug writes each exchange on stderr, the token left out and the service's text made safe.
func TestDebugDump(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run("ssh-key", "get", "key-ci", "-o", "id", "--debug")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "key-ci\n", r.stdout)
	dump := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).ReplaceAllString(r.stderr, "http://127.0.0.1:PORT")
	dump = regexp.MustCompile(`(?m)^< Date: .*$`).ReplaceAllString(dump, "< Date: DATE")
	dump = regexp.MustCompile(`compute-go/\S+ compute-cli/\S+`).ReplaceAllString(dump, "compute-go/VERSION compute-cli/VERSION")
	golden(t, "debug.txt", dump)
	assert.NotContains(t, r.stderr, "Authorization")
}

func joinArgs(args []string) string {
	out := ""
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		if regexp.MustCompile(`^[\w./:=,-]+$`).MatchString(a) {
			out += a
		} else {
			out += "'" + a + "'"
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// --debug against a service that echoes the token and a control sequence in its body: both are
// made safe in the dump.
func TestDebugDumpHostile(t *testing.T) {
	t.Parallel()
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("echo " + r.Header.Get("Authorization") + " \x1b]0;pwned\x07"))
	}))
	r := h.run("instance", "get", "ins-1", "--debug")
	assert.Equal(t, exitNotFound, r.code)
	assert.Contains(t, r.stderr, "<\necho Bearer [REDACTED] \\x1b]0;pwned\\x07\n", "the body, scrubbed and escaped")
	assert.Contains(t, r.stderr, "< 404 Not Found")
	noEscapes(t, r.stderr)
}

// A token goes only to its own URL: a URL from the environment or --api-url is never combined with
// a context's token (nor a context's URL with the environment's token or --token-file): that is
// refused with a hint (exit 2), and nothing reaches the other URL. COMPUTE_CONTEXT selects a
// context; a 401 names the context whose token was refused.
func TestTokenGoesOnlyToItsURL(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	home := t.TempDir()
	var heard atomic.Int32
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(listener.Close)
	base := map[string]string{"HOME": home, "XDG_CONFIG_HOME": ""}
	h.env = maps.Clone(base)
	tokenFile := writeFile(t, "token", h.srv.Token+"\n")
	r := h.run("context", "create", "bad", "--api-url", h.srv.URL, "--token-file", writeFile(t, "bad", "Bd7Qx2Lm9Zk4Wv8Np3Rt"))
	require.Equal(t, exitOK, r.code, r.stderr)
	r = h.run("context", "create", "prod", "--api-url", h.srv.URL, "--token-file", tokenFile)
	require.Equal(t, exitOK, r.code, r.stderr)

	for _, tc := range []struct {
		env  map[string]string
		args []string
		hint string
	}{
		{map[string]string{compute.EnvBaseURL: listener.URL}, nil, "COMPUTE_API_URL is set, but the token would come from the context prod"},
		{nil, []string{"--api-url", listener.URL}, "--api-url is given, but the token would come from the context prod"},
		{map[string]string{compute.EnvToken: "env-token-0123456789"}, nil, "COMPUTE_API_TOKEN is set, but the URL would come from the context prod"},
		{nil, []string{"--token-file", tokenFile}, "--token-file is given, but the URL would come from the context prod"},
		{nil, []string{"--context", "prod", "--api-url", listener.URL}, "--api-url is given, but the token would come from the context prod"},
		{map[string]string{"COMPUTE_CONTEXT": "prod", compute.EnvBaseURL: listener.URL}, nil, "COMPUTE_API_URL is set, but the token would come from the context prod"},
	} {
		h.env = maps.Clone(base)
		maps.Copy(h.env, tc.env)
		r := h.run(append([]string{"ssh-key", "list", "-o", "id"}, tc.args...)...)
		assert.Equal(t, exitUsage, r.code, "%v %v: %s", tc.env, tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.hint, "%v %v", tc.env, tc.args)
	}
	assert.Zero(t, heard.Load(), "the other URL heard nothing")

	// Both from the environment: the context is not used.
	h.env = maps.Clone(base)
	h.env[compute.EnvBaseURL], h.env[compute.EnvToken] = h.srv.URL, h.srv.Token
	r = h.run("ssh-key", "list", "-o", "id")
	assert.Equal(t, exitOK, r.code, r.stderr)

	// COMPUTE_CONTEXT selects a context; --context wins over it.
	h.env = maps.Clone(base)
	h.env["COMPUTE_CONTEXT"] = "bad"
	r = h.run("ssh-key", "list", "-o", "id")
	assert.Equal(t, exitOther, r.code, "the context bad was used: %s", r.stderr)
	assert.Contains(t, r.stderr, `the service refused the token of the context bad`, "a 401 names the context")
	r = h.run("ssh-key", "list", "-o", "id", "--context", "prod")
	assert.Equal(t, exitOK, r.code, r.stderr)
	h.env["COMPUTE_CONTEXT"] = "nope"
	r = h.run("ssh-key", "list", "-o", "id")
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, `invalid COMPUTE_CONTEXT "nope"`)
}
