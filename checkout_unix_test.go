//go:build unix

package compute

import (
	"io/fs"
	"os"
	"syscall"
)

// listUnrecorded lists dir as os.ReadDir does, but opens it with syscall.Open, which the go
// command's test log does not see (os.Open would record it); reading the entries and their types
// through the *os.File records nothing either.
func listUnrecorded(dir string) ([]fs.DirEntry, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	return f.ReadDir(-1)
}
