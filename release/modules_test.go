package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The head of CHANGELOG.md names the version: "## Unreleased (vX.Y.Z)" before a release (the
// version being prepared), "## vX.Y.Z (date)" after; a head without one is refused.
func TestChangelogVersion(t *testing.T) {
	for _, tc := range []struct {
		head, version string
		unreleased    bool
	}{
		{"## Unreleased (v0.3.0)", "v0.3.0", true},
		{"## v0.2.0 (2026-11-28)", "v0.2.0", false},
	} {
		root := writeTree(t, map[string]string{"CHANGELOG.md": "# Changelog\n\n" + tc.head + "\n\n- New.\n\n## v0.1.0 (2026-01-02)\n"})
		v, unreleased, err := changelogVersion(root)
		if err != nil || v != tc.version || unreleased != tc.unreleased {
			t.Errorf("%s: got %q, unreleased %v, %v; want %q, unreleased %v", tc.head, v, unreleased, err, tc.version, tc.unreleased)
		}
	}
	for _, head := range []string{"## Unreleased", "## Unreleased (0.3.0)", "## Unreleased (v0.3)", "## Next", "## v0.3.0"} {
		root := writeTree(t, map[string]string{"CHANGELOG.md": "# Changelog\n\n" + head + "\n"})
		if v, _, err := changelogVersion(root); err == nil {
			t.Errorf("%s: got version %q, want an error", head, v)
		}
	}
}

// proxy and build use -version when it is given, CHANGELOG.md's head when it is not.
func TestProxyAndBuildTakeTheVersionFlag(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	files := map[string]string{
		"CHANGELOG.md":             "# Changelog\n\n## Unreleased (v0.3.0)\n",
		"go.work":                  "go 1.25.0\n\nuse (\n\t.\n\t./cmd/compute\n\t./terraform-provider-compute\n)\n",
		"go.mod":                   "module github.com/compute-sdk/compute-go\n\ngo 1.25.0\n",
		"cmd/compute/main.go":      "package main\n\nvar version = \"dev\"\n\nfunc main() { println(version) }\n",
		"cmd/compute-fake/main.go": "package main\n\nvar version = \"dev\"\n\nfunc main() { println(version) }\n",
		"otel/go.mod":              "module github.com/compute-sdk/compute-go/otel\n\ngo 1.25.0\n",
		"ratelimit/redis/go.mod":   "module github.com/compute-sdk/compute-go/ratelimit/redis\n\ngo 1.25.0\n",
		"cmd/compute/go.mod":       "module github.com/compute-sdk/compute-go/cmd/compute\n\ngo 1.25.0\n",
	}
	files["terraform-provider-compute/main.go"] = files["cmd/compute/main.go"]
	for _, m := range modules { // each module of the list needs its go.mod
		name := filepath.ToSlash(filepath.Join(m.dir, "go.mod"))
		if _, ok := files[name]; !ok {
			files[name] = "module github.com/compute-sdk/compute-go/" + m.dir + "\n\ngo 1.25.0\n"
		}
	}
	root := writeTree(t, files)
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	t.Chdir(root)

	out := t.TempDir()
	if err := proxyCmd([]string{"-o", out, "-version", "v0.4.0"}); err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(out, "github.com", "compute-sdk", "compute-go", "@v")
	if got := readFile(t, at, "list"); got != "v0.4.0\n" {
		t.Errorf("proxy -version v0.4.0 lists %q", got)
	}
	if err := proxyCmd([]string{"-o", out}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, at, "list"); got != "v0.4.0\nv0.3.0\n" {
		t.Errorf("proxy without -version, after v0.4.0, lists %q", got)
	}

	if testing.Short() {
		return
	}
	// One target, this machine's, so that the binary runs here and says its version.
	target := runtime.GOOS + "/" + runtime.GOARCH
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	dist := t.TempDir()
	t.Setenv("GOFLAGS", "")
	t.Setenv("GOWORK", filepath.Join(root, "go.work"))
	if err := buildCmd([]string{"-o", dist, "-version", "v0.4.0", "-targets", target}); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		name := c.name + "_v0.4.0_" + runtime.GOOS + "_" + runtime.GOARCH + exe
		if _, err := os.Stat(filepath.Join(dist, name)); err != nil {
			t.Fatalf("build -version v0.4.0: %v", err)
		}
		said, err := exec.Command(filepath.Join(dist, name)).CombinedOutput()
		if err != nil || strings.TrimSpace(string(said)) != "v0.4.0" {
			t.Errorf("%s prints %q (%v), want v0.4.0", name, said, err)
		}
		if !strings.Contains(readFile(t, dist, "SHA256SUMS"), "  "+name+"\n") {
			t.Errorf("SHA256SUMS misses %s", name)
		}
	}
}
