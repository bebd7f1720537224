package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tfProcess is one terraform command, in a process group of its own with the providers it
// starts, so that the run can stop all of them.
type tfProcess struct {
	cmd   *exec.Cmd
	out   *lockedBuffer // its stdout and stderr
	start time.Time
	done  chan struct{} // closed when it has exited; end is set then
	end   time.Time
}

// tfResult is how a terraform command ended.
type tfResult struct {
	wall   time.Duration
	code   int  // its exit status; -1 when killed
	killed bool // the run killed it: at its bound, on Ctrl-C, or as the crash step does
	out    string
}

// startTerraform starts terraform with args in dir.
func startTerraform(bin, dir string, env []string, args ...string) (*tfProcess, error) {
	p := &tfProcess{out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Dir, p.cmd.Env = dir, env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.WaitDelay = 5 * time.Second // a process that keeps the output open does not hold the run
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		_ = p.cmd.Wait()
		p.end = time.Now()
		close(p.done)
	}()
	return p, nil
}

// wait waits until the command ends, ctx ends (it is killed), or bound has passed since its start
// (it is killed).
func (p *tfProcess) wait(ctx context.Context, bound time.Duration) tfResult {
	timer := time.NewTimer(time.Until(p.start.Add(bound)))
	defer timer.Stop()
	killed := false
	select {
	case <-p.done:
	case <-ctx.Done():
		killed = p.killGroup()
	case <-timer.C:
		killed = p.killGroup()
	}
	<-p.done
	r := tfResult{wall: p.end.Sub(p.start), code: p.cmd.ProcessState.ExitCode(), killed: killed, out: p.out.String()}
	return r
}

// killGroup kills terraform and everything it started, at once; it reports whether anything was
// still running.
func (p *tfProcess) killGroup() bool {
	select {
	case <-p.done:
		return false
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	return true
}

// crash kills terraform and the providers it runs with SIGKILL, by their PIDs, as a machine that
// loses power or an OOM killer would: nothing gets to save a state or close a connection. It
// returns the providers' PIDs.
func (p *tfProcess) crash() []int {
	providers := childrenOf(p.cmd.Process.Pid)
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	for _, pid := range providers {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return providers
}

// childrenOf returns the PIDs of the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, stat := range dirs {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue // it exited meanwhile
		}
		if parent, ok := parentPID(string(b)); ok && parent == pid {
			if child, err := strconv.Atoi(filepath.Base(filepath.Dir(stat))); err == nil {
				out = append(out, child)
			}
		}
	}
	return out
}

// parentPID reads the parent's PID from a /proc/PID/stat line: "pid (comm) state ppid ...", where
// comm may hold spaces and parentheses.
func parentPID(stat string) (int, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// errorLine is how terraform starts a diagnostic of an error with -no-color.
var errorLine = regexp.MustCompile(`(?m)^Error: `)

// errors counts the error diagnostics terraform printed; a command that failed or was killed
// without printing one counts one.
func (r tfResult) errors() int {
	n := len(errorLine.FindAllStringIndex(r.out, -1))
	if n == 0 && (r.killed || r.code != 0) {
		n = 1
	}
	return n
}

// tail is the last n lines of the output that are not blank.
func (r tfResult) tail(n int) []string {
	var lines []string
	for _, l := range strings.Split(r.out, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines[max(len(lines)-n, 0):]
}

// firstError is the first error diagnostic's summary and the line after its location, or "".
func (r tfResult) firstError() string {
	loc := errorLine.FindStringIndex(r.out)
	if loc == nil {
		return ""
	}
	rest := r.out[loc[0]:]
	summary, rest, _ := strings.Cut(rest, "\n")
	// The detail follows the "with" and "on" lines and the source line, after a blank line.
	parts := strings.Split(rest, "\n\n")
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if part != "" && !strings.HasPrefix(part, "with ") && !strings.HasPrefix(part, "on ") {
			return summary + ": " + strings.Join(strings.Fields(part), " ")
		}
	}
	return summary
}

// tfEnv is the environment of every terraform command: the CLI configuration that points at the
// providers, no prompts, no version check, and none of the caller's settings of terraform or of
// the providers (a token, an endpoint, a Redis URL), then extra.
func tfEnv(cliFile string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "COMPUTE_"), strings.HasPrefix(k, "GENESISCLOUD_"), strings.HasPrefix(k, "TF_CLI_"),
			strings.HasPrefix(k, "TF_VAR_"), k == "TF_DATA_DIR", k == "TF_WORKSPACE", k == "TF_PLUGIN_CACHE_DIR",
			k == "TF_INPUT", k == "TF_IN_AUTOMATION", k == "CHECKPOINT_DISABLE", k == "TF_REATTACH_PROVIDERS":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "TF_CLI_CONFIG_FILE="+cliFile, "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1"), extra...)
}

// lockedBuffer is a bytes.Buffer that a command writes while the run reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
