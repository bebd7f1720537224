package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A flag holding a control character is refused before anything is sent, whatever the command:
// no name, ID or path holds one, and a newline would split a name across lines of -o name.
func TestFlagsWithControlCharactersAreRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"instance", "create", "--name", "web\n1", "--type", "vcpu-2_memory-4g", "--region", "NORD-NO-KRS-1",
			"--image", "ubuntu-24.04", "--ssh-key", "key-ci"},
		{"volume", "create", "--name", "data", "--description", "a\tb", "--size", "10", "--region", "NORD-NO-KRS-1"},
		{"instance", "create", "--name", "web", "--type", "vcpu-2_memory-4g", "--region", "NORD-NO-KRS-1",
			"--image", "ubuntu-24.04", "--ssh-key", "key-ci,key\x1b[31m"},
	} {
		h := newCLI(t)
		r := h.run(args...)
		assert.Equal(t, exitUsage, r.code, "%q: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "control character", "%q", args)
		assert.Empty(t, h.requests(), "nothing is sent: %q", args)
	}
}
