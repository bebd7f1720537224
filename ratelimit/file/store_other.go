//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || windows)

package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// On the systems left (Plan 9, AIX, WebAssembly) the limiter has no lock to take: it always paces
// the process alone, and says so once through the error handler.

const openFlags = 0

func isSymlinkError(error) bool { return false }

func checkFile(fi fs.FileInfo) *refusal {
	if fi.Mode().Type() != 0 {
		return &refusal{fmt.Sprintf("not a regular file (%s)", fi.Mode())}
	}
	return nil
}

func checkDir(fs.FileInfo) *refusal { return nil }

func tryLock(*os.File) (bool, error) {
	return false, fmt.Errorf("no file lock on this system: %w", errors.ErrUnsupported)
}

func unlock(*os.File) error { return errors.ErrUnsupported }
