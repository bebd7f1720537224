package main

import (
	"archive/zip"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteProxy(t *testing.T) {
	files := map[string]string{
		".gitignore":             "/dist/\n",
		"CHANGELOG.md":           "# Changelog\n\n## Unreleased (v0.3.0)\n",
		"go.mod":                 "module github.com/compute-sdk/compute-go\n\ngo 1.25.0\n",
		"go.work":                "go 1.25.0\n\nuse .\n",
		"client.go":              "package compute\n",
		"dist/compute":           "a build output, ignored",
		"tool/go.mod":            "module example.com/tool\n\ngo 1.25.0\n",
		"tool/main.go":           "package main\n",
		"otel/go.mod":            "module github.com/compute-sdk/compute-go/otel\n\ngo 1.25.0\n\nrequire github.com/compute-sdk/compute-go v0.3.0\n",
		"otel/otel.go":           "package computeotel\n",
		"ratelimit/redis/go.mod": "module github.com/compute-sdk/compute-go/ratelimit/redis\n\ngo 1.25.0\n",
		"ratelimit/file/go.mod":  "module github.com/compute-sdk/compute-go/ratelimit/file\n\ngo 1.25.0\n",
		"cmd/compute/go.mod":     "module github.com/compute-sdk/compute-go/cmd/compute\n\ngo 1.25.0\n",
		"cmd/compute/main.go":    "package main\n",
	}
	files["terraform-provider-compute/go.mod"] = "module github.com/compute-sdk/compute-go/terraform-provider-compute\n\ngo 1.25.8\n"
	files["terraform-provider-compute/main.go"] = "package main\n"
	root := writeTree(t, files)
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	out := t.TempDir()
	if err := writeProxy(root, out, "v0.3.0"); err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(out, "github.com", "compute-sdk", "compute-go", "@v")
	if got := readFile(t, at, "list"); got != "v0.3.0\n" {
		t.Errorf("list: %q", got)
	}
	if got := readFile(t, at, "v0.3.0.mod"); got != files["go.mod"] {
		t.Errorf("v0.3.0.mod: %q", got)
	}
	if got := readFile(t, at, "v0.3.0.info"); !strings.HasPrefix(got, `{"Version":"v0.3.0","Time":"`) {
		t.Errorf("v0.3.0.info: %q", got)
	}
	want := []string{".gitignore", "CHANGELOG.md", "client.go", "go.mod"} // no go.work, no ignored file, no nested module
	if got := zipFiles(t, filepath.Join(at, "v0.3.0.zip"), "github.com/compute-sdk/compute-go@v0.3.0/"); !slices.Equal(got, want) {
		t.Errorf("the root module's zip holds %q, want %q", got, want)
	}
	otel := filepath.Join(out, "github.com", "compute-sdk", "compute-go", "otel", "@v", "v0.3.0.zip")
	if got := zipFiles(t, otel, "github.com/compute-sdk/compute-go/otel@v0.3.0/"); !slices.Equal(got, []string{"go.mod", "otel.go"}) {
		t.Errorf("otel's zip holds %q", got)
	}
	// Served twice, a version is listed once.
	if err := writeProxy(root, out, "v0.3.0"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, at, "list"); got != "v0.3.0\n" {
		t.Errorf("list after a second run: %q", got)
	}
}

// zipFiles lists the files of a module zip, without their prefix.
func zipFiles(t *testing.T, name, prefix string) []string {
	t.Helper()
	r, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		n, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			t.Errorf("%s: %s is outside %s", name, f.Name, prefix)
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
