//go:build windows

package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// openFlags: Windows has no O_NOFOLLOW; a symbolic link (a reparse point) is refused before the
// file is opened, and the opened file is checked again.
const openFlags = 0

func isSymlinkError(error) bool { return false }

// checkFile refuses a file the limiter would not have made: a symbolic link or anything but a
// regular file, or a read-only one. Windows keeps a file's owner and access in its ACL, which
// the user's profile directory (where the default directory lies) already restricts.
func checkFile(fi fs.FileInfo) *refusal {
	switch {
	case fi.Mode().Type() != 0:
		return &refusal{fmt.Sprintf("not a regular file (%s)", fi.Mode())}
	case fi.Mode().Perm()&0o200 == 0:
		return &refusal{"read-only"}
	}
	return nil
}

// checkDir accepts any directory: see checkFile.
func checkDir(fs.FileInfo) *refusal { return nil }

// tryLock takes f's lock (LockFileEx on its first byte) if it is free; busy reports that another
// holds it.
func tryLock(f *os.File) (busy bool, err error) {
	ol := new(windows.Overlapped)
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return true, nil
	}
	return false, fmt.Errorf("locking %s: %w", f.Name(), err)
}

// unlock releases f's lock.
func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
