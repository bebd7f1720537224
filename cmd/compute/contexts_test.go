package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

	// The environment wins over the current context, setting by setting.
	h.env[compute.EnvToken] = "wrong-token-0123456789"
	r = step("ssh-key", "list", "-o", "id")
	assert.Equal(t, exitOther, r.code, "the environment's token was used")
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
