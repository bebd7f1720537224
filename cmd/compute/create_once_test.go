package main

import (
	"fmt"
	"net/http"
	"path"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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

// A create lost each time it is sent says so while it happens, on a terminal: a line when a send is
// lost and when the create is sent again ("sent again, 2 of 3"); its end (exit 9) says how many
// sends were lost and what was checked after each, with one "compute: ".
func TestLostCreateSaysSo(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		t.Run(fmt.Sprintf("tty=%v", tty), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCLI(t, computetest.WithInMemoryNetwork())
				h.tty = tty
				h.srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodPost}, Times: 3, Fault: computetest.Fault{Drop: true}})
				start := time.Now()
				r := h.run(append(createWeb2, "-o", "id")...)
				elapsed := time.Since(start)
				assert.Equal(t, exitNotCreated, r.code, r.stderr)
				assert.Empty(t, r.stdout)
				lines := stderrLines(r)
				last := lines[len(lines)-1]
				assert.Equal(t, 1, strings.Count(last, "compute:"), "one compute: prefix: %q", last)
				assert.Contains(t, last, `compute: instance create: no instance was created: the create was sent 3 times and each send was lost`)
				assert.Contains(t, last, `after each, the instances were searched for the name "web-2" for 30s, and none showed; running the command again is safe`)
				assert.GreaterOrEqual(t, elapsed, 90*time.Second, "three sends, each followed by 30 s of looking")
				if !tty {
					assert.Len(t, lines, 1, "off a terminal, only the error: %q", r.stderr)
					return
				}
				want := []string{
					`instance web-2: the create's response was lost (send 1 of 3): looking for an instance named "web-2" for up to 30s`,
					`instance web-2: nothing named "web-2" showed: sent again, 2 of 3`,
					`instance web-2: the create's response was lost (send 2 of 3): looking for an instance named "web-2" for up to 30s`,
					`instance web-2: nothing named "web-2" showed: sent again, 3 of 3`,
					`instance web-2: the create's response was lost (send 3 of 3): looking for an instance named "web-2" for up to 30s`,
				}
				assert.Equal(t, want, lines[:len(lines)-1])
			})
		})
	}
}
