package main

import (
	"testing"

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
