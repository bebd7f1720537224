//go:build unix

package file_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nobody is the user a root test runs its unprivileged children as.
const nobody = 65534

// TestAHostileFileIsRefusedAndReset: whatever is in the file's place, a caller is served at once,
// the limiter reports once that it refused it, and afterwards the place holds the limiter's own
// record (a regular file of the user's, mode 0600, one name); no file it pointed or linked to is
// read or written.
func TestAHostileFileIsRefusedAndReset(t *testing.T) {
	year := time.Now().Add(365 * 24 * time.Hour).UnixNano()
	step := int64(ratelimitfile.Step(100))
	record := func(b ratelimitfile.Budget) []byte {
		if b.Step == 0 {
			b.Step = step
		}
		b.MinRTT = -1
		return b.Encode()
	}
	cases := map[string]func(t *testing.T, path, victim string){
		"garbage": func(t *testing.T, path, _ string) {
			require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\nrm -rf ~\n"), 0o600))
		},
		"garbage of a record's size": func(t *testing.T, path, _ string) {
			require.NoError(t, os.WriteFile(path, bytes.Repeat([]byte{0xff}, ratelimitfile.RecordSize), 0o600))
		},
		"huge": func(t *testing.T, path, _ string) {
			f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
			require.NoError(t, err)
			require.NoError(t, f.Truncate(1<<40)) // a sparse terabyte
			require.NoError(t, f.Close())
		},
		"a turn due in a year": func(t *testing.T, path, _ string) {
			require.NoError(t, os.WriteFile(path, record(ratelimitfile.Budget{Tat: year, Seq: 41}), 0o600))
		},
		"a pause of a year": func(t *testing.T, path, _ string) {
			require.NoError(t, os.WriteFile(path, record(ratelimitfile.Budget{Until: year, Seq: 41, Armed: true}), 0o600))
		},
		"an interval of a year": func(t *testing.T, path, _ string) {
			require.NoError(t, os.WriteFile(path, record(ratelimitfile.Budget{Step: 365 * 24 * int64(time.Hour), Seq: 41}), 0o600))
		},
		"a checksum that does not match": func(t *testing.T, path, _ string) {
			b := record(ratelimitfile.Budget{Seq: 41})
			b[20] ^= 1
			require.NoError(t, os.WriteFile(path, b, 0o600))
		},
		"a symbolic link to a file of the user's": func(t *testing.T, path, victim string) {
			require.NoError(t, os.Symlink(victim, path))
		},
		"a symbolic link to nowhere": func(t *testing.T, path, victim string) {
			require.NoError(t, os.Remove(victim))
			require.NoError(t, os.Symlink(victim, path))
		},
		"a hard link to a file of the user's": func(t *testing.T, path, victim string) {
			require.NoError(t, os.Link(victim, path))
		},
		"a FIFO": func(t *testing.T, path, _ string) {
			require.NoError(t, syscall.Mkfifo(path, 0o600))
		},
		"open to others": func(t *testing.T, path, _ string) {
			require.NoError(t, os.WriteFile(path, record(ratelimitfile.Budget{Seq: 41}), 0o600))
			require.NoError(t, os.Chmod(path, 0o666))
		},
		"read-only": func(t *testing.T, path, _ string) {
			require.NoError(t, os.WriteFile(path, record(ratelimitfile.Budget{Seq: 41}), 0o600))
			require.NoError(t, os.Chmod(path, 0o400))
		},
		"another user's": func(t *testing.T, path, _ string) {
			if os.Geteuid() != 0 {
				t.Skip("only root can give a file to another user")
			}
			require.NoError(t, os.WriteFile(path, record(ratelimitfile.Budget{Seq: 41}), 0o600))
			require.NoError(t, os.Chown(path, nobody, nobody))
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(t.TempDir(), "victim")
			const victimText = "the user's own file\n"
			require.NoError(t, os.WriteFile(victim, []byte(victimText), 0o600))
			l, r := newLimiter(t, dir, 100)
			setup(t, l.Path(), victim)

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			_, _, seq, err := ratelimitfile.WaitGrant(ctx, l)
			require.NoError(t, err)
			assert.Less(t, time.Since(start), 300*time.Millisecond, "served at once")
			assert.Equal(t, uint64(1), seq, "from a fresh budget in the file")
			require.NoError(t, wait(ctx, l))
			reports := r.all()
			require.Len(t, reports, 1, "reported once: %v", reports)
			require.Error(t, reports[0])
			assert.Contains(t, reports[0].Error(), "refused")
			assert.Contains(t, reports[0].Error(), l.Path())
			assert.ErrorIs(t, reports[0], ratelimitfile.ErrRefused, "not a fallback")
			assert.NotContains(t, reports[0].Error(), "pacing this process alone")

			fi, err := os.Lstat(l.Path())
			require.NoError(t, err)
			require.True(t, fi.Mode().IsRegular(), "a regular file, not %s", fi.Mode())
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			assert.Equal(t, int64(ratelimitfile.RecordSize), fi.Size())
			st := fi.Sys().(*syscall.Stat_t)
			assert.Equal(t, uint32(os.Geteuid()), st.Uid)
			assert.Equal(t, uint64(1), uint64(st.Nlink))
			budget, err := ratelimitfile.ReadBudget(l.Path())
			require.NoError(t, err)
			assert.Equal(t, uint64(2), budget.Seq)
			if b, err := os.ReadFile(victim); err == nil {
				assert.Equal(t, victimText, string(b), "the file it pointed to is untouched")
			} else {
				assert.ErrorIs(t, err, os.ErrNotExist, "the link's target is not created")
			}
		})
	}
}

// TestADirectoryInTheFilesPlaceFallsBack: what the limiter cannot replace (a directory) makes it
// pace its process alone, reported once; callers are still served.
func TestADirectoryInTheFilesPlaceFallsBack(t *testing.T) {
	l, r := newLimiter(t, t.TempDir(), 100)
	require.NoError(t, os.MkdirAll(filepath.Join(l.Path(), "x"), 0o700))
	ratelimitfile.SetRecheck(l, 20*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 5 {
		require.NoError(t, wait(ctx, l))
	}
	reports := r.all()
	require.NotEmpty(t, reports)
	for _, err := range reports {
		require.Error(t, err)
	}
	assert.Contains(t, reports[len(reports)-1].Error(), "pacing this process alone")
	var alone int
	for _, err := range reports {
		if strings.Contains(err.Error(), "pacing this process alone") {
			alone++
		}
	}
	assert.Equal(t, 1, alone, "one fallback reported once, though the file is tried again: %v", reports)
	_, err := os.Stat(filepath.Join(l.Path(), "x"))
	assert.NoError(t, err, "the directory is left alone")
}

// TestADirectoryOthersCanWriteInIsRefused: the limiter keeps no file where another user could put
// one in its place.
func TestADirectoryOthersCanWriteInIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o777))
	l, r := newLimiter(t, dir, 100)
	require.NoError(t, wait(context.Background(), l))
	reports := r.all()
	require.Len(t, reports, 1)
	assert.Contains(t, reports[0].Error(), "others can write in it")
	_, err := os.Stat(l.Path())
	assert.ErrorIs(t, err, os.ErrNotExist, "no file made there")
}

// TestAReadOnlyDirectoryFallsBack: a directory the user cannot write in makes the limiter pace its
// process alone (still at the rate), reported once; once the directory can be written again, the
// limiter goes back to the file after its recheck period and reports it with nil. Root writes
// anywhere, so as root the scenario runs in a child process as the user nobody.
func TestAReadOnlyDirectoryFallsBack(t *testing.T) {
	dir := t.TempDir()
	var res readOnlyResult
	if os.Geteuid() != 0 {
		var err error
		res, err = readOnlyScenario(dir)
		require.NoError(t, err)
	} else {
		res = readOnlyAsNobody(t, dir)
	}
	assert.Empty(t, res.WaitErrors)
	require.Len(t, res.Reports, 2, "%q", res.Reports)
	assert.Contains(t, res.Reports[0], "pacing this process alone")
	assert.Contains(t, res.Reports[0], "permission denied")
	assert.NotContains(t, res.Reports[0], "SECRET")
	assert.Equal(t, "", res.Reports[1], "back on the file")
	assert.GreaterOrEqual(t, res.Took, 4*time.Second/100*99/100, "the fallback paces at the rate")
	assert.Empty(t, res.SizeErr)
	assert.Equal(t, int64(ratelimitfile.RecordSize), res.Size, "the file serves again")
}

// readOnlyAsNobody runs readOnlyScenario in dir in a child process as the user nobody, from a copy
// of the test binary that nobody can run.
func readOnlyAsNobody(t *testing.T, dir string) readOnlyResult {
	bin := filepath.Join(t.TempDir(), "file.test")
	src, err := os.Open(os.Args[0])
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin)), filepath.Dir(dir), dir} {
		require.NoError(t, os.Chmod(d, 0o755))
	}
	require.NoError(t, os.Chown(dir, nobody, nobody))
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=readonly", envDir+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "%s", out.String())
	var res readOnlyResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), "%s", out.String())
	return res
}
