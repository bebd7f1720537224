package computeotel_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOwnReadmeInstallsAndBuilds does what this module's README says, as a newcomer would: in an
// empty module beside a checkout (../compute-go), with no workspace, it runs the Install commands as
// written, then builds every Go block of the README that uses this module.
func TestOwnReadmeInstallsAndBuilds(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	here, err := filepath.Abs(".")
	require.NoError(t, err)

	dir := t.TempDir()
	if err := os.Symlink(filepath.Dir(here), filepath.Join(dir, "compute-go")); err != nil {
		t.Skipf("no symlink to the checkout: %v", err)
	}
	app := filepath.Join(dir, "app")
	require.NoError(t, os.Mkdir(app, 0o755))
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = app
		// GOFLAGS keeps the caller's (CI's -modcacherw, so that its private cache can be removed).
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
	}
	run("mod", "init", "example.com/app")

	install := regexp.MustCompile("(?s)## Install\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, install, "the README's Install section has its commands")
	n := 0
	for _, line := range strings.Split(string(install[1]), "\n") {
		if args, ok := strings.CutPrefix(line, "go "); ok {
			run(strings.Fields(args)...)
			n++
		}
	}
	require.Equal(t, 2, n, "go mod edit, then go get")

	var src strings.Builder
	src.WriteString("package app\n\nimport (\n\t\"context\"\n\t\"net/http\"\n\n\tcompute \"github.com/compute-sdk/compute-go\"\n" +
		"\tcomputeotel \"github.com/compute-sdk/compute-go/otel\"\n\t\"go.opentelemetry.io/otel/propagation\"\n)\n\n" +
		"var (\n\t_ = http.StatusOK\n\t_ = propagation.TraceContext{}\n\t_ = computeotel.ScopeName\n)\n\n")
	funcs, blocks := blockFuncs(readme)
	src.WriteString(funcs)
	require.GreaterOrEqual(t, blocks, 2, "the README wires the module and names a propagator")
	require.NoError(t, os.WriteFile(filepath.Join(app, "app.go"), []byte(src.String()), 0o644))
	run("build", "./...")
}
