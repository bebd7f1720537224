//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openFlags: never follow a symbolic link in the file's place, never block opening a FIFO.
const openFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK

// isSymlinkError reports the error of opening a symbolic link with O_NOFOLLOW (ELOOP; EMLINK on
// FreeBSD and DragonFly). A symbolic link is refused before it is opened: this is for one put in
// place meanwhile (elsewhere, another error, after which the next try refuses it).
func isSymlinkError(err error) bool {
	return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK)
}

// checkFile refuses a file the limiter would not have made: not a regular file, another user's,
// with another mode than 0600, or with a second name (a hard link would let the limiter write over
// a file of the user's elsewhere).
func checkFile(fi fs.FileInfo) *refusal {
	if fi.Mode().Type() != 0 {
		return &refusal{fmt.Sprintf("not a regular file (%s)", fi.Mode())}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return &refusal{"no owner to check"}
	}
	switch {
	case int(st.Uid) != os.Geteuid():
		return &refusal{fmt.Sprintf("owned by user %d", st.Uid)}
	case fi.Mode().Perm() != 0o600:
		return &refusal{fmt.Sprintf("mode %#o, not 0600", fi.Mode().Perm())}
	case uint64(st.Nlink) != 1:
		return &refusal{fmt.Sprintf("%d links to it", st.Nlink)}
	}
	return nil
}

// checkDir refuses a directory that is not the user's or that others can write in.
func checkDir(fi fs.FileInfo) *refusal {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return &refusal{"no owner to check"}
	}
	switch {
	case int(st.Uid) != os.Geteuid():
		return &refusal{fmt.Sprintf("owned by user %d", st.Uid)}
	case fi.Mode().Perm()&0o022 != 0:
		return &refusal{fmt.Sprintf("mode %#o: others can write in it", fi.Mode().Perm())}
	}
	return nil
}

// tryLock takes f's lock (flock) if it is free; busy reports that another holds it.
func tryLock(f *os.File) (busy bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, unix.EWOULDBLOCK), errors.Is(err, unix.EINTR):
		return true, nil
	}
	return false, fmt.Errorf("locking %s: %w", f.Name(), err)
}

// unlock releases f's lock.
func unlock(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_UN)
}
