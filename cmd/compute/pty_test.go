//go:build linux || darwin

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step is what a person types (send) once the terminal shows after (ignored when empty).
type step struct{ after, send string }

// onPTY runs name with args on a new pseudo-terminal (stdin, stdout and stderr), with env added
// to the test's environment, typing the steps; it returns all the terminal showed once the process
// ends, or when bound passes (then the process is killed and the test fails).
func onPTY(t *testing.T, bound time.Duration, env []string, steps []step, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	require.NoError(t, err)
	defer tty.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return // EIO once the process and its children close the terminal
			}
		}
	}()
	seen := 0 // the output that earlier steps waited for
	for _, st := range steps {
		for st.after != "" {
			mu.Lock()
			i := strings.Index(out.String()[seen:], st.after)
			if i >= 0 {
				seen += i + len(st.after)
			}
			mu.Unlock()
			if i >= 0 || ctx.Err() != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		_, err := io.WriteString(tty, st.send)
		require.NoError(t, err)
	}
	err = cmd.Wait()
	_ = tty.Close()
	<-done
	require.NoError(t, ctx.Err(), "the process did not end within %s:\n%s", bound, out.String())
	_ = err
	mu.Lock()
	defer mu.Unlock()
	return out.String()
}

// fakeEnv starts a fake on loopback whose transitions take d of real time, and returns the
// environment that points the command at it.
func fakeEnv(t *testing.T, d time.Duration) (*computetest.Server, []string) {
	t.Helper()
	srv := computetest.NewServer(computetest.WithDurations(computetest.UniformDurations(d)))
	t.Cleanup(srv.Close)
	return srv, []string{envAsMain + "=1", "COMPUTE_API_URL=" + srv.URL, "COMPUTE_API_TOKEN=" + srv.Token,
		"HOME=" + t.TempDir(), "XDG_CONFIG_HOME="}
}

// On a terminal, the progress line of a wait shows the time waited anew every second while one
// transition (3 s of real time here) lasts, then the end; the ID is printed once the create returns.
func TestPTYProgressUpdatesDuringATransition(t *testing.T) {
	t.Parallel()
	srv, env := fakeEnv(t, 3*time.Second)
	out := onPTY(t, 30*time.Second, env, nil, os.Args[0], append(createWeb2, "--wait", "-o", "id")...)
	assert.Contains(t, out, "ins-000001\r\n", "the ID, at once")
	for _, s := range []string{"creating (0s)", "\r\x1b[Kinstance ins-000001: creating (1s)", "\r\x1b[Kinstance ins-000001: creating (2s)"} {
		assert.Contains(t, out, s, "the line lives while the instance is creating:\n%q", out)
	}
	assert.Contains(t, out, "instance ins-000001 is active after")
	assert.NotContains(t, out, srv.Token)
}

// Completion in bash on a terminal: TAB after "compute instance get " offers the fake's
// instances, and never the file in the current directory.
func TestPTYCompletionOffersInstancesNotFiles(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	srv, env := fakeEnv(t, time.Millisecond)
	mkInstance(t, srv.Client())
	bin := t.TempDir()
	require.NoError(t, os.Symlink(os.Args[0], filepath.Join(bin, "compute")))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ins-file.txt"), nil, 0o600))
	env = append(env, "PATH="+bin+":"+os.Getenv("PATH"), "PS1=$ ", "TERM=dumb")
	// The bash-completion package, or the one function of it that the script calls.
	setup := "[ -r /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion\n" +
		`declare -F _get_comp_words_by_ref >/dev/null || _get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; ` +
		`prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }` + "\n"
	steps := []step{
		{after: "$ ", send: setup},
		{after: "$ ", send: "cd " + dir + " && source <(compute completion bash) && echo re''ady\n"},
		{after: "ready", send: "compute instance get \t\t"},
		{after: "web-1", send: "\x15exit\n"},
	}
	out := onPTY(t, 30*time.Second, env, steps, bash, "--norc", "--noprofile", "-i")
	assert.Contains(t, out, "ins-000001", "the fake's instance is offered:\n%s", out)
	assert.Contains(t, out, "web-1")
	assert.NotContains(t, out, "ins-file.txt", "never a file name")
}

// /dev/null is a character device but no terminal: progress is not shown there; a pty is one.
func TestIsTerminal(t *testing.T) {
	t.Parallel()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(null), "/dev/null")
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	defer tty.Close()
	assert.True(t, isTerminal(tty), "a pseudo-terminal")
}

// On a terminal, the waits of a fleet (a stop of two instances) each write whole lines as their
// status changes, none rewritten in place (two would overwrite each other), and each instance ends
// with its line.
func TestPTYFleetProgress(t *testing.T) {
	t.Parallel()
	srv, env := fakeEnv(t, time.Second)
	insts := mkInstances(t, srv.Client(), 2)
	out := onPTY(t, 30*time.Second, env, nil, os.Args[0], "instance", "stop", insts[0].ID, insts[1].ID, "--wait", "-o", "id")
	assert.NotContains(t, out, "\x1b[K", "no line rewritten in place:\n%q", out)
	for _, inst := range insts {
		assert.Contains(t, out, "instance "+inst.ID+": stopping (", "a line per status:\n%q", out)
		assert.Contains(t, out, "instance "+inst.ID+": stopped\r\n", "a line at its end:\n%q", out)
		assert.Contains(t, out, inst.ID+"\r\n")
	}
}
