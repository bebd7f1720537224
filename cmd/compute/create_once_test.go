package main

import (
	"net/http"
	"path"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every create command creates once: when the service processes the create but its response is
// lost, the command finds what it made and prints it (exit 0), and a rerun prints the same
// resource; the create was sent once in all.
func TestEveryCreateAdoptsAfterALostResponse(t *testing.T) {
	t.Parallel()
	keyFile := writeFile(t, "id.pub", publicKey(3))
	for _, tc := range []struct {
		post  string // the create's path
		setup func(t *testing.T, c *compute.Client)
		args  []string
	}{
		{"/compute/v1/instances", nil, createWeb2},
		{"/compute/v1/security-groups", nil, []string{"security-group", "create", "--name", "web", "--region", region, "--rule", "tcp:ingress:443"}},
		{"/compute/v1/floating-ips", nil, []string{"floating-ip", "create", "--name", "web-ip", "--region", region}},
		{"/compute/v1/volumes", nil, []string{"volume", "create", "--name", "data", "--region", region, "--size", "5"}},
		{"/compute/v1/filesystems", nil, []string{"filesystem", "create", "--name", "shared", "--region", region, "--size", "5"}},
		{"/compute/v1/ssh-keys", nil, []string{"ssh-key", "create", "--name", "laptop-2", "--public-key-file", keyFile}},
		{"/compute/v1/instances/ins-000001/snapshots", instanceActive, []string{"instance", "snapshot", "ins-000001", "--name", "before"}},
		{"/compute/v1/snapshots/snap-000001/clone", snapshotCreated, []string{"snapshot", "clone", "snap-000001", "--name", "copy", "--region", region}},
		{"/compute/v1/snapshots", nil, []string{"snapshot", "import", "--name", "custom", "--region", region, "--size", "5",
			"--url", "https://images.example.com/custom.raw"}},
	} {
		t.Run(path.Base(tc.post), func(t *testing.T) {
			t.Parallel()
			h := newCLI(t)
			if tc.setup != nil {
				tc.setup(t, h.sdk())
			}
			h.srv.ResetRequests()
			h.srv.FailNext(1, computetest.Match{Method: http.MethodPost, Path: tc.post}, computetest.Fault{DropAfterProcessing: true})

			first := h.run(append(tc.args, "-o", "id")...)
			require.Equal(t, exitOK, first.code, first.stderr)
			require.NotEmpty(t, first.stdout)
			again := h.run(append(tc.args, "-o", "id")...)
			require.Equal(t, exitOK, again.code, again.stderr)
			assert.Equal(t, first.stdout, again.stdout, "the rerun adopts what the first run made")

			var posts int
			for _, r := range h.srv.Requests() {
				if r.Method == http.MethodPost && r.Path == tc.post {
					posts++
				}
			}
			assert.Equal(t, 1, posts, "the create was sent once")
		})
	}
}
