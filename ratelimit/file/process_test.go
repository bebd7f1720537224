package file_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests below run copies of this test binary as other processes; TestMain turns a copy into
// the child that envChild names, which reads its settings from the variables after it.
const (
	envChild   = "COMPUTE_FILELIM_CHILD"
	envDir     = "COMPUTE_FILELIM_DIR"
	envPath    = "COMPUTE_FILELIM_PATH"
	envRate    = "COMPUTE_FILELIM_RATE"
	envStart   = "COMPUTE_FILELIM_START"
	envRun     = "COMPUTE_FILELIM_RUN"
	envWorkers = "COMPUTE_FILELIM_WORKERS"
)

func TestMain(m *testing.M) {
	children := map[string]func() error{"rate": rateChild, "hold": holdChild, "readonly": readOnlyChild, "fleet": fleetChild}
	if name := os.Getenv(envChild); name != "" {
		if err := children[name](); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child returns a command that runs this test binary as the child name, with env.
func child(t *testing.T, name string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{envChild + "=" + name}, env...)...)
	return cmd
}

// grantLine is what the rate child prints for each grant.
type grantLine struct {
	Due, Woke int64 // Unix nanoseconds
	Seq       uint64
}

// childResult is what a child prints last.
type childResult struct {
	Grants  []grantLine
	Reports []string
	Errors  []string
}

// rateChild waits until the start time, then calls Wait from its workers until the run ends, and
// prints its grants and what its limiter reported.
func rateChild() error {
	rps, err := strconv.ParseFloat(os.Getenv(envRate), 64)
	if err != nil {
		return err
	}
	startNano, err := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	if err != nil {
		return err
	}
	run, err := time.ParseDuration(os.Getenv(envRun))
	if err != nil {
		return err
	}
	workers, err := strconv.Atoi(os.Getenv(envWorkers))
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var res childResult
	l, err := ratelimitfile.New(testToken, ratelimitfile.WithDir(os.Getenv(envDir)), ratelimitfile.WithRate(rps),
		ratelimitfile.WithErrorHandler(func(err error) {
			mu.Lock()
			defer mu.Unlock()
			res.Reports = append(res.Reports, fmt.Sprint(err))
		}))
	if err != nil {
		return err
	}
	defer l.Close()
	start := time.Unix(0, startNano)
	time.Sleep(time.Until(start))
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(run))
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				done, due, seq, err := ratelimitfile.WaitGrant(ctx, l)
				woke := time.Now()
				mu.Lock()
				if err != nil {
					if ctx.Err() == nil && !isDeadline(err) {
						res.Errors = append(res.Errors, err.Error())
					}
					mu.Unlock()
					return
				}
				res.Grants = append(res.Grants, grantLine{Due: due.UnixNano(), Woke: woke.UnixNano(), Seq: seq})
				mu.Unlock()
				if done != nil {
					done()
				}
			}
		})
	}
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(res)
}

// TestProcessesOnOneTokenHoldTheRate: four processes of two callers each, on one token at 100
// requests per second for a second, take their turns from one budget: every grant numbered once
// in the file, each due at least an interval after the one before whichever process took it, at
// most the rate in all; the times the callers woke at show the same, but for the machine's
// scheduling.
func TestProcessesOnOneTokenHoldTheRate(t *testing.T) {
	const processes, workers, rps, run = 4, 2, 100, time.Second
	dir := t.TempDir()
	start := time.Now().Add(500 * time.Millisecond) // every process starts at once
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range processes {
		cmd := child(t, "rate", envDir+"="+dir, envRate+"="+strconv.Itoa(rps), envWorkers+"="+strconv.Itoa(workers),
			envStart+"="+strconv.FormatInt(start.UnixNano(), 10), envRun+"="+run.String())
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var dues, woke []time.Time
	var seqs []uint64
	perProcess := make([]int, processes)
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "process %d: %s", i, outs[i])
		var res childResult
		require.NoError(t, json.Unmarshal(outs[i].Bytes(), &res), "process %d: %s", i, outs[i])
		assert.Empty(t, res.Errors, "process %d", i)
		assert.Empty(t, res.Reports, "process %d: the file served throughout", i)
		for _, g := range res.Grants {
			dues, woke, seqs = append(dues, time.Unix(0, g.Due)), append(woke, time.Unix(0, g.Woke)), append(seqs, g.Seq)
		}
		perProcess[i] = len(res.Grants)
	}
	checkGrants(t, dues, seqs, rps, processes*workers)
	budget, err := ratelimitfile.ReadBudget(ratelimitfile.WithDirPath(dir, testToken))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, budget.Seq, slices.Max(seqs), "the file counted every grant")
	assert.LessOrEqual(t, budget.Seq-slices.Max(seqs), uint64(processes*workers), "and the few reserved for callers whose run ended first")
	served := 0
	for _, n := range perProcess {
		if n > 0 {
			served++
		}
	}
	assert.GreaterOrEqual(t, served, 2, "the processes took turns: %v", perProcess)
	assert.GreaterOrEqual(t, len(seqs), int(rps*run.Seconds()*0.5), "the budget is not wasted")

	// When the callers woke: at most the rate over the run, and few closer than half an interval
	// (a caller that the machine woke late, just before the next one).
	slices.SortFunc(woke, func(a, b time.Time) int { return a.Compare(b) })
	span := woke[len(woke)-1].Sub(woke[0])
	assert.LessOrEqual(t, float64(len(woke)-1), span.Seconds()*rps+2, "%d grants in %s (a caller the machine woke late at the start or the end aside)", len(woke), span)
	short := 0
	for i := 1; i < len(woke); i++ {
		if woke[i].Sub(woke[i-1]) < time.Second/rps/2 {
			short++
		}
	}
	assert.LessOrEqual(t, short, len(woke)/10, "callers woke closer than half an interval")
}

// holdChild takes the lock of the file at envPath, says so, and keeps it until it is killed (a
// minute at most).
func holdChild() error {
	if _, err := ratelimitfile.LockPath(os.Getenv(envPath)); err != nil {
		return err
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	return fmt.Errorf("not killed")
}

// startHolder starts a child holding the lock of path and returns it once it holds it.
func startHolder(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := child(t, "hold", envPath+"="+path)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case s := <-line:
		require.Equal(t, "locked\n", s)
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not take the lock within 30 s")
	}
	return cmd
}

// TestAProcessKilledHoldingTheLockBlocksNobody: while another process holds the file's lock, a
// caller waits (and its context ends the wait, with the context's error, not a fallback); once
// that process is killed, the system drops its lock and the next caller is served from the file
// at once.
func TestAProcessKilledHoldingTheLockBlocksNobody(t *testing.T) {
	l, r := newLimiter(t, t.TempDir(), 100)
	require.NoError(t, wait(context.Background(), l)) // creates the file: grant 1
	holder := startHolder(t, l.Path())

	// The caller waits for the lock, less than the half second after which it would fall back:
	// its context ends the wait at once.
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	assert.ErrorIs(t, wait(ctx, l), context.DeadlineExceeded, "the lock is held: the caller waits")
	assert.Less(t, time.Since(start), 400*time.Millisecond, "the deadline ends the wait")
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	assert.ErrorIs(t, wait(ctx, l), context.Canceled)
	assert.Less(t, time.Since(start), 400*time.Millisecond, "cancelling ends the wait")

	require.NoError(t, holder.Process.Kill())
	_ = holder.Wait()
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start = time.Now()
	require.NoError(t, wait(ctx, l))
	assert.Less(t, time.Since(start), 300*time.Millisecond, "served at once")
	assert.Empty(t, r.all(), "from the file, not the fallback")
	budget, err := ratelimitfile.ReadBudget(l.Path())
	require.NoError(t, err)
	assert.Equal(t, uint64(2), budget.Seq)
}

// TestALockHeldTooLongFallsBackAndReturns: a process that keeps the lock (stopped while holding it)
// holds a caller at most half a second; then the limiter paces its process alone, reported once,
// and goes back to the file once the lock is free.
func TestALockHeldTooLongFallsBackAndReturns(t *testing.T) {
	l, r := newLimiter(t, t.TempDir(), 100)
	ratelimitfile.SetRecheck(l, 50*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, wait(ctx, l))
	release, err := ratelimitfile.LockPath(l.Path())
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, wait(ctx, l))
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, 500*time.Millisecond, "it waited for the lock")
	assert.Less(t, took, 2*time.Second)
	reports := r.all()
	require.Len(t, reports, 1)
	require.Error(t, reports[0])
	assert.Contains(t, reports[0].Error(), "held the lock")

	release()
	time.Sleep(60 * time.Millisecond)
	_, _, seq, err := ratelimitfile.WaitGrant(ctx, l)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), seq, "from the file again")
	reports = r.all()
	require.Len(t, reports, 2)
	assert.NoError(t, reports[1])
}
