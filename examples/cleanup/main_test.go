package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/compute-sdk/compute-go/examples/internal/setup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// embedded clears the environment, so that the program uses its embedded fake, and runs f in a
// synctest bubble, where the fake's transitions and the polls take no real time.
func embedded(t *testing.T, f func(t *testing.T)) {
	t.Setenv(compute.EnvBaseURL, "")
	t.Setenv(compute.EnvToken, "")
	synctest.Test(t, f)
}

func TestCleanupKeepsProtectedInstancesWithoutForce(t *testing.T) {
	embedded(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"-prefix", "test-"}, &out, &errOut), errOut.String())
		assert.Contains(t, out.String(), "keep    instance ins-000002 test-vm-protected: termination protected (use -force)")
		assert.Contains(t, out.String(), "deleted instance ins-000001 test-vm-1")
		assert.NotContains(t, out.String(), "other-vm")
		assert.Contains(t, out.String(), "deleted 9, kept 1, failed 0")
	})
}

func TestCleanupDryRunAndGuards(t *testing.T) {
	var out, errOut bytes.Buffer
	embedded(t, func(t *testing.T) {
		require.Equal(t, 0, run(context.Background(), []string{"-prefix", "test-", "-dry-run"}, &out, &errOut))
		assert.Contains(t, out.String(), "would delete instance ins-000001")
		assert.Contains(t, out.String(), "would delete ssh-key")
		assert.Contains(t, out.String(), "would keep instance ins-000002 test-vm-protected: termination protected (use -force)")
		assert.Contains(t, out.String(), "would delete 9, keep 1")

		assert.Equal(t, 2, run(context.Background(), nil, &out, &errOut), "no prefix")
	})
	srv := computetest.NewServer()
	defer srv.Close()
	t.Setenv(compute.EnvBaseURL, srv.URL)
	t.Setenv(compute.EnvToken, srv.Token)
	assert.Equal(t, 2, run(context.Background(), []string{"-prefix", "x"}, &out, &errOut), "a real service needs -yes")
	assert.Empty(t, srv.Requests())
}

// TestCleanupLeavesNothingFromAnyState seeds a fake with resources of every kind in every state
// cleanup meets (an instance creating, one stopping, one protected, a volume attached, a snapshot,
// a filesystem, a key, a security group and a floating IP in use) and runs the cleaner with -force:
// afterwards every collection is as it was before, but for the one instance that does not match.
func TestCleanupLeavesNothingFromAnyState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithDurations(computetest.UniformDurations(setup.Transition)))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		env := &setup.Env{Client: c, Server: srv, Region: "NORD-NO-KRS-1", Type: "vcpu-2_memory-4g", Image: "ubuntu-24.04"}
		before := inventory(t, c)
		require.NoError(t, fill(ctx, env, "test-"))
		seeded := inventory(t, c)
		for _, name := range []string{"instance test-vm-creating creating", "instance test-vm-stopping stopping",
			"instance test-vm-protected active", "volume test-vol created 1", "snapshot test-snap", "filesystem test-fs",
			"ssh-key test-key", "security-group test-sg", "floating-ip test-ip"} {
			assert.Contains(t, seeded, name, "the fill makes every state")
		}

		cl := &cleaner{c: c, out: io.Discard, prefix: "test-", force: true}
		require.NoError(t, cl.run(ctx))
		assert.Equal(t, 10, cl.deleted)
		after := inventory(t, c)
		other := slices.IndexFunc(after, func(s string) bool { return s == "instance other-vm active" })
		require.GreaterOrEqual(t, other, 0)
		assert.Equal(t, before, slices.Delete(after, other, other+1))
	})
}

// inventory lists every collection of the fake as "kind name status [attachments]" lines.
func inventory(t *testing.T, c *compute.Client) []string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	add := func(err error, format string, args ...any) {
		require.NoError(t, err)
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	for v, err := range c.Instances.All(ctx, nil) {
		add(err, "instance %s %s", v.Name, v.Status)
	}
	for v, err := range c.Volumes.All(ctx, nil) {
		add(err, "volume %s %s %d", v.Name, v.Status, len(v.Instances))
	}
	for v, err := range c.Snapshots.All(ctx, nil) {
		add(err, "snapshot %s", v.Name)
	}
	for v, err := range c.Filesystems.All(ctx, nil) {
		add(err, "filesystem %s", v.Name)
	}
	for v, err := range c.SSHKeys.All(ctx, nil) {
		add(err, "ssh-key %s", v.Name)
	}
	for v, err := range c.SecurityGroups.All(ctx, nil) {
		add(err, "security-group %s", v.Name)
	}
	for v, err := range c.FloatingIPs.All(ctx, nil) {
		add(err, "floating-ip %s", v.Name)
	}
	slices.Sort(lines)
	return lines
}

// -dry-run plans exactly what the run does: what it would delete is what the run deletes, and what
// it would keep (a protected instance, without -force) is what the run keeps.
func TestCleanupDryRunPlansTheRun(t *testing.T) {
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			args := []string{"-prefix", "test-"}
			if force {
				args = append(args, "-force")
			}
			plan, did := map[string]bool{}, map[string]bool{}
			embedded(t, func(t *testing.T) {
				var out, errOut bytes.Buffer
				require.Equal(t, 0, run(context.Background(), append(args, "-dry-run"), &out, &errOut), errOut.String())
				for _, line := range strings.Split(out.String(), "\n") {
					if f := strings.Fields(line); len(f) >= 4 && f[0] == "would" && !strings.HasSuffix(f[2], ",") {
						plan[f[1]+" "+f[2]+" "+f[3]] = true
					}
				}
			})
			embedded(t, func(t *testing.T) {
				var out, errOut bytes.Buffer
				require.Equal(t, 0, run(context.Background(), args, &out, &errOut), errOut.String())
				for _, line := range strings.Split(out.String(), "\n") {
					f := strings.Fields(line)
					if len(f) < 3 || strings.HasSuffix(f[1], ",") {
						continue
					}
					switch f[0] {
					case "deleted":
						did["delete "+f[1]+" "+strings.TrimSuffix(f[2], ":")] = true
					case "keep":
						did["keep "+f[1]+" "+strings.TrimSuffix(f[2], ":")] = true
					}
				}
			})
			assert.NotEmpty(t, plan)
			assert.Equal(t, did, plan)
		})
	}
}
