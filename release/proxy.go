package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func proxyCmd(args []string) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	out := fs.String("o", "", "the proxy's directory (GOPROXY=file://DIR)")
	version := fs.String("version", "", "the version to serve the modules at (default: CHANGELOG.md's head)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("proxy: usage: proxy -o DIR [-version vX.Y.Z]")
	}
	v, err := versionOrHead(*version)
	if err != nil {
		return err
	}
	return writeProxy(".", *out, v)
}

// writeProxy writes every module of the tree in root, as it is on disk, at version into dir, laid
// out as a module proxy (https://go.dev/ref/mod#goproxy-protocol) that GOPROXY=file://dir serves:
// <module>/@v/list, <version>.info, .mod and .zip.
func writeProxy(root, dir, version string) error {
	if !validVersion(version) {
		return fmt.Errorf("proxy: %q is not a release version vX.Y.Z", version)
	}
	for _, m := range modules {
		src := filepath.Join(root, m.dir)
		p, err := modulePath(src)
		if err != nil {
			return err
		}
		esc, err := module.EscapePath(p)
		if err != nil {
			return err
		}
		at := filepath.Join(dir, filepath.FromSlash(esc), "@v")
		if err := os.MkdirAll(at, 0o755); err != nil {
			return err
		}
		if err := writeZip(filepath.Join(at, version+".zip"), module.Version{Path: p, Version: version}, src); err != nil {
			return err
		}
		mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(at, version+".mod"), mod, 0o644); err != nil {
			return err
		}
		info, err := json.Marshal(struct {
			Version string
			Time    time.Time
		}{version, time.Now().UTC().Truncate(time.Second)})
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(at, version+".info"), info, 0o644); err != nil {
			return err
		}
		if err := addToList(filepath.Join(at, "list"), version); err != nil {
			return err
		}
	}
	return nil
}

// writeZip writes the module zip of the module m whose files are in dir: the files git tracks
// there or would add (not those it ignores), without nested modules and without the workspace's
// go.work, as a published module holds them.
func writeZip(name string, m module.Version, dir string) (err error) {
	files, err := moduleFiles(dir)
	if err != nil {
		return fmt.Errorf("proxy: files of %s: %w", m.Path, err)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if err := zip.Create(f, m, files); err != nil {
		return fmt.Errorf("proxy: zip of %s: %w", m.Path, err)
	}
	return nil
}

// moduleFiles lists the files of the module in dir, as git sees the working tree.
func moduleFiles(dir string) ([]zip.File, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", ".")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", dir, err)
	}
	paths := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var nested []string // directories of other modules, each with a trailing /
	for _, p := range paths {
		if d, ok := strings.CutSuffix(p, "/go.mod"); ok {
			nested = append(nested, d+"/")
		}
	}
	var files []zip.File
	for _, p := range paths {
		if p == "" || p == "go.work" || p == "go.work.sum" ||
			slices.ContainsFunc(nested, func(d string) bool { return strings.HasPrefix(p, d) }) {
			continue
		}
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if _, err := os.Lstat(abs); os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		files = append(files, diskFile{path: p, abs: abs})
	}
	return files, nil
}

// diskFile is a file of the working tree, as zip.Create reads it.
type diskFile struct{ path, abs string }

func (f diskFile) Path() string                 { return f.path }
func (f diskFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.abs) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }

// addToList adds version to a proxy's list file of versions, once.
func addToList(name, version string) error {
	b, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions := strings.Fields(string(b))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	return os.WriteFile(name, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
