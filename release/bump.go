package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
)

func bumpCmd(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("bump: which version? (bump vX.Y.Z)")
	}
	version := args[0]
	fs := flag.NewFlagSet("bump", flag.ContinueOnError)
	date := fs.String("date", time.Now().UTC().Format(time.DateOnly), "the release date written in CHANGELOG.md")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bump: unexpected arguments %q", fs.Args())
	}
	return bump(".", version, *date)
}

// bump makes the tree in root say version: CHANGELOG.md's head becomes "## version (date)", the
// root package's Version constant the version without its v, the requirements of the published
// modules by every module of go.work, and go.work's replacements of them, that version.
func bump(root, version, date string) error {
	if !validVersion(version) {
		return fmt.Errorf("bump: %q is not a release version vX.Y.Z", version)
	}
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return fmt.Errorf("bump: -date: %w", err)
	}
	if err := bumpChangelog(root, version, date); err != nil {
		return err
	}
	if err := bumpVersionConst(root, version); err != nil {
		return err
	}
	siblings := map[string]string{} // module path -> directory
	for _, m := range modules {
		p, err := modulePath(filepath.Join(root, m.dir))
		if err != nil {
			return err
		}
		siblings[p] = m.dir
	}
	// Every module of the workspace, the tooling ones too, requires the siblings at the release.
	work, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		return err
	}
	wf, err := modfile.ParseWork("go.work", work, nil)
	if err != nil {
		return err
	}
	required := map[string]bool{}
	for _, u := range wf.Use {
		if err := bumpRequirements(filepath.Join(root, filepath.FromSlash(u.Path), "go.mod"), siblings, version, required); err != nil {
			return err
		}
	}
	return bumpWork(filepath.Join(root, "go.work"), siblings, required, version)
}

// bumpChangelog turns CHANGELOG.md's head "## Unreleased (version)" (or "## Unreleased") into
// "## version (date)".
func bumpChangelog(root, version, date string) error {
	name := filepath.Join(root, "CHANGELOG.md")
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "## ") {
			continue
		}
		m := headPattern.FindStringSubmatch(line)
		switch {
		case m == nil || m[2] != "":
			return fmt.Errorf("bump: CHANGELOG.md's head %q is not \"## Unreleased (%s)\": nothing to release", line, version)
		case m[1] != "" && m[1] != version:
			return fmt.Errorf("bump: CHANGELOG.md's head %q names another version than %s", line, version)
		}
		lines[i] = fmt.Sprintf("## %s (%s)", version, date)
		return os.WriteFile(name, []byte(strings.Join(lines, "\n")), 0o644)
	}
	return fmt.Errorf("bump: CHANGELOG.md has no \"## \" heading")
}

// versionConst is the root package's Version constant.
var versionConst = regexp.MustCompile(`(?m)^const Version = "[^"]*"$`)

// bumpVersionConst sets the root package's Version constant (client.go) to version without its v.
func bumpVersionConst(root, version string) error {
	name := filepath.Join(root, "client.go")
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if len(versionConst.FindAll(b, -1)) != 1 {
		return fmt.Errorf("bump: %s has no line `const Version = \"...\"`", name)
	}
	b = versionConst.ReplaceAll(b, []byte(`const Version = "`+strings.TrimPrefix(version, "v")+`"`))
	return os.WriteFile(name, b, 0o644)
}

// bumpRequirements sets each requirement of a sibling in the go.mod file name to version, and adds
// the siblings it requires to required.
func bumpRequirements(name string, siblings map[string]string, version string, required map[string]bool) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	f, err := modfile.Parse(name, b, nil)
	if err != nil {
		return err
	}
	for _, r := range slices.Clone(f.Require) {
		if _, ok := siblings[r.Mod.Path]; ok {
			required[r.Mod.Path] = true
			if err := f.AddRequire(r.Mod.Path, version); err != nil {
				return err
			}
		}
	}
	if len(f.Replace) > 0 {
		return fmt.Errorf("bump: %s has replace lines; a published module must not (go.work joins the modules)", name)
	}
	out, err := f.Format()
	if err != nil {
		return err
	}
	return os.WriteFile(name, out, 0o644)
}

// bumpWork makes go.work replace each required sibling at version by its directory: in the
// workspace, a requirement of a sibling at the release version is the sibling in the tree.
func bumpWork(name string, siblings map[string]string, required map[string]bool, version string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	f, err := modfile.ParseWork(name, b, nil)
	if err != nil {
		return err
	}
	for _, r := range slices.Clone(f.Replace) {
		if _, ok := siblings[r.Old.Path]; ok {
			if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
				return err
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(required)) {
		dir := "./" + strings.TrimPrefix(path.Clean(siblings[p]), ".")
		if err := f.AddReplace(p, version, dir, ""); err != nil {
			return err
		}
	}
	f.Cleanup()
	return os.WriteFile(name, modfile.Format(f.Syntax), 0o644)
}
