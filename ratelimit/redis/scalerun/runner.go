package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/internal/fakelog"
)

// fakePackage is compute-fake's package, built when -fake is not given.
const fakePackage = "github.com/compute-sdk/compute-go/cmd/compute-fake"

// fakeBinary is the compute-fake to run.
type fakeBinary struct {
	path     string
	hasBurst bool // it takes -burst; an older one has only its built-in burst
}

// locateFake returns the binary at path, or builds one into dir when path is "".
func locateFake(path, dir string, stderr io.Writer) (fakeBinary, error) {
	if path == "" {
		path = dir + "/compute-fake"
		build := exec.Command("go", "build", "-o", path, fakePackage)
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			return fakeBinary{}, fmt.Errorf("building %s (or pass -fake): %w", fakePackage, err)
		}
	}
	help, _ := exec.Command(path, "-h").CombinedOutput()
	if !bytes.Contains(help, []byte("compute-fake")) {
		return fakeBinary{}, fmt.Errorf("%s -h does not describe compute-fake", path)
	}
	return fakeBinary{path: path, hasBurst: bytes.Contains(help, []byte("-burst"))}, nil
}

// result is what one run measured.
type result struct {
	s        settings
	mode     string
	burst    string // as passed to the fake, or why not
	finished bool   // every worker ended its teardown within the bound
	wall     time.Duration
	phases   [3]time.Duration // when the last worker ended its creates, waits and teardown
	reports  []report
	lost     int // workers that reported nothing
	log      counts
	overrun  bool // the request log may miss requests
	lookups  int64
	left     int
	leftErr  error
	killedAt time.Duration
	backAt   time.Duration
	redisErr error
	load     string // the machine's load average at the end
	churn    *churnReport
}

// floor is the run's floor: with the churn, the requests it sent during the run count in the
// budget beside the job's (3 per instance).
func (r *result) floor() time.Duration {
	if r.churn == nil {
		return r.s.floor()
	}
	return time.Duration((3*float64(r.s.instances)+float64(r.churn.During))/r.s.rate*float64(time.Second)) + 2*r.s.transition
}

// failed is the number of job calls that failed.
func (r *result) failed() (creates, waits, deletes, stuck int) {
	for _, rep := range r.reports {
		creates, waits, deletes, stuck = creates+rep.FailedCreates, waits+rep.FailedWaits, deletes+rep.FailedDeletes, stuck+rep.Stuck
	}
	return
}

// clean reports whether the run finished with every job call successful, nothing left, no
// duplicate create and a whole log.
func (r *result) clean() bool {
	c, w, d, _ := r.failed()
	return r.finished && r.lost == 0 && c+w+d == 0 && r.leftErr == nil && r.left == 0 &&
		r.log.duplicates == 0 && !r.overrun && r.redisErr == nil && (!r.s.churn || r.churn != nil && r.churn.Failed == 0)
}

// line is the run's figures on one line.
func (r *result) line() string {
	var b strings.Builder
	s := r.s
	fmt.Fprintf(&b, "scalerun mode=%s workers=%d instances=%d rate=%g burst=%s transition=%s: ", r.mode, s.workers,
		s.instances, s.rate, r.burst, s.transition)
	if s.redisWait > 0 && r.mode != modeLocal {
		fmt.Fprintf(&b, "(Redis timeout %s) ", s.redisWait)
	}
	if s.jitter > 0 {
		fmt.Fprintf(&b, "(one request in 4 %s late) ", s.jitter)
	}
	floor := r.floor()
	if r.finished {
		fmt.Fprintf(&b, "wall %.1fs, floor %.1fs, ratio %.2f", r.wall.Seconds(), floor.Seconds(), r.wall.Seconds()/floor.Seconds())
	} else {
		fmt.Fprintf(&b, "did not finish (bounded at %.0fs), floor %.1fs", s.hardBound().Seconds(), floor.Seconds())
	}
	fmt.Fprintf(&b, "; 429s after the first %d", max(r.log.throttled-1, 0))
	c, w, d, stuck := r.failed()
	fmt.Fprintf(&b, "; failed job calls %d (creates %d, waits %d, deletes %d", c+w+d, c, w, d)
	if stuck > 0 {
		fmt.Fprintf(&b, "; %d never returned", stuck)
	}
	b.WriteString(")")
	if r.leftErr != nil {
		fmt.Fprintf(&b, "; instances left unknown (%v)", r.leftErr)
	} else {
		fmt.Fprintf(&b, "; instances left %d", r.left)
	}
	fmt.Fprintf(&b, "; duplicate creates %d", r.log.duplicates)
	fmt.Fprintf(&b, "; requests %d: lookup pages %d, wait pages %d, GETs %d, creates %d, deletes %d",
		r.log.total, r.lookups, r.log.lists-int(r.lookups), r.log.gets, r.log.creates, r.log.deletes)
	if r.log.other > 0 {
		fmt.Fprintf(&b, ", other %d", r.log.other)
	}
	fmt.Fprintf(&b, "; up %.1fs, active %.1fs, gone %.1fs", r.phases[0].Seconds(), r.phases[1].Seconds(), r.phases[2].Seconds())
	if r.mode == modeRestart {
		if r.killedAt > 0 {
			fmt.Fprintf(&b, "; Redis killed at %.1fs, back at %.1fs", r.killedAt.Seconds(), r.backAt.Seconds())
		} else {
			b.WriteString("; Redis not killed (the run ended first)")
		}
	}
	if s.churn {
		if r.churn == nil {
			b.WriteString("; the churn reported nothing")
		} else {
			fmt.Fprintf(&b, "; churn: %d requests during the run (counted in the floor), %d after, %d instances, %d failed",
				r.churn.During, r.churn.After, r.churn.Created, r.churn.Failed)
		}
	}
	if r.redisErr != nil {
		fmt.Fprintf(&b, "; Redis restart failed: %v", r.redisErr)
	}
	if r.lost > 0 {
		fmt.Fprintf(&b, "; %d workers reported nothing", r.lost)
	}
	if r.overrun {
		b.WriteString("; the request log overran: counts are lower bounds")
	}
	if r.load != "" {
		fmt.Fprintf(&b, "; load %s", r.load)
	}
	return b.String()
}

// runOnce runs the job once in mode against a fresh compute-fake (and Redis). When ctx ends it
// stops the workers, the fake and Redis, and returns ctx's error.
func runOnce(ctx context.Context, s settings, mode string, f fakeBinary, stderr io.Writer) (*result, error) {
	r := &result{s: s, mode: mode, burst: strconv.Itoa(s.burst)}
	token, control := randomHex(), randomHex()
	args := []string{"-addr", "127.0.0.1:0", "-rate", strconv.FormatFloat(s.rate, 'g', -1, 64), "-speed", s.transition.String()}
	if f.hasBurst {
		args = append(args, "-burst", strconv.Itoa(s.burst))
	} else {
		r.burst = "the fake's own (it has no -burst)"
	}
	fake, url, err := startFake(f.path, args, token, control, stderr)
	if err != nil {
		return nil, err
	}
	defer stopFake(fake)

	var rs *redisServer
	if mode != modeLocal {
		if rs, err = startRedis(s.redisServer); err != nil {
			return nil, err
		}
		defer rs.kill()
	}

	// Every worker starts at once, a moment from now, and stops by the hard bound.
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	runID := randomHex()[:8]
	start := time.Now().Add(1500 * time.Millisecond)
	deadline := start.Add(s.hardBound())
	cmds := make([]*exec.Cmd, s.workers)
	outs := make([]*bytes.Buffer, s.workers)
	for w := range s.workers {
		j := job{Index: w, URL: url, Mode: mode, Rate: s.rate, Workers: s.workers,
			KeyPrefix: "scalerun:" + runID + ":", RedisWait: s.redisWait, Start: start.UnixNano(), Deadline: deadline.UnixNano(),
			RunID: runID, Jitter: s.jitter}
		for i := w; i < s.instances; i += s.workers {
			j.Names = append(j.Names, fmt.Sprintf("scale-%s-%04d", runID, i))
		}
		if rs != nil {
			j.RedisAddr = rs.addr()
		}
		b, err := json.Marshal(j)
		if err != nil {
			return nil, err
		}
		cmds[w] = exec.Command(self, workerFlag)
		cmds[w].Env = append(os.Environ(), envWorker+"="+string(b), envToken+"="+token)
		outs[w] = &bytes.Buffer{}
		cmds[w].Stdout, cmds[w].Stderr = outs[w], stderr
		if err := cmds[w].Start(); err != nil {
			for _, c := range cmds[:w] {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
			return nil, err
		}
	}

	// The churn: another process on the token, until the workers end (its standard input closes).
	var churnCmd *exec.Cmd
	var churnIn io.WriteCloser
	churnOut := &bytes.Buffer{}
	if s.churn {
		j := job{Index: s.workers, URL: url, Mode: mode, Rate: s.rate, Workers: s.workers,
			KeyPrefix: "scalerun:" + runID + ":", RedisWait: s.redisWait, Start: start.UnixNano(), Deadline: deadline.UnixNano(),
			RunID: runID, Churn: true, ChurnRate: s.churnRate(), Jitter: s.jitter, Settle: 2*s.transition + time.Second}
		if rs != nil {
			j.RedisAddr = rs.addr()
		}
		b, err := json.Marshal(j)
		if err != nil {
			return nil, err
		}
		churnCmd = exec.Command(self, workerFlag)
		churnCmd.Env = append(os.Environ(), envWorker+"="+string(b), envToken+"="+token)
		churnCmd.Stdout, churnCmd.Stderr = churnOut, stderr
		if churnIn, err = churnCmd.StdinPipe(); err != nil {
			return nil, err
		}
		if err := churnCmd.Start(); err != nil {
			return nil, err
		}
	}

	// While they run: read the request log every second, and kill and restart Redis.
	stop := make(chan struct{})
	var bg sync.WaitGroup
	hc := &http.Client{Timeout: 10 * time.Second}
	var rlog fakelog.Log
	var logErr error
	bg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			if read, err := readLog(hc, url, control); err != nil {
				logErr = err
			} else {
				rlog.Merge(read)
			}
		}
	})
	if mode == modeRestart {
		bg.Go(func() {
			select {
			case <-stop:
				return
			case <-time.After(time.Until(start.Add(s.killTime()))):
			}
			rs.kill()
			r.killedAt = time.Since(start)
			time.Sleep(s.down)
			r.redisErr = rs.restart()
			r.backAt = time.Since(start)
		})
	}
	exited := make(chan struct{})
	go func() {
		for _, c := range cmds {
			_ = c.Wait()
		}
		close(exited)
	}()
	kill := func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
		}
		<-exited
	}
	select {
	case <-exited:
	case <-time.After(time.Until(deadline.Add(stuckGrace + 10*time.Second))):
		kill()
	case <-ctx.Done():
		kill()
	}
	if churnCmd != nil { // the job is done: the churn cleans up and reports
		_ = churnIn.Close()
		churnDone := make(chan struct{})
		go func() { _ = churnCmd.Wait(); close(churnDone) }()
		select {
		case <-churnDone:
		case <-time.After(time.Until(deadline.Add(stuckGrace + 10*time.Second))):
			_ = churnCmd.Process.Kill()
			<-churnDone
		case <-ctx.Done():
			_ = churnCmd.Process.Kill()
			<-churnDone
		}
		var rep churnReport
		if err := json.Unmarshal(bytes.TrimSpace(churnOut.Bytes()), &rep); err == nil {
			r.churn = &rep
			for _, e := range rep.Errors {
				fmt.Fprintf(stderr, "scalerun: churn: %s\n", e)
			}
		} else {
			fmt.Fprintf(stderr, "scalerun: the churn reported nothing usable: %q\n", churnOut.String())
		}
	}
	close(stop)
	bg.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted; the workers, the fake and Redis are stopped: %w", ctx.Err())
	}

	// Count: the workers' reports, the whole log, and what the fake still holds.
	read, err := readLog(hc, url, control)
	if err != nil {
		return nil, fmt.Errorf("reading the request log: %w", err)
	}
	if logErr != nil {
		fmt.Fprintf(stderr, "scalerun: a read of the request log failed during the run: %v\n", logErr)
	}
	rlog.Merge(read)
	r.log, r.overrun = count(rlog.All), rlog.Overrun
	if s.logFile != "" {
		if err := appendLog(s.logFile, mode, start, rlog.All); err != nil {
			fmt.Fprintf(stderr, "scalerun: -log: %v\n", err)
		}
	}
	r.finished = true
	for w, out := range outs {
		var rep report
		if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &rep); err != nil {
			r.lost++
			r.finished = false
			fmt.Fprintf(stderr, "scalerun: worker %d reported nothing usable: %q\n", w, out.String())
			continue
		}
		r.reports = append(r.reports, rep)
		r.lookups += rep.LookupPages
		if rep.Done == 0 {
			r.finished = false
		}
		r.wall = max(r.wall, time.Unix(0, rep.Done).Sub(start))
		for i, t := range rep.Phases {
			r.phases[i] = max(r.phases[i], time.Unix(0, t).Sub(start))
		}
		for _, e := range rep.Errors {
			fmt.Fprintf(stderr, "scalerun: worker %d: %s\n", w, e)
		}
	}
	r.left, r.leftErr = instancesLeft(url, token)
	r.load = loadAverage()
	return r, nil
}

// appendLog appends the run's request log to the file at path, one JSON object a request.
func appendLog(path, mode string, start time.Time, log []fakelog.Entry) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, e := range log {
		if err := enc.Encode(struct {
			Mode  string `json:"mode"`
			Start string `json:"start"`
			fakelog.Entry
		}{mode, start.UTC().Format(time.RFC3339Nano), e}); err != nil {
			_ = f.Close()
			return err
		}
	}
	return f.Close()
}

// loadAverage is the machine's load over the last minute, for the record ("" where unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return ""
}

// instancesLeft counts the instances the fake holds at the end.
func instancesLeft(url, token string) (int, error) {
	c, err := compute.NewClient(token, compute.WithBaseURL(url))
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := 0
	for _, err := range c.Instances.All(ctx, nil) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// startFake starts compute-fake with args and the tokens in its environment, and returns it with
// its URL once it listens.
func startFake(path string, args []string, token, control string, stderr io.Writer) (*exec.Cmd, string, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "COMPUTE_FAKE_TOKEN="+token, "COMPUTE_FAKE_CONTROL_TOKEN="+control)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "compute-fake listening on "); ok {
				listening <- u
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case u := <-listening:
		return cmd, u, nil
	case <-time.After(10 * time.Second):
		stopFake(cmd)
		return nil, "", errors.New("compute-fake did not say where it listens within 10 s")
	}
}

// stopFake stops compute-fake, killing it if it takes more than 10 s.
func stopFake(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// randomHex is 32 random hex digits: a token, or a run's ID.
func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
