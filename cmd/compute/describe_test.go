package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// describe shows every field of a resource of each kind, grouped, for a person; by ID or by name.
func TestDescribe(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkGroup(t, h.sdk())
	mkFloatingIP(t, h.sdk())
	mkFilesystem(t, h.sdk())
	mkSSHKey(t, h.sdk())
	mkSnapshot(t, h.sdk())
	for _, tc := range []struct{ kind, id, name string }{
		{"instance", "ins-000001", "web-1"},
		{"security-group", "sg-000001", "ssh"},
		{"floating-ip", "fip-000001", "web-ip"},
		{"volume", "vol-data-1", ""},
		{"filesystem", "fs-000001", "shared"},
		{"ssh-key", "key-ci", "deploy"},
		{"snapshot", "snap-000001", "web-1-snap"},
	} {
		r := h.run(tc.kind, "describe", tc.id)
		require.Equal(t, exitOK, r.code, "%s: %s", tc.kind, r.stderr)
		golden(t, tc.kind+"_describe.txt", r.stdout)
		if tc.name != "" {
			byName := h.run(tc.kind, "describe", tc.name)
			require.Equal(t, exitOK, byName.code, "%s: %s", tc.kind, byName.stderr)
			if tc.kind != "ssh-key" {
				assert.Equal(t, r.stdout, byName.stdout, "%s by name", tc.kind)
			}
		}
	}
	r := h.run("instance", "describe", "ins-000001", "-o", "name")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "describe prints every field for a person, or with -o json, yaml or format= for a program")
}
