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

// TestReadmeBlocksBuild builds the root README's Go blocks that use this module (the root module's
// README test cannot: this module is not among its dependencies), as statements in a function that
// has ctx, token and url in scope, in a scratch module that uses this checkout.
func TestReadmeBlocksBuild(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	funcs, blocks := blockFuncs(readme)
	require.NotZero(t, blocks, "the README shows how to wire this module")

	here, err := filepath.Abs(".")
	require.NoError(t, err)
	dir := t.TempDir()
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	// This module's requirements as they are, with the root module and this one from the checkout.
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module readmecheck"))
	mod = append(mod, []byte("\nrequire github.com/compute-sdk/compute-go/otel v0.0.0-00010101000000-000000000000\n"+
		"\nreplace github.com/compute-sdk/compute-go => "+filepath.Dir(here)+"\n"+
		"\nreplace github.com/compute-sdk/compute-go/otel => "+here+"\n")...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), mod, 0o644))
	sum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	var src strings.Builder
	src.WriteString("package readmecheck\n\nimport (\n\t\"context\"\n\n\tcompute \"github.com/compute-sdk/compute-go\"\n\tcomputeotel \"github.com/compute-sdk/compute-go/otel\"\n)\n\n")
	src.WriteString(funcs)
	src.WriteString("var _ = computeotel.ScopeName\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "readme.go"), []byte(src.String()), 0o644))
	cmd := exec.Command(goBin, "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the README's OpenTelemetry block does not build:\n%s\n%s", out, src.String())
}

// blockFuncs returns the Go blocks of a README that use this module, each as a function that has
// ctx, token and url in scope and returns the client c it builds, and how many there are.
func blockFuncs(readme []byte) (string, int) {
	var src strings.Builder
	n := 0
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if !strings.Contains(m[1], "computeotel.") {
			continue
		}
		src.WriteString("func block" + string(rune('a'+n)) + "(ctx context.Context, token, url string) (*compute.Client, error) {\n_ = ctx\n" +
			m[1] + "return c, err\n}\n\n")
		n++
	}
	return src.String(), n
}
