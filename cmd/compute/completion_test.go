package main

import (
	"net/http"
	"strings"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Completion reads IDs and names, images and types from the service; it never falls back to file
// names (directive 4, no file completion), and offers nothing when the service cannot answer.
func TestCompletionFromTheAPI(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkInstance(t, h.sdk())
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"instance", "get", ""}, []string{"ins-000001\tweb-1", "web-1\tins-000001"}},
		{[]string{"instance", "stop", "ins"}, []string{"ins-000001\tweb-1"}},
		{[]string{"instance", "create", "--ssh-key", "key-"}, []string{"key-laptop\tlaptop", "key-ci\tci"}},
		{[]string{"instance", "create", "--image", "ubuntu"}, []string{"ubuntu-24.04\tUbuntu 24.04"}},
		{[]string{"instance", "create", "--region", compute.RegionEUCDEMUC1, "--type", "vcpu-2"}, []string{"vcpu-2_memory-4g"}},
		{[]string{"volume", "delete", "vol-data-"}, []string{"vol-data-1\tdata-1"}},
	} {
		r := h.run(append([]string{"__complete"}, tc.args...)...)
		require.Equal(t, exitOK, r.code, r.stderr)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		assert.Equal(t, ":4", lines[len(lines)-1], "%v: no file names", tc.args)
		for _, w := range tc.want {
			assert.Contains(t, lines, w, "%v", tc.args)
		}
	}

	broken := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	r := broken.run("__complete", "--rate", "0", "instance", "get", "")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, ":4", strings.TrimSpace(strings.Split(r.stdout, "Completion ended")[0]), "nothing, and no file names")
}
