package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/compute-sdk/compute-go/internal/fakelog"
)

// logEvery is how often the run reads compute-fake's request log, which keeps its last 1,000
// requests: often enough that even a provider sending as fast as it can (the service's own sends
// about 60 a second) loses none, and seldom, since the fake copies its log under the lock that
// every request takes before it is counted: a request counted a few ms late lands less than an
// interval before the next one, which the fake then refuses. Read four times a second, the log
// drew a 429 after the first in the crash step's second apply in two runs of two; every 2 s, in
// none.
const logEvery = 2 * time.Second

// harness is one run: its settings, the binaries, and the rows and notes of the steps taken.
type harness struct {
	s        settings
	tmp      string
	fakeBin  string
	ours     flavour
	official flavour // bin "" when there is no official row
	cli      string  // the Terraform CLI configuration file
	stderr   io.Writer
	rows     []*row
	notes    []string
	loadAt   string // the machine's load at the start
	tfv      string // terraform's version
}

// newHarness builds what the flags do not name and writes the CLI configuration.
func newHarness(s settings, stderr io.Writer) (*harness, error) {
	tmp, err := os.MkdirTemp("", "tf-scalerun-")
	if err != nil {
		return nil, err
	}
	h := &harness{s: s, tmp: tmp, stderr: stderr, loadAt: loadAverage(),
		ours: flavour{typeName: ourType, source: ourSource, bin: s.providerBin, tokenEnv: ourTokenEnv}}
	if h.fakeBin = s.fakeBin; h.fakeBin == "" {
		if h.fakeBin, err = buildFake(tmp, stderr); err != nil {
			h.close()
			return nil, err
		}
	}
	if h.ours.bin == "" {
		h.ours.bin = filepath.Join(tmp, "terraform-provider-compute")
		build := exec.Command("go", "build", "-o", h.ours.bin, providerPackage)
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			h.close()
			return nil, fmt.Errorf("building %s (or pass -provider): %w", providerPackage, err)
		}
	}
	fls := []flavour{h.ours}
	if s.official != "" {
		h.official = flavour{typeName: officialType, source: s.officialSrc, bin: s.official, tokenEnv: officialToken}
		fls = append(fls, h.official)
	}
	if h.cli, err = cliConfig(tmp, fls...); err != nil {
		h.close()
		return nil, err
	}
	out, err := exec.Command(s.terraform, "version").Output()
	if err != nil {
		h.close()
		return nil, fmt.Errorf("%s version: %w", s.terraform, err)
	}
	h.tfv, _, _ = strings.Cut(string(out), "\n")
	return h, nil
}

// providerPackage is the provider's main package, built when -provider is not given.
const providerPackage = "github.com/compute-sdk/compute-go/terraform-provider-compute"

// close removes the run's files.
func (h *harness) close() { _ = os.RemoveAll(h.tmp) }

// heading is the line above the table.
func (h *harness) heading() string {
	s := h.s
	return fmt.Sprintf("scalerun: N = %d instances (stacks: %d x %d), compute-fake -rate %g -burst %d -speed %s, terraform -parallelism=%d (%s), load %s at the start",
		s.instances, s.stacks, s.instances/s.stacks, s.rate, s.burst, s.transition, s.parallelism, h.tfv, h.loadAt)
}

// note adds a line under the table.
func (h *harness) note(format string, a ...any) { h.notes = append(h.notes, fmt.Sprintf(format, a...)) }

// print writes the table and the notes.
func (h *harness) print(w io.Writer) {
	fmt.Fprintln(w)
	printTable(w, h.rows)
	fmt.Fprintln(w)
	for _, n := range append(issueNotes(h.rows), h.notes...) {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "load %s at the end\n", loadAverage())
}

// clean reports whether every step of ours held its bounds.
func (h *harness) clean() bool {
	for _, r := range h.rows {
		if r.ours && len(r.problems) > 0 {
			return false
		}
	}
	return true
}

// take takes one step against a fake of its own.
func (h *harness) take(ctx context.Context, step string) error {
	f, err := startFake(h.fakeBin, h.s, h.stderr)
	if err != nil {
		return err
	}
	defer f.stop()
	switch step {
	case stepMain:
		return h.mainStep(ctx, f)
	case stepCrash:
		return h.crashStep(ctx, f)
	case stepLost:
		return h.lostStep(ctx, f)
	default:
		return h.stacksStep(ctx, f)
	}
}

// measured is what a part of a step measured, before its row is checked.
type measured struct {
	row     *row
	results []tfResult
	log     fakelog.Log
	all     int // every instance the account held at the end
}

// measure runs part (terraform commands) while it reads the request log, then counts the
// instances the account holds.
func (h *harness) measure(ctx context.Context, f *fakeServer, name string, floor time.Duration, part func(*logWatch) []tfResult) (*measured, error) {
	w, err := f.watchLog(logEvery)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	results := part(w)
	wall := time.Since(start)
	log, logErr := w.finish()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if logErr != nil {
		return nil, fmt.Errorf("reading the request log: %w", logErr)
	}
	if h.s.logFile != "" {
		if err := appendLog(h.s.logFile, name, log.All); err != nil {
			fmt.Fprintf(h.stderr, "scalerun: -log: %v\n", err)
		}
	}
	m := &measured{results: results, log: log,
		row: &row{step: name, ours: true, wall: wall, floor: floor, c: count(log.All), overrun: log.Overrun}}
	for _, r := range results {
		m.row.errors += r.errors()
	}
	if m.row.web, m.all, err = f.instances(ctx); err != nil {
		return nil, fmt.Errorf("counting the instances: %w", err)
	}
	return m, nil
}

// terraform runs one terraform command in dir to its end, bounded.
func (h *harness) terraform(ctx context.Context, dir string, env []string, bound time.Duration, args ...string) tfResult {
	p, err := startTerraform(h.s.terraform, dir, env, args...)
	if err != nil {
		return tfResult{code: -1, out: "Error: " + err.Error() + "\n"}
	}
	return p.wait(ctx, bound)
}

// applyArgs and destroyArgs are the commands of the steps.
func (h *harness) applyArgs() []string {
	return []string{"apply", "-auto-approve", "-input=false", "-no-color", fmt.Sprintf("-parallelism=%d", h.s.parallelism)}
}

func (h *harness) destroyArgs() []string {
	return []string{"destroy", "-auto-approve", "-input=false", "-no-color", fmt.Sprintf("-parallelism=%d", h.s.parallelism)}
}

// addErrorNote notes the first error of each result that failed.
func (h *harness) addErrorNote(step string, results ...tfResult) {
	for _, r := range results {
		if e := r.firstError(); e != "" {
			h.note("%s: %d errors, the first: %s", step, r.errors(), e)
		} else if r.killed {
			h.note("%s: killed at its bound", step)
		}
	}
}

// loadAverage is the machine's load over the last minute ("" where unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// appendLog appends a step's request log to the file at path, one JSON object a request.
func appendLog(path, step string, log []fakelog.Entry) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, e := range log {
		if err := enc.Encode(struct {
			Step string `json:"step"`
			fakelog.Entry
		}{step, e}); err != nil {
			_ = f.Close()
			return err
		}
	}
	return f.Close()
}
