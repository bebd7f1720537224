package file_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testToken = "tok-SECRET-0123456789abcdef"

var _ compute.Limiter = (*ratelimitfile.Limiter)(nil)

// reports collects what a limiter reports to its error handler.
type reports struct {
	mu   sync.Mutex
	errs []error
}

func (r *reports) handler(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

func (r *reports) all() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// newLimiter returns a limiter on testToken in dir at rps, closed at the end of the test, and what
// it reports.
func newLimiter(t testing.TB, dir string, rps float64, opts ...ratelimitfile.Option) (*ratelimitfile.Limiter, *reports) {
	t.Helper()
	r := &reports{}
	l, err := ratelimitfile.New(testToken, append([]ratelimitfile.Option{ratelimitfile.WithDir(dir),
		ratelimitfile.WithRate(rps), ratelimitfile.WithErrorHandler(r.handler)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l, r
}

// wait waits for l to let an attempt go and drops the attempt's done.
func wait(ctx context.Context, l compute.Limiter) error {
	_, err := l.Wait(ctx)
	return err
}

func TestLimitersOnOneTokenShareOneBudget(t *testing.T) {
	dir := t.TempDir()
	const rps = 100
	var limiters []*ratelimitfile.Limiter
	var all []*reports
	for range 4 { // each with its own file description, as in four processes
		l, r := newLimiter(t, dir, rps)
		limiters = append(limiters, l)
		all = append(all, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var mu sync.Mutex
	var dues []time.Time
	var seqs []uint64
	var wg sync.WaitGroup
	for _, l := range limiters {
		for range 4 {
			wg.Go(func() {
				for {
					_, due, seq, err := ratelimitfile.WaitGrant(ctx, l)
					if err != nil {
						assert.ErrorIs(t, err, context.DeadlineExceeded)
						return
					}
					mu.Lock()
					dues, seqs = append(dues, due), append(seqs, seq)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	checkGrants(t, dues, seqs, rps, 16)
	for _, r := range all {
		assert.Empty(t, r.all(), "nothing to report")
	}
}

// checkGrants checks the grants that callers of one budget at rps got: each number once (a grant
// reserved for a caller whose context ended before it was due is lost, at most one for each of
// the callers), each due at least an interval (with headroom) for each number after the one
// before, and as many as the rate allows over their span, give or take one.
func checkGrants(t *testing.T, dues []time.Time, seqs []uint64, rps float64, callers int) {
	t.Helper()
	require.Greater(t, len(seqs), 10)
	type grant struct {
		seq uint64
		due time.Time
	}
	grants := make([]grant, len(seqs))
	for i := range seqs {
		grants[i] = grant{seqs[i], dues[i]}
	}
	slices.SortFunc(grants, func(a, b grant) int { return int(a.seq) - int(b.seq) })
	for i := 1; i < len(grants); i++ {
		require.NotEqual(t, grants[i-1].seq, grants[i].seq, "grant %d was given twice", grants[i].seq)
	}
	assert.LessOrEqual(t, int(grants[len(grants)-1].seq)-len(grants), callers, "grants lost")
	step := ratelimitfile.Step(rps)
	for i := 1; i < len(grants); i++ {
		n := time.Duration(grants[i].seq - grants[i-1].seq)
		require.GreaterOrEqual(t, grants[i].due.Sub(grants[i-1].due), n*step-time.Microsecond, "grants %d and %d", grants[i-1].seq, grants[i].seq)
	}
	span := grants[len(grants)-1].due.Sub(grants[0].due)
	assert.LessOrEqual(t, float64(len(grants)-1), span.Seconds()*rps+1, "%d grants in %s", len(grants), span)
}

func TestTokensHaveTheirOwnBudgetAndTheFileHidesTheToken(t *testing.T) {
	dir := t.TempDir()
	a, ra := newLimiter(t, dir, 1)
	b, err := ratelimitfile.New(testToken+"-other", ratelimitfile.WithDir(dir), ratelimitfile.WithRate(1))
	require.NoError(t, err)
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.NoError(t, wait(ctx, a))
	require.NoError(t, wait(ctx, b), "another token's budget is untouched")
	err = wait(ctx, a)
	require.ErrorIs(t, err, context.DeadlineExceeded, "one per second: the next grant is past the deadline")
	assert.Empty(t, ra.all())

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	assert.Equal(t, filepath.Join(dir, ratelimitfile.Name(testToken)), a.Path())
	for _, e := range entries {
		assert.Regexp(t, "^[0-9a-f]{64}[.]budget$", e.Name())
		content, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		assert.Len(t, content, ratelimitfile.RecordSize)
		assert.NotContains(t, string(content), "SECRET")
		info, err := e.Info()
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	}
	assert.NotContains(t, fmt.Sprintf("%v %+v %s", a, a, a.Path()), "SECRET")
}

// TestTheDefaultDirectoryIsInTheUsersCache: without WithDir, the file is in
// compute-go/ratelimit under the user's cache directory, created with mode 0700.
func TestTheDefaultDirectoryIsInTheUsersCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("HOME", home)
	t.Setenv("LocalAppData", filepath.Join(home, "cache"))
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	dir, err := ratelimitfile.DefaultDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, "compute-go", "ratelimit"), dir)
	l, err := ratelimitfile.New(testToken)
	require.NoError(t, err)
	defer l.Close()
	assert.Equal(t, filepath.Join(dir, ratelimitfile.Name(testToken)), l.Path())
	require.NoError(t, wait(context.Background(), l))
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	_, err = os.Stat(l.Path())
	require.NoError(t, err)
}

// TestA429InOneProcessPausesTheOthers: the first 429 that any process reports only turns the pacing
// from responses on; each later one pauses every process for its Retry-After.
func TestA429InOneProcessPausesTheOthers(t *testing.T) {
	dir := t.TempDir()
	seen, _ := newLimiter(t, dir, 10)
	other, _ := newLimiter(t, dir, 10)
	ctx := context.Background()
	require.NoError(t, wait(ctx, seen))
	start := time.Now()
	seen.Throttled(ctx, 700*time.Millisecond)
	done, err := other.Wait(ctx)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 500*time.Millisecond, "the first 429 pauses nobody")
	require.NotNil(t, done, "the pacing from responses is on in the other process too")
	done()

	start = time.Now()
	seen.Throttled(ctx, 700*time.Millisecond)
	require.NoError(t, wait(ctx, other))
	assert.GreaterOrEqual(t, time.Since(start), 650*time.Millisecond, "a later one pauses every process")
	assert.Less(t, time.Since(start), 2*time.Second)
}

// TestALateResponseHoldsTheOtherProcesses: once the pacing from responses is on, a response that
// comes 60 ms after its grant (past the quarter interval the next grant used to wait for at most)
// holds another process's next grant until an interval after it, less the fastest round trip.
func TestALateResponseHoldsTheOtherProcesses(t *testing.T) {
	dir := t.TempDir()
	a, _ := newLimiter(t, dir, 10)
	b, _ := newLimiter(t, dir, 10)
	ctx := context.Background()
	a.Throttled(ctx, 0) // the first 429: the pacing from responses is on
	done, err := a.Wait(ctx)
	require.NoError(t, err)
	done() // the fastest round trip: about nothing
	done, err = a.Wait(ctx)
	require.NoError(t, err)
	sent := time.Now()
	time.Sleep(60 * time.Millisecond)
	done()
	require.NoError(t, wait(ctx, b))
	// 125 ms (a quarter interval past its due time) before the allowance for late responses.
	assert.GreaterOrEqual(t, time.Since(sent), 155*time.Millisecond, "an interval after the late response")
	assert.Less(t, time.Since(sent), time.Second)
}

// TestContextEndsTheWait: a wait for a pause or a grant ends with the context; a pause or a grant
// past the deadline fails at once, reserving nothing.
func TestContextEndsTheWait(t *testing.T) {
	dir := t.TempDir()
	l, r := newLimiter(t, dir, 10)
	require.NoError(t, wait(context.Background(), l))
	l.Throttled(context.Background(), time.Millisecond) // arms
	l.Throttled(context.Background(), 10*time.Second)   // a long pause for everyone
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	assert.ErrorIs(t, wait(ctx, l), context.Canceled)
	assert.Less(t, time.Since(start), time.Second)

	other, _ := newLimiter(t, dir, 10) // one that has not seen the pause yet
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start = time.Now()
	err := wait(ctx, other)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a pause past the deadline fails at once")
	assert.ErrorIs(t, err, compute.ErrRateLimited)
	assert.Less(t, time.Since(start), 500*time.Millisecond)
	assert.Empty(t, r.all())

	slow, _ := newLimiter(t, t.TempDir(), 1)
	require.NoError(t, wait(context.Background(), slow))
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	assert.ErrorIs(t, wait(ctx, slow), context.DeadlineExceeded, "the next grant is a second away")
	assert.Less(t, time.Since(start), 200*time.Millisecond, "at once")
	budget, err := ratelimitfile.ReadBudget(slow.Path())
	require.NoError(t, err)
	assert.Equal(t, uint64(1), budget.Seq, "the refused caller reserved nothing")

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	assert.ErrorIs(t, wait(ctx, slow), context.Canceled, "waiting for the next grant")
	assert.Less(t, time.Since(start), 500*time.Millisecond)
}

func TestOptionsAreChecked(t *testing.T) {
	for name, opts := range map[string][]ratelimitfile.Option{
		"zero rate":     {ratelimitfile.WithRate(0)},
		"negative rate": {ratelimitfile.WithRate(-1)},
		"NaN rate":      {ratelimitfile.WithRate(float64NaN())},
		"huge rate":     {ratelimitfile.WithRate(2e6)},
		"empty dir":     {ratelimitfile.WithDir("")},
	} {
		_, err := ratelimitfile.New(testToken, opts...)
		assert.Error(t, err, name)
	}
	_, err := ratelimitfile.New("")
	assert.Error(t, err)
	l, err := ratelimitfile.New(testToken, nil, ratelimitfile.WithDir(t.TempDir()))
	require.NoError(t, err, "a nil option is skipped")
	require.NoError(t, l.Close())
	assert.Error(t, wait(context.Background(), l), "closed")
}

func float64NaN() float64 { zero := 0.0; return zero / zero }

// TestThePackageDocSaysWhatHolds: the doc states where the file lives, what is shared and what
// happens when the file cannot be used.
func TestThePackageDocSaysWhatHolds(t *testing.T) {
	b, err := os.ReadFile("limiter.go")
	require.NoError(t, err)
	doc := string(b[:regexp.MustCompile(`(?m)^package file`).FindIndex(b)[0]])
	for _, want := range []string{"os.UserCacheDir", "compute-go/ratelimit", "SHA-256", "flock", "LockFileEx",
		"killed", "0700", "0600", "refused", "compute.NewLimiter", "once"} {
		assert.Contains(t, doc, want)
	}
	assert.NotRegexp(t, `(?i)\bseed\b|extended contract|\bD[0-9]+\b`, doc)
	_ = errors.New
}

// TestNoCacheDirectoryFallsBack: without a cache directory (no HOME) New still succeeds, and the
// limiter paces its process alone, reported once.
func TestNoCacheDirectoryFallsBack(t *testing.T) {
	for _, v := range []string{"HOME", "XDG_CACHE_HOME", "LocalAppData", "home"} {
		t.Setenv(v, "")
	}
	if _, err := os.UserCacheDir(); err == nil {
		t.Skip("this system has a cache directory without HOME")
	}
	r := &reports{}
	l, err := ratelimitfile.New(testToken, ratelimitfile.WithRate(100), ratelimitfile.WithErrorHandler(r.handler))
	require.NoError(t, err)
	defer l.Close()
	assert.Empty(t, l.Path())
	for range 3 {
		require.NoError(t, wait(context.Background(), l))
	}
	reports := r.all()
	require.Len(t, reports, 1)
	assert.Contains(t, reports[0].Error(), "pacing this process alone")
	assert.Contains(t, reports[0].Error(), "no cache directory")
	assert.Equal(t, 1, strings.Count(reports[0].Error(), "ratelimit/file:"), "one prefix: %v", reports[0])
}

// TestARemovedFileIsMadeAgain: when the file or its directory is removed under a running process (a
// cache cleaned), the next caller makes it again and every process goes on through the new one,
// with nothing to report.
func TestARemovedFileIsMadeAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "ratelimit")
	a, ra := newLimiter(t, dir, 100)
	b, rb := newLimiter(t, dir, 100)
	ctx := context.Background()
	require.NoError(t, wait(ctx, a))
	require.NoError(t, wait(ctx, b))
	require.NoError(t, os.RemoveAll(filepath.Dir(dir)))
	_, _, seq, err := ratelimitfile.WaitGrant(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), seq, "a fresh budget in a new file")
	_, _, seq, err = ratelimitfile.WaitGrant(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), seq, "the other process follows it to the new file")
	assert.Empty(t, ra.all())
	assert.Empty(t, rb.all())
}

// TestACallerQueuedBehindAGrantFailsAtOnce: while one caller of the process waits for a grant a
// second away, another whose deadline ends before that grant could come (its turn can only come
// after it) fails at once, as the package doc says, not when its deadline passes; it reserves
// nothing.
func TestACallerQueuedBehindAGrantFailsAtOnce(t *testing.T) {
	l, _ := newLimiter(t, t.TempDir(), 1)
	require.NoError(t, wait(context.Background(), l))
	second := make(chan error, 1)
	go func() { second <- wait(context.Background(), l) }() // due a second from now
	time.Sleep(50 * time.Millisecond)                       // it holds the process's turn, waiting
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := wait(ctx, l)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 250*time.Millisecond, "at once")
	require.NoError(t, <-second)
	budget, err := ratelimitfile.ReadBudget(l.Path())
	require.NoError(t, err)
	assert.Equal(t, uint64(2), budget.Seq, "the refused caller reserved nothing")
}

// TestANilContextIsRefusedWithoutAPanic: Wait refuses a nil context with an error matching
// compute.ErrInvalidRequest (a *compute.ValidationError naming ctx), and Throttled ignores a call
// with one; neither panics nor touches the file, and the limiter goes on serving.
func TestANilContextIsRefusedWithoutAPanic(t *testing.T) {
	l, r := newLimiter(t, t.TempDir(), 10)
	var nilCtx context.Context
	var err error
	require.NotPanics(t, func() { _, err = l.Wait(nilCtx) })
	var verr *compute.ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Equal(t, "ctx", verr.Field)
	assert.ErrorIs(t, err, compute.ErrInvalidRequest)
	require.NotPanics(t, func() {
		l.Throttled(nilCtx, 10*time.Second)
		l.Throttled(nilCtx, 10*time.Second)
	})
	_, err = os.Stat(l.Path())
	assert.ErrorIs(t, err, os.ErrNotExist, "the file is not touched")

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	require.NoError(t, wait(ctx, l), "no pause was recorded")
	budget, err := ratelimitfile.ReadBudget(l.Path())
	require.NoError(t, err)
	assert.False(t, budget.Armed, "nor the pacing from responses armed")
	assert.Empty(t, r.all())
}
