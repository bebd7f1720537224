package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// modules are the published modules, in the order they are tagged (each after those it requires).
var modules = []struct{ dir, tagPrefix string }{
	{".", ""},
	{"otel", "otel/"},
	{"ratelimit/redis", "ratelimit/redis/"},
	{"ratelimit/file", "ratelimit/file/"},
	{"cmd/compute", "cmd/compute/"},
	{"terraform-provider-compute", "terraform-provider-compute/"},
}

// modulePath reads the module path of the module in dir.
func modulePath(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	if p := modfile.ModulePath(b); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(dir, "go.mod"))
}

// headPattern matches CHANGELOG.md's head heading: "## Unreleased (vX.Y.Z)" (or "## Unreleased")
// before a release, "## vX.Y.Z (YYYY-MM-DD)" after.
var headPattern = regexp.MustCompile(`^## (?:Unreleased(?: \((v\S+)\))?|(v\S+) \(\d{4}-\d{2}-\d{2}\))$`)

// versionOrHead returns v, or when it is empty the version CHANGELOG.md's head names.
func versionOrHead(v string) (string, error) {
	if v != "" {
		return v, nil
	}
	head, _, err := changelogVersion(".")
	return head, err
}

// changelogVersion returns the version CHANGELOG.md's head section names and whether it is
// unreleased.
func changelogVersion(root string) (version string, unreleased bool, err error) {
	b, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return "", false, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if !strings.HasPrefix(line, "## ") {
			continue
		}
		m := headPattern.FindStringSubmatch(line)
		if m == nil {
			return "", false, fmt.Errorf("CHANGELOG.md: head %q is neither \"## Unreleased (vX.Y.Z)\" nor \"## vX.Y.Z (YYYY-MM-DD)\"", line)
		}
		v := m[1] + m[2]
		if v == "" {
			return "", true, fmt.Errorf("CHANGELOG.md: head %q names no version", line)
		}
		if !validVersion(v) {
			return "", false, fmt.Errorf("CHANGELOG.md: head %q: %s is not a version vX.Y.Z", line, v)
		}
		return v, m[1] != "", nil
	}
	return "", false, fmt.Errorf("CHANGELOG.md has no \"## \" heading")
}

// validVersion reports whether v is a release version vX.Y.Z (no pre-release, no build).
func validVersion(v string) bool {
	return semver.IsValid(v) && semver.Canonical(v) == v && semver.Prerelease(v) == "" &&
		strings.Count(v, ".") == 2
}
