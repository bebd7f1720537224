package main

import (
	"os"
	"path/filepath"
	"testing"
)

// writeTree writes files (path -> content) under a new temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readFile(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree is a repository as bump finds it, preparing v0.3.0 after v0.2.0.
var tree = map[string]string{
	"CHANGELOG.md": "# Changelog\n\n## Unreleased (v0.3.0)\n\n- New.\n\n## v0.2.0 (2026-11-28)\n\n- Old.\n",
	"client.go":    "package compute\n\n// Version is the SDK's version.\nconst Version = \"0.3.0\"\n",
	"go.mod":       "module github.com/compute-sdk/compute-go\n\ngo 1.25.0\n",
	"go.work": "go 1.25.0\n\nuse (\n\t.\n\t./cmd/compute\n\t./otel\n\t./ratelimit/file\n\t./ratelimit/redis\n\t./terraform-provider-compute\n\t./tool\n)\n\n" +
		"replace github.com/compute-sdk/compute-go v0.2.0 => ./\n\n" +
		"replace github.com/compute-sdk/compute-go/ratelimit/redis v0.2.0 => ./ratelimit/redis\n",
	"otel/go.mod": "module github.com/compute-sdk/compute-go/otel\n\ngo 1.25.0\n\n" +
		"require (\n\tgithub.com/compute-sdk/compute-go v0.2.0\n\tgo.opentelemetry.io/otel v1.46.0\n)\n",
	"ratelimit/redis/go.mod": "module github.com/compute-sdk/compute-go/ratelimit/redis\n\ngo 1.25.0\n\n" +
		"require github.com/compute-sdk/compute-go v0.2.0\n",
	"ratelimit/file/go.mod": "module github.com/compute-sdk/compute-go/ratelimit/file\n\ngo 1.25.0\n\n" +
		"require github.com/compute-sdk/compute-go v0.2.0\n",
	"tool/go.mod": "module example.com/tool\n\ngo 1.25.0\n\nrequire github.com/compute-sdk/compute-go/otel v0.2.0\n",
	"cmd/compute/go.mod": "module github.com/compute-sdk/compute-go/cmd/compute\n\ngo 1.25.0\n\n" +
		"require (\n\tgithub.com/compute-sdk/compute-go v0.2.0\n\tgithub.com/compute-sdk/compute-go/ratelimit/redis v0.2.0\n" +
		"\tgithub.com/spf13/cobra v1.10.2\n)\n",
	"terraform-provider-compute/go.mod": "module github.com/compute-sdk/compute-go/terraform-provider-compute\n\ngo 1.25.8\n\n" +
		"require github.com/compute-sdk/compute-go v0.2.0\n",
}

func TestBump(t *testing.T) {
	root := writeTree(t, tree)
	if err := bump(root, "v0.3.0", "2026-12-01"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"CHANGELOG.md": "# Changelog\n\n## v0.3.0 (2026-12-01)\n\n- New.\n\n## v0.2.0 (2026-11-28)\n\n- Old.\n",
		"client.go":    tree["client.go"],
		"go.work": "go 1.25.0\n\nuse (\n\t.\n\t./cmd/compute\n\t./otel\n\t./ratelimit/file\n\t./ratelimit/redis\n\t./terraform-provider-compute\n\t./tool\n)\n\n" +
			"replace github.com/compute-sdk/compute-go v0.3.0 => ./\n\n" +
			"replace github.com/compute-sdk/compute-go/otel v0.3.0 => ./otel\n\n" +
			"replace github.com/compute-sdk/compute-go/ratelimit/redis v0.3.0 => ./ratelimit/redis\n",
		"otel/go.mod": "module github.com/compute-sdk/compute-go/otel\n\ngo 1.25.0\n\n" +
			"require (\n\tgithub.com/compute-sdk/compute-go v0.3.0\n\tgo.opentelemetry.io/otel v1.46.0\n)\n",
		"ratelimit/redis/go.mod": "module github.com/compute-sdk/compute-go/ratelimit/redis\n\ngo 1.25.0\n\n" +
			"require github.com/compute-sdk/compute-go v0.3.0\n",
		"ratelimit/file/go.mod": "module github.com/compute-sdk/compute-go/ratelimit/file\n\ngo 1.25.0\n\n" +
			"require github.com/compute-sdk/compute-go v0.3.0\n",
		"tool/go.mod": "module example.com/tool\n\ngo 1.25.0\n\nrequire github.com/compute-sdk/compute-go/otel v0.3.0\n",
		"cmd/compute/go.mod": "module github.com/compute-sdk/compute-go/cmd/compute\n\ngo 1.25.0\n\n" +
			"require (\n\tgithub.com/compute-sdk/compute-go v0.3.0\n\tgithub.com/compute-sdk/compute-go/ratelimit/redis v0.3.0\n" +
			"\tgithub.com/spf13/cobra v1.10.2\n)\n",
		"terraform-provider-compute/go.mod": "module github.com/compute-sdk/compute-go/terraform-provider-compute\n\ngo 1.25.8\n\n" +
			"require github.com/compute-sdk/compute-go v0.3.0\n",
	}
	for name, w := range want {
		if got := readFile(t, root, name); got != w {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, w)
		}
	}
	// The Version constant follows the release when it lagged.
	root = writeTree(t, tree)
	if err := os.WriteFile(filepath.Join(root, "client.go"), []byte("package compute\n\nconst Version = \"0.2.0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := bump(root, "v0.3.0", "2026-12-01"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, "client.go"); got != "package compute\n\nconst Version = \"0.3.0\"\n" {
		t.Errorf("client.go: %s", got)
	}
}

func TestBumpRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, file, content, version string
	}{
		{"another version", "", "", "v0.4.0"},
		{"not a version", "", "", "0.3.0"},
		{"a pre-release", "", "", "v0.3.0-rc.1"},
		{"released already", "CHANGELOG.md", "# Changelog\n\n## v0.3.0 (2026-12-01)\n", "v0.3.0"},
		{"a replace line", "otel/go.mod", "module github.com/compute-sdk/compute-go/otel\n\nreplace github.com/compute-sdk/compute-go => ../\n", "v0.3.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tree)
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(root, tc.file), []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := bump(root, tc.version, "2026-12-01"); err == nil {
				t.Fatalf("bump %s succeeded", tc.version)
			}
		})
	}
}
