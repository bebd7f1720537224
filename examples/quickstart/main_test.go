package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// useService points the program at srv as a "real" service through the environment.
func useService(t *testing.T, srv *computetest.Server) {
	t.Setenv(compute.EnvBaseURL, srv.URL)
	t.Setenv(compute.EnvToken, srv.Token)
}

func TestQuickstartOnTheEmbeddedFake(t *testing.T) {
	t.Setenv(compute.EnvBaseURL, "")
	t.Setenv(compute.EnvToken, "")
	// In a bubble, the embedded fake's transitions and the polls take no real time.
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(context.Background(), nil, &out, &errOut), errOut.String())
		for _, line := range []string{
			"using an embedded computetest server",
			"==> Listing base OS images", "ubuntu-24.04",
			"==> Creating SSH key quickstart-key", "is ssh-ed25519 SHA256:",
			"==> Creating security group quickstart-web", "==> Creating floating IP quickstart-ip",
			"==> Creating instance quickstart-vm", "status: creating", "status: active",
			"==> Snapshotting", "is created\n", "==> Stopping", "status: stopped", "==> Starting", "status: starting",
			"==> Deleting instance", "==> Deleting snapshot", "==> Deleting floating IP",
			"==> Deleting security group", "==> Deleting SSH key", "Done:",
		} {
			assert.Contains(t, out.String(), line)
		}
		// The embedded fake starts as an empty account, so every count at the end is zero.
		counts := out.String()[strings.Index(out.String(), "==> Counting"):]
		for _, what := range []string{"instances", "snapshots", "security groups", "floating IPs", "SSH keys", "volumes", "filesystems"} {
			assert.Regexp(t, `\n    `+what+`: +0\n`, counts)
		}
		assert.Empty(t, errOut.String())
	})
}

func TestQuickstartRefusesToCreateOnARealServiceWithoutYes(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	useService(t, srv)
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), nil, &out, &errOut))
	assert.Contains(t, errOut.String(), "-yes")
	assert.Empty(t, srv.Requests(), "nothing was sent")
}

func TestQuickstartWithYesLeavesNothingBehind(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	useService(t, srv)
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-yes", "-name", "qs"}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "Using the service at "+srv.URL)
	assertEmpty(t, srv)
}

func TestQuickstartCleansUpWhenAStepFails(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	useService(t, srv)
	srv.FailNext(1, computetest.Match{Method: "POST", Path: "/compute/v1/instances/*/snapshots"},
		computetest.Fault{Status: 400, Code: compute.CodeSnapshotQuotaReached, Message: "Max instance snapshots quota reached"})
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"-yes"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "code 02012")
	assert.Contains(t, out.String(), "==> Deleting instance")
	assertEmpty(t, srv)
}

// assertEmpty checks that the service holds no instance, snapshot, floating IP or security group,
// and no SSH key but the catalogue's.
func assertEmpty(t *testing.T, srv *computetest.Server) {
	t.Helper()
	c := srv.Client()
	ctx := context.Background()
	insts, err := c.Instances.List(ctx, nil)
	require.NoError(t, err)
	assert.Zero(t, insts.TotalCount, "instances left")
	ips, err := c.FloatingIPs.List(ctx, nil)
	require.NoError(t, err)
	assert.Zero(t, ips.TotalCount, "floating IPs left")
	groups, err := c.SecurityGroups.List(ctx, nil)
	require.NoError(t, err)
	assert.Zero(t, groups.TotalCount, "security groups left")
	snaps, err := c.Snapshots.List(ctx, nil)
	require.NoError(t, err)
	assert.Zero(t, snaps.TotalCount, "snapshots left")
	keys, err := c.SSHKeys.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, len(srv.Catalog().SSHKeys), keys.TotalCount, "SSH keys left")
	assert.Equal(t, len(computetest.DefaultCatalog().SSHKeys), keys.TotalCount, "only the catalogue's keys")
}

func TestQuickstartInstallsTheGivenPublicKey(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	useService(t, srv)
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@laptop"
	path := filepath.Join(t.TempDir(), "id.pub")
	require.NoError(t, os.WriteFile(path, []byte(key+"\n"), 0o600))
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-yes", "-public-key", path}, &out, &errOut), errOut.String())
	var sent bool
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Path == "/compute/v1/ssh-keys" {
			assert.JSONEq(t, `{"name":"quickstart-key","value":"`+key+`"}`, string(r.Body))
			sent = true
		}
	}
	assert.True(t, sent, "the key was created")
	assertEmpty(t, srv)

	assert.Equal(t, 2, run(context.Background(), []string{"-yes", "-public-key", filepath.Join(t.TempDir(), "missing.pub")}, &out, &errOut))
	assert.Contains(t, errOut.String(), "reading -public-key")
}

func TestQuickstartFailsWhenCleanupFails(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	useService(t, srv)
	srv.FailNext(1, computetest.Match{Method: "DELETE", Path: "/compute/v1/instances/*"},
		computetest.Fault{Status: 403, Code: compute.CodePermissionDenied, Message: "Permission denied"})
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, run(context.Background(), []string{"-yes"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "cleanup failed")
	assert.Contains(t, errOut.String(), "code 02043")
	assert.NotContains(t, out.String(), "Done:")
}
