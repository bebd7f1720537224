package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// No flag that takes a value other than a path completes file names (--status, --sort, --name,
// --placement, --version, ...), in any command; and the second argument of attach-*/detach-* is
// completed from the service.
func TestCompletionNeverOffersFilesButForPaths(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkInstance(t, h.sdk())
	mkGroup(t, h.sdk())
	a := &app{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	var checked int
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		if !cmd.Runnable() || cmd.Name() == "help" || cmd.Name() == "__complete" || cmd.Name() == "__completeNoDesc" {
			return
		}
		path := strings.Fields(cmd.CommandPath())[1:]
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" || f.Hidden {
				return
			}
			args := append(append([]string{"__complete"}, path...), "--"+f.Name, "")
			r := h.run(args...)
			lines := strings.Split(strings.TrimSpace(strings.Split(r.stdout, "Completion ended")[0]), "\n")
			directive, _ := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], ":"))
			noFiles := directive&int(cobra.ShellCompDirectiveNoFileComp) != 0
			isPath := map[string]bool{"token-file": true, "password-file": true, "startup-script-file": true, "user-data": true, "public-key-file": true}[f.Name]
			assert.Equal(t, !isPath, noFiles, "%v: file names offered only for a path (directive %d)", args, directive)
			checked++
		})
	}
	root := a.rootCmd()
	root.InitDefaultHelpCmd()
	walk(root)
	assert.Greater(t, checked, 100)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"instance", "attach-volume", "ins-000001", "vol-data-"}, "vol-data-1\tdata-1"},
		{[]string{"instance", "detach-security-group", "web-1", "sg-"}, "sg-000001\tssh"},
	} {
		r := h.run(append([]string{"__complete"}, tc.args...)...)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, strings.Split(r.stdout, "\n"), tc.want, "%v", tc.args)
	}
}

// Completion waits at most 2 s for the service, however long it hangs: a shell waits for it.
func TestCompletionBound(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork())
		h.srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet}, Fault: computetest.Fault{Latency: time.Hour}})
		start := time.Now()
		r := h.run("__complete", "instance", "get", "")
		assert.Equal(t, exitOK, r.code, r.stderr)
		assert.LessOrEqual(t, time.Since(start), 2*time.Second+100*time.Millisecond, "Tab is held 2 s at most")
		assert.True(t, strings.HasPrefix(r.stdout, ":4\n"), "nothing offered, and no file names: %q", r.stdout)
	})
}
