package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// lockTimeout bounds how long a process waits for another to release the file's lock, which is held
// only for a read and a write. A holder that is stopped (not killed) would keep it: past this, the
// waiter falls back to its own pacing as for any I/O error.
const lockTimeout = 500 * time.Millisecond

// The lock is polled, so that a wait for it ends with the caller's context and with lockTimeout;
// between polls the waiter sleeps from lockPollMin, doubling up to lockPollMax.
const (
	lockPollMin = 20 * time.Microsecond
	lockPollMax = time.Millisecond
)

// errReplaced is a file that is no longer the one at the path (removed, or replaced since it was
// opened), or that no longer passes the checks: the caller opens the path again.
var errReplaced = errors.New("the file was replaced")

// refusal is a file or directory that the limiter does not use as it is: not a regular file, a
// symbolic link, another user's, open to others, linked elsewhere.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

// ensureDir creates dir (mode 0700, with its parents) when it is missing and checks that only the
// user can write in it, so that nobody else can put a file in the limiter's place.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if r := checkDir(fi); r != nil {
		return fmt.Errorf("%s: %w", dir, r)
	}
	return nil
}

// openFile opens the budget's file at path in dir, creating it (mode 0600) when it is missing. A
// file that is there but not one the limiter would have made (checkFile) is refused: it is
// replaced by an empty file, a fresh budget, and refused says why.
func openFile(dir, path string) (f *os.File, refused error, err error) {
	if err := ensureDir(dir); err != nil {
		return nil, nil, err
	}
	for range 3 {
		f, err := tryOpen(path)
		var r *refusal
		if !errors.As(err, &r) {
			return f, refused, err
		}
		if err := replace(dir, path); err != nil {
			return nil, refused, fmt.Errorf("%s: %w; replacing it: %w", path, r, err)
		}
		refused = fmt.Errorf("%s refused and replaced: %w", path, r)
	}
	return nil, refused, fmt.Errorf("%s: refused three times", path)
}

// tryOpen opens path for reading and writing, creating it (mode 0600) when it is missing, without
// following a symbolic link and without blocking on a FIFO; it refuses what checkFile refuses,
// before opening it (a device or a FIFO is never opened) and after.
func tryOpen(path string) (*os.File, error) {
	for range 3 {
		var f *os.File
		fi, err := os.Lstat(path)
		switch {
		case err == nil:
			if r := checkFile(fi); r != nil {
				return nil, r
			}
			f, err = os.OpenFile(path, os.O_RDWR|openFlags, 0)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed meanwhile
			}
		case errors.Is(err, fs.ErrNotExist):
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|openFlags, 0o600)
			if errors.Is(err, fs.ErrExist) {
				continue // created meanwhile
			}
			if err == nil {
				err = f.Chmod(0o600) // whatever the umask
			}
		}
		if err == nil {
			fi, err = f.Stat()
			if err == nil {
				if r := checkFile(fi); r != nil {
					err = r
				}
			}
		}
		if err != nil {
			if f != nil {
				_ = f.Close()
			}
			if isSymlinkError(err) {
				return nil, &refusal{"a symbolic link"}
			}
			return nil, err
		}
		return f, nil
	}
	return nil, fmt.Errorf("%s kept changing while it was opened", path)
}

// replace puts an empty file of the user's, mode 0600, in place of path. A process that had the
// old file open sees that it was replaced (update) and opens the new one.
func replace(dir, path string) error {
	tmp, err := os.CreateTemp(dir, ".replace-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	err = tmp.Chmod(0o600)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		_ = os.Remove(name)
	}
	return err
}

// lock takes the file's lock, polling until it is free, ctx ends (its error is returned) or
// lockTimeout passes.
func lock(ctx context.Context, f *os.File) error {
	start := time.Now()
	pause := lockPollMin
	for {
		busy, err := tryLock(f)
		if err != nil || !busy {
			return err
		}
		if time.Since(start) > lockTimeout {
			return fmt.Errorf("another process held the lock of %s for over %s", f.Name(), lockTimeout)
		}
		if err := sleep(ctx, pause); err != nil {
			return err
		}
		pause = min(2*pause, lockPollMax)
	}
}

// readState reads the budget from f, whose size is size: nothing yet (an empty file) is a fresh
// budget; a record this package did not write is reported in corrupt, and the budget is fresh.
func readState(f *os.File, size, now, step int64) (s state, corrupt error, err error) {
	switch {
	case size == 0:
		return fresh(step), nil, nil
	case size != recordSize:
		return fresh(step), fmt.Errorf("%w: %d bytes", errCorrupt, size), nil
	}
	b := make([]byte, recordSize)
	if _, err := f.ReadAt(b, 0); err != nil {
		if errors.Is(err, io.EOF) { // shortened since Stat
			return fresh(step), fmt.Errorf("%w: shorter than a record", errCorrupt), nil
		}
		return state{}, nil, err
	}
	s, corrupt = decode(b, now)
	if corrupt != nil {
		return fresh(step), corrupt, nil
	}
	return s, nil, nil
}

// writeAt writes to the file; a test replaces it to fill the disk.
var writeAt = (*os.File).WriteAt

// writeState writes s over the file's record and cuts what follows it.
func writeState(f *os.File, s state, size int64) error {
	if _, err := writeAt(f, s.encode(), 0); err != nil {
		return err
	}
	if size > recordSize {
		return f.Truncate(recordSize)
	}
	return nil
}
