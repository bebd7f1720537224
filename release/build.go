package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// defaultTargets are the platforms a release ships binaries for.
const defaultTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

// commands are the binaries a release ships, by name and package directory.
var commands = []struct{ name, pkg string }{
	{"compute", "./cmd/compute"},
	{"compute-fake", "./cmd/compute-fake"},
	{"terraform-provider-compute", "./terraform-provider-compute"},
}

func buildCmd(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	out := fs.String("o", "", "the directory to write the binaries and SHA256SUMS to")
	version := fs.String("version", "", "the version the binaries print (default: CHANGELOG.md's head)")
	targets := fs.String("targets", defaultTargets, "the os/arch pairs to build for, comma-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("build: usage: build -o DIR [-version vX.Y.Z] [-targets os/arch,...]")
	}
	v, err := versionOrHead(*version)
	if err != nil {
		return err
	}
	if !validVersion(v) {
		return fmt.Errorf("build: %q is not a release version vX.Y.Z", v)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var files []string
	for target := range strings.SplitSeq(*targets, ",") {
		goos, goarch, ok := strings.Cut(target, "/")
		if !ok || goos == "" || goarch == "" {
			return fmt.Errorf("build: -targets: %q is not os/arch", target)
		}
		names, err := buildTarget(*out, v, goos, goarch)
		if err != nil {
			return err
		}
		files = append(files, names...)
	}
	return writeSums(*out, files)
}

// buildTarget builds the commands for goos/goarch in one go build (they share most packages) into
// dir, named <command>_<version>_<os>_<arch>[.exe], and returns the names.
func buildTarget(dir, version, goos, goarch string) ([]string, error) {
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// -trimpath: no path of this machine in the binaries; -X: the version they print.
	args := []string{"build", "-trimpath", "-ldflags", "-s -w -X main.version=" + version, "-o", tmp + string(filepath.Separator)}
	for _, c := range commands {
		args = append(args, c.pkg)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "build %s/%s\n", goos, goarch)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("build: %s/%s: %w", goos, goarch, err)
	}
	exe := ""
	if goos == "windows" {
		exe = ".exe"
	}
	var names []string
	for _, c := range commands {
		name := fmt.Sprintf("%s_%s_%s_%s%s", c.name, version, goos, goarch, exe)
		if err := os.Rename(filepath.Join(tmp, c.name+exe), filepath.Join(dir, name)); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}

// writeSums writes SHA256SUMS in dir, in the format sha256sum -c reads, for files in dir.
func writeSums(dir string, files []string) error {
	slices.Sort(files)
	var sums strings.Builder
	for _, name := range files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), name)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums.String()), 0o644)
}
