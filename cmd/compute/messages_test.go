package main

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
)

// Messages in the command line's words: "did you mean", why there is no --token, flags rather than
// JSON fields, --force where it helps.
func TestMessagesInTheCLIsWords(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	instanceProtected(t, h.sdk())
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"instnce", "list"}, exitUsage, "unknown command \"instnce\" for \"compute\"\n\nDid you mean this?\n    instance\n"},
		{[]string{"instance", "lsit"}, exitUsage, "Did you mean this?\n    list\n"},
		{[]string{"ssh-key", "list", "--token", "abc"}, exitUsage, "there is no --token flag, as a token on the command line shows in ps and in the shell's history; use --token-file, COMPUTE_API_TOKEN, or a context"},
		{[]string{"instance", "create", "--name", "x", "--type", "vcpu-2_memory-4g", "--region", region, "--image", "ubuntu-24.04"},
			exitUsage, "invalid --ssh-key: give --ssh-key or --password-file"},
		{[]string{"instance", "delete", "ins-000001"}, exitConflict, "\nhint: termination protection keeps it: pass --force to turn the protection off and delete it\n"},
	} {
		r := h.run(tc.args...)
		assert.Equal(t, tc.code, r.code, "%v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.stderr, "%v", tc.args)
	}
}

// An error leads with what failed in the command line's words, the HTTP detail after it, and says
// "compute: " once, however deep the SDK's errors nest.
func TestErrorsLeadWithWhatFailed(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	instanceProtected(t, h.sdk())
	r := h.run("instance", "delete", "ins-000001")
	assert.Equal(t, exitConflict, r.code, r.stderr)
	first, _, _ := strings.Cut(r.stderr, "\n")
	assert.Regexp(t, `^compute: instance delete ins-000001: [^(]*protect[^(]* \(code 02038, [^)]*HTTP 400 Bad Request from DELETE /compute/v1/instances/ins-000001; request req-\d+; 1 attempt\)$`, first)
	assert.Equal(t, 1, strings.Count(r.stderr, "compute:"), "one compute: prefix: %q", r.stderr)

	// A request whose every attempt is dropped: the SDK names the request at the head of its error.
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork())
		h.srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet}, Fault: computetest.Fault{Drop: true}})
		r := h.run("instance", "get", "ins-000001")
		assert.Equal(t, exitOther, r.code, r.stderr)
		assert.Equal(t, 1, strings.Count(r.stderr, "compute:"), "one compute: prefix: %q", r.stderr)
		assert.True(t, strings.HasPrefix(r.stderr, "compute: instance get ins-000001: "), r.stderr)
		assert.True(t, strings.HasSuffix(r.stderr, "(GET /compute/v1/instances/ins-000001)\n"), "the request after what failed: %q", r.stderr)
	})
}
