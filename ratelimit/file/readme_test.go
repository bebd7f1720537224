package file_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeInstallsAndBuilds does what this module's README says, as a newcomer would: in an empty
// module beside a checkout (../compute-go), with no workspace, it runs the Install commands as
// written, then builds the README's Go block, which must use the module; the README links the
// package's Example.
func TestReadmeInstallsAndBuilds(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "](example_test.go)", "the README links the Example")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)

	dir := t.TempDir()
	if err := os.Symlink(root, filepath.Join(dir, "compute-go")); err != nil {
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

	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	require.Len(t, blocks, 1, "the README's one Go block")
	require.Contains(t, string(blocks[0][1]), "ratelimitfile.New(")
	require.NoError(t, os.WriteFile(filepath.Join(app, "app.go"), append([]byte("package app\n\n"), blocks[0][1]...), 0o644))
	run("build", "./...")
}
