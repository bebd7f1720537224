package compute

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The tests that read the checkout (the doc-comment and API checks walk every module, others scan
// this package's sources) never list its top directory through package os. The go command's test
// cache records each directory a test lists, and runs the package again when any entry of it
// changes, its modification time included; the top directory holds .git, which every git status
// touches (a shell prompt, an editor), so a run after one would run every test again, for a
// minute. What is lost: the top directory's .go files are this package's own, on which the test
// binary depends already, but a directory added at the top is only seen once something else
// changes (go test -count=1 sees it). The directories below it are listed through os, recorded.

// topEntries lists the checkout's top directory, sorted by name, unrecorded where the platform
// allows (see listUnrecorded).
func topEntries() ([]fs.DirEntry, error) {
	entries, err := listUnrecorded(".")
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// topGoFiles lists the .go files of the checkout's top directory, this package's sources, sorted.
func topGoFiles() ([]string, error) {
	entries, err := topEntries()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// walkDir is filepath.WalkDir(root, fn), but for the top directory ("."), whose listing it reads
// with topEntries.
func walkDir(root string, fn fs.WalkDirFunc) error {
	if root != "." {
		return filepath.WalkDir(root, fn)
	}
	if err := fn(".", topDir{}, nil); err != nil {
		if err == filepath.SkipDir || err == filepath.SkipAll {
			return nil
		}
		return err
	}
	entries, err := topEntries()
	if err != nil {
		return fn(".", topDir{}, err)
	}
	for _, e := range entries {
		err := fn(e.Name(), e, nil)
		if e.IsDir() && err == nil {
			err = filepath.WalkDir(e.Name(), func(path string, d fs.DirEntry, err error) error {
				if path == e.Name() && err == nil {
					return nil // fn has seen it
				}
				return fn(path, d, err)
			})
		}
		switch {
		case err == filepath.SkipAll:
			return nil
		case err == filepath.SkipDir && !e.IsDir():
			return nil // the rest of the top directory is skipped
		case err != nil && err != filepath.SkipDir:
			return err
		}
	}
	return nil
}

// readDir is os.ReadDir, but for the top directory, which it lists with topEntries.
func readDir(dir string) ([]fs.DirEntry, error) {
	if dir == "." {
		return topEntries()
	}
	return os.ReadDir(dir)
}

// topDir is the top directory as walkDir shows it.
type topDir struct{}

func (topDir) Name() string               { return "." }
func (topDir) IsDir() bool                { return true }
func (topDir) Type() fs.FileMode          { return fs.ModeDir }
func (topDir) Info() (fs.FileInfo, error) { return os.Lstat(".") }

// TopGoFiles is topGoFiles for the tests of package compute_test.
var TopGoFiles = topGoFiles
