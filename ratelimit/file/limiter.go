// Package file is a [compute.Limiter] shared through a file by every process of one user on one
// machine that uses one API token: commands run from a shell loop, xargs -P or cron hold the
// account's rate together, with no server to run. The compute command-line tool uses it by
// default. For processes on several machines, use the Redis limiter
// (github.com/compute-sdk/compute-go/ratelimit/redis).
//
//	import ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
//
//	lim, err := ratelimitfile.New(token)
//	...
//	defer lim.Close()
//	c, err := compute.NewClient(token, compute.WithBaseURL(url), compute.WithLimiter(lim))
//
// # What holds
//
// The pacing is the one [compute.NewLimiter] describes, for all the processes together: grants at
// least an interval (at the rate, less [compute.PacingHeadroom]) apart, whichever process takes
// them; from the first 429 that any process sees (from the first request with
// [WithResponsePacing]), pacing from responses (its allowance for late responses,
// [compute.PacingHoldShare] of the time, shared by every process); each later 429 pauses every
// process for its Retry-After and widens the spacing of every process by [compute.PacingWiden] of
// an interval (up to [compute.PacingWidenMax]), which narrows back by as much for each
// [compute.PacingNarrow] without one. A caller whose deadline ends before its turn or a pause fails
// at once; no wait outlives the caller's context.
//
// # The file
//
// The budget of a token lives in a file of 112 bytes in the directory of [WithDir], by default
// compute-go/ratelimit in the user's cache directory ([os.UserCacheDir]: ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows). Its name is a SHA-256 of the token ([Name]);
// the token is never written. A process takes the file's lock (flock on Unix, LockFileEx on
// Windows) only to read and write the budget, never while it sleeps; the system drops the lock of a
// process that dies, so a process killed holding it blocks nobody.
//
// The directory is created with mode 0700 and, on Unix, must be the user's and writable by nobody
// else; the file is created with mode 0600. A file that is not one the limiter makes (a symbolic
// link or anything but a regular file; on Unix also another user's, another mode than 0600, a
// second name) is replaced by a new one, without being followed or read; a record that is not one
// the limiter writes (garbage, another size, a checksum that does not match, a time out of range,
// such as a turn due years ahead) is refused and the budget starts afresh. The first is reported
// through the handler of [WithErrorHandler], as an error matching [ErrRefused].
//
// # When the file fails
//
// When the directory or the file cannot be used (a read-only or full disk, a directory that is not
// the user's, any I/O error), or another process holds the lock for over half a second (one
// stopped while holding it), the limiter paces its own process alone with [compute.NewLimiter]
// and reports it once through the handler; it tries the file again a second later, and reports
// its return with a nil error. Processes that fall back pace each alone: together they may then
// exceed the rate.
package file

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// minRate is the lowest rate [WithRate] takes: one request every 100 seconds.
const minRate = 0.01

// recheck is how long after a failure the limiter tries the file again.
const recheck = time.Second

// Limiter is a [compute.Limiter] whose budget lives in a file shared by the user's processes on one
// machine. Build it with [New], pass it to every client that uses the token with
// [compute.WithLimiter], and Close it when done. It is safe for concurrent use.
type Limiter struct {
	dir, path string
	dirErr    error // why no directory could be found (no cache directory)
	ival      int64 // the interval at the rate, in nanoseconds
	handler   func(error)
	fallback  compute.Limiter
	recheck   time.Duration

	// turn lets one goroutine of this process at a time ask the file for a grant and wait until it
	// is due; the others queue here.
	turn chan struct{}
	// fsem guards f: a lock taken through one file description is not exclusive among the
	// goroutines that share it.
	fsem chan struct{}
	f    *os.File

	mu            sync.Mutex
	closed        bool
	armed         bool // the budget's pacing from responses was seen on
	failing       bool
	downUntil     time.Time // the file is not tried again before this
	pauseUntil    time.Time // the last pause the file held ends
	resetReported bool
	// ceilNext holds this process to the rate whichever way it is paced, so that switching between
	// the file and the fallback never makes a burst: no grant before it.
	ceilNext time.Time
	// turnFree is, while the caller holding the turn waits, the earliest time a caller queued
	// behind it can be granted (see turnFreeAt). Zero otherwise.
	turnFree time.Time
}

// config collects the options of [New].
type config struct {
	rps           float64
	dir           string
	handler       func(error)
	fromResponses bool
}

// Option configures a [Limiter].
type Option func(*config) error

// WithRate sets the account's rate in requests per second (default [compute.DefaultRateLimit]),
// shared by every process using the token. Give every process the same rate.
func WithRate(rps float64) Option {
	return func(c *config) error {
		if !(rps >= minRate) || rps > 1e6 {
			return fmt.Errorf("ratelimit/file: WithRate: %v is not in [%v, 1e6]", rps, minRate)
		}
		c.rps = rps
		return nil
	}
}

// WithDir sets the directory of the budget's file (default: [DefaultDir]). It is created, with mode
// 0700, when it is missing; it must be the user's and writable by nobody else.
func WithDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return errors.New("ratelimit/file: WithDir: empty directory")
		}
		c.dir = dir
		return nil
	}
}

// WithErrorHandler sets a function called with an error when the limiter falls back to pacing its
// process alone (the file cannot be used), and with nil when the file serves again after a
// fallback; also with an error matching [ErrRefused] when it refused and replaced a file or a
// record that it did not write, after which it goes on through the new file. Each fallback is
// reported once, as is the first refused file. It is called synchronously from Wait, Throttled or
// the done that reports a response, so it must be quick. The error names the file, never the
// token.
func WithErrorHandler(h func(error)) Option {
	return func(c *config) error { c.handler = h; return nil }
}

// WithResponsePacing turns the pacing from responses on from the budget's first request, not from
// the first 429: each request also waits until an interval after the response to the one before
// (less the fastest round trip), whichever process sent it. Use it for a service that allows no
// burst (none sooner than an interval after the one before), where a request sent late after its
// turn, as on a busy machine, lands less than an interval before the next one and draws a 429:
// paced from responses, a request sent up to [compute.PacingHold] of an interval late only widens
// the gap the service sees. What it costs: no request goes before the one ahead of it is
// answered, or until [compute.PacingHold] of an interval past that one's turn, so a slow response
// slows the next request; and the first 429, which then means that the budget is spent, pauses
// every process for its Retry-After instead of only turning the pacing on. Every process that
// shares the budget paces from responses once one of them turned it on.
func WithResponsePacing() Option {
	return func(c *config) error { c.fromResponses = true; return nil }
}

// DefaultDir returns the directory of the budgets' files when [WithDir] is not given:
// compute-go/ratelimit in the user's cache directory ([os.UserCacheDir]).
func DefaultDir() (string, error) {
	dir, err := defaultDir()
	if err != nil {
		return "", fmt.Errorf("ratelimit/file: %w", err)
	}
	return dir, nil
}

func defaultDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w", err)
	}
	return filepath.Join(cache, "compute-go", "ratelimit"), nil
}

// New returns a Limiter for token's budget. The token is only hashed, into the file's name; it is
// not kept. New does not touch the disk: the first Wait creates the directory and the file, or
// falls back (see the package doc).
func New(token string, opts ...Option) (*Limiter, error) {
	if token == "" {
		return nil, errors.New("ratelimit/file: the API token is empty")
	}
	cfg := config{rps: compute.DefaultRateLimit}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	fallback, err := compute.NewLimiter(cfg.rps, 1)
	if err != nil {
		return nil, err
	}
	l := &Limiter{
		dir:      cfg.dir,
		ival:     intervalOf(cfg.rps),
		handler:  cfg.handler,
		fallback: fallback,
		recheck:  recheck,
		turn:     make(chan struct{}, 1),
		fsem:     make(chan struct{}, 1),
		armed:    cfg.fromResponses, // as if it had seen the budget armed: its first ask arms it
	}
	if l.dir == "" {
		l.dir, l.dirErr = defaultDir()
	}
	if l.dirErr == nil {
		l.path = filepath.Join(l.dir, Name(token))
	}
	return l, nil
}

// Name returns the name of the file of token's budget: the hex SHA-256 of a domain tag and the
// token (the Redis limiter's key is made the same way), from which the token cannot be recovered,
// and ".budget".
func Name(token string) string {
	sum := sha256.Sum256([]byte("compute-go ratelimit v1\x00" + token))
	return hex.EncodeToString(sum[:]) + ".budget"
}

// Path returns the path of the budget's file; it is empty when there is no directory for it (no
// cache directory was found).
func (l *Limiter) Path() string { return l.path }

// String describes the limiter by its file's path, which does not reveal the token.
func (l *Limiter) String() string { return "file.Limiter{" + l.path + "}" }

// Close closes the budget's file. The budget stays for the other processes; later calls of Wait
// fail.
func (l *Limiter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.fsem <- struct{}{}
	defer func() { <-l.fsem }()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// errClosed is the error of Wait after Close.
var errClosed = errors.New("ratelimit/file: the limiter is closed")

// errNilContext is the error of Wait with a nil context, as the SDK's calls refuse one.
var errNilContext = &compute.ValidationError{Field: "ctx", Reason: "must not be nil (use context.Background())",
	Problems: []compute.FieldError{{Field: "ctx", Reason: "must not be nil (use context.Background())"}}}

// Wait implements [compute.Limiter]: it blocks until the budget grants an attempt, or the fallback
// does while the file cannot be used, or until ctx ends. When the next grant, or a pause, ends
// after ctx's deadline it fails at once with an error that wraps [context.DeadlineExceeded] (and,
// for a pause, [compute.ErrRateLimited]). While the pacing from responses is on, the done it
// returns records the attempt's response in the file. A nil ctx is refused with a
// [*compute.ValidationError].
func (l *Limiter) Wait(ctx context.Context) (func(), error) {
	if ctx == nil {
		return nil, errNilContext
	}
	done, _, err := l.wait(ctx)
	return done, err
}

// wait is Wait, which also returns the grant the file made (none from the fallback).
func (l *Limiter) wait(ctx context.Context) (func(), grant, error) {
	if err := ctx.Err(); err != nil {
		return nil, grant{}, err
	}
	l.mu.Lock()
	pause, closed, free := time.Until(l.pauseUntil), l.closed, l.turnFree
	l.mu.Unlock()
	if closed {
		return nil, grant{}, errClosed
	}
	if err := pastDeadline(ctx, pause); err != nil {
		return nil, grant{}, err // before queueing behind a caller that waits the pause out
	}
	if !l.down() {
		if deadline, ok := ctx.Deadline(); ok && deadline.Before(free) {
			// Queued behind a grant that is due later, this caller could not go before its deadline.
			return nil, grant{}, fmt.Errorf("ratelimit/file: the next request may go in %s, past the context deadline: %w",
				time.Until(free).Round(time.Millisecond), context.DeadlineExceeded)
		}
		select {
		case l.turn <- struct{}{}:
		case <-ctx.Done():
			return nil, grant{}, ctx.Err()
		}
		g, failed, err := l.waitFile(ctx)
		if err == nil && !failed {
			// The file spaces its grants by more than an interval, and this process's pacing by one.
			l.turnFreeAt(g.due.Add(time.Duration(l.ival)))
			err = sleep(ctx, time.Until(g.due))
		}
		l.turnFreeAt(time.Time{})
		<-l.turn
		if !failed {
			if err == nil {
				err = l.paced(ctx, g.due)
			}
			if err != nil || !g.armed {
				return nil, g, err
			}
			return func() { l.responded(g.seq) }, g, nil
		}
	}
	done, err := l.fallback.Wait(ctx)
	if err == nil {
		err = l.paced(ctx, time.Now())
	}
	if err != nil {
		return nil, grant{}, err
	}
	return done, grant{}, nil
}

// grant is an attempt the budget let go.
type grant struct {
	due   time.Time // when it is due
	seq   uint64    // its number
	armed bool      // whether the pacing from responses is on
}

// waitFile asks the budget for a grant until it gets one; failed reports that the file failed,
// after which the caller waits for the fallback instead.
func (l *Limiter) waitFile(ctx context.Context) (g grant, failed bool, err error) {
	asked := time.Now().UnixNano()
	for {
		if l.down() { // another caller saw the file fail while this one queued
			return grant{}, true, nil
		}
		maxWait := int64(-1)
		if deadline, ok := ctx.Deadline(); ok {
			maxWait = max(0, int64(time.Until(deadline)))
		}
		rearm := l.sawArmed()
		var v verdict
		var d int64
		err := l.update(ctx, func(s *state, now int64) bool {
			wasArmed := s.armed
			v, d = s.ask(now, l.ival, maxWait, rearm, asked)
			g = grant{due: time.Unix(0, now+d), seq: s.seq, armed: s.armed}
			return v == granted || s.armed != wasArmed
		})
		if err != nil {
			if ctx.Err() != nil {
				return grant{}, false, ctx.Err()
			}
			if errors.Is(err, errClosed) {
				return grant{}, false, err
			}
			l.fail(err)
			return grant{}, true, nil
		}
		if g.armed {
			l.setArmed()
		}
		wait := time.Duration(d)
		switch v {
		case granted:
			return g, false, nil
		case held:
			l.turnFreeAt(time.Now().Add(wait)) // no grant before then, whether or not this caller stays
		case paused:
			l.paused(wait)
			if err := pastDeadline(ctx, wait); err != nil {
				return grant{}, false, err
			}
		case tooLate:
			return grant{}, false, fmt.Errorf("ratelimit/file: the next request may go in %s, past the context deadline: %w",
				wait.Round(time.Millisecond), context.DeadlineExceeded)
		}
		if err := sleep(ctx, wait); err != nil { // a pause or a hold: ask again after it
			return grant{}, false, err
		}
	}
}

// update runs fn on the budget under the file's lock, at the time now read once the lock is held,
// and writes the budget back when fn reports a change (or the record was refused). It opens the
// file first when it is not open, and again when it was replaced. A refused file or record is
// reported once the lock is released.
func (l *Limiter) update(ctx context.Context, fn func(s *state, now int64) bool) error {
	select {
	case l.fsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	var refused error
	err := l.updateHeld(ctx, fn, &refused)
	<-l.fsem
	if refused != nil {
		l.refused(refused)
	}
	if err == nil {
		l.ok()
	}
	return err
}

// updateHeld is update with l.fsem held.
func (l *Limiter) updateHeld(ctx context.Context, fn func(s *state, now int64) bool, refused *error) error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return errClosed
	}
	for range 2 {
		if l.f == nil {
			if l.dirErr != nil {
				return l.dirErr
			}
			f, r, err := openFile(l.dir, l.path)
			if r != nil {
				*refused = r
			}
			if err != nil {
				return err
			}
			l.f = f
		}
		err := l.updateOpen(ctx, fn, refused)
		if !errors.Is(err, errReplaced) {
			return err
		}
		_ = l.f.Close()
		l.f = nil
	}
	return fmt.Errorf("%s was replaced twice in a row", l.path)
}

// updateOpen is update on the open file, with l.fsem held.
func (l *Limiter) updateOpen(ctx context.Context, fn func(s *state, now int64) bool, refused *error) (err error) {
	f := l.f
	if err := lock(ctx, f); err != nil {
		return err
	}
	defer func() {
		if uerr := unlock(f); uerr != nil && err == nil {
			err = fmt.Errorf("unlocking %s: %w", l.path, uerr)
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if li, err := os.Lstat(l.path); err != nil || !os.SameFile(fi, li) || checkFile(fi) != nil {
		return errReplaced
	}
	now := time.Now().UnixNano()
	s, corrupt, err := readState(f, fi.Size(), now, spacing(l.ival, 0))
	if err != nil {
		return fmt.Errorf("reading %s: %w", l.path, err)
	}
	if corrupt != nil {
		*refused = fmt.Errorf("%s refused and reset: %w", l.path, corrupt)
	}
	if fn(&s, now) || corrupt != nil || fi.Size() != recordSize {
		if err := writeState(f, s, fi.Size()); err != nil {
			return fmt.Errorf("writing %s: %w", l.path, err)
		}
	}
	return nil
}

// paced waits until the ceiling lets this process send a request due at due: at most one an
// interval at the rate, counted from the due times (a caller that woke late does not delay the
// next).
func (l *Limiter) paced(ctx context.Context, due time.Time) error {
	l.mu.Lock()
	at := due
	if l.ceilNext.After(at) {
		at = l.ceilNext
	}
	if deadline, ok := ctx.Deadline(); ok && deadline.Before(at) {
		l.mu.Unlock()
		return fmt.Errorf("ratelimit/file: %w", context.DeadlineExceeded)
	}
	l.ceilNext = at.Add(time.Duration(l.ival))
	l.mu.Unlock()
	return sleep(ctx, time.Until(at))
}

// responded records in the budget that the response to grant seq arrived. It is bounded like
// every use of the file; a failure makes the limiter fall back, as in Wait.
func (l *Limiter) responded(seq uint64) {
	if l.down() {
		return
	}
	err := l.update(context.Background(), func(s *state, now int64) bool { return s.responded(now, seq) })
	if err != nil && !errors.Is(err, errClosed) {
		l.fail(err)
	}
}

// Throttled implements [compute.Limiter]: it records the 429 in the budget, so that every process
// using the token turns the pacing from responses on, or pauses; while the file cannot be used, it
// tells the fallback. A call with a nil ctx is ignored.
func (l *Limiter) Throttled(ctx context.Context, wait time.Duration) {
	if ctx == nil {
		return
	}
	if !l.down() {
		seen := l.sawArmed()
		var pause int64
		err := l.update(context.WithoutCancel(ctx), func(s *state, now int64) bool {
			pause = s.throttled(now, int64(wait), seen)
			return true
		})
		if err == nil {
			l.setArmed()
			l.paused(time.Duration(pause))
			return
		}
		if !errors.Is(err, errClosed) {
			l.fail(err)
		}
	}
	l.fallback.Throttled(ctx, wait)
}

// turnFreeAt notes the earliest time a caller queued behind the one holding the turn can be
// granted (zero: none known), so that one whose deadline comes before fails at once.
func (l *Limiter) turnFreeAt(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turnFree = t
}

// pastDeadline fails when a pause of d outlasts ctx's deadline.
func pastDeadline(ctx context.Context, d time.Duration) error {
	if deadline, ok := ctx.Deadline(); ok && d > 0 && time.Until(deadline) < d {
		return fmt.Errorf("ratelimit/file: the service asked for a pause of %s, past the context deadline: %w (%w)",
			d.Round(time.Millisecond), compute.ErrRateLimited, context.DeadlineExceeded)
	}
	return nil
}

// paused notes a pause of d that the budget holds.
func (l *Limiter) paused(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := time.Now().Add(d); d > 0 && t.After(l.pauseUntil) {
		l.pauseUntil = t
	}
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// down reports whether the file failed less than the recheck period ago.
func (l *Limiter) down() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Now().Before(l.downUntil)
}

// fail notes that the file failed: it is tried again after the recheck period, and a failure that
// begins an outage is reported. The file is closed, so that the next try opens the path afresh.
func (l *Limiter) fail(err error) {
	l.mu.Lock()
	l.downUntil = time.Now().Add(l.recheck)
	report := !l.failing
	l.failing = true
	l.mu.Unlock()
	l.fsem <- struct{}{}
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
	<-l.fsem
	if report && l.handler != nil {
		l.handler(fmt.Errorf("ratelimit/file: pacing this process alone, trying the file again every %s: %w", l.recheck, err))
	}
}

// ok notes that the file served, and reports it when it ends an outage.
func (l *Limiter) ok() {
	l.mu.Lock()
	report := l.failing
	l.failing = false
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(nil)
	}
}

// refused reports, the first time, a file or a record that the limiter refused.
func (l *Limiter) refused(err error) {
	l.mu.Lock()
	report := !l.resetReported
	l.resetReported = true
	l.mu.Unlock()
	if report && l.handler != nil {
		l.handler(fmt.Errorf("ratelimit/file: %w (%w)", err, ErrRefused))
	}
}

// ErrRefused is matched (errors.Is) by what the limiter reports to the handler of
// [WithErrorHandler] when it refused and replaced a file or a record that it did not write: unlike
// a fallback, the limiter goes on sharing the budget through the new file.
var ErrRefused = errors.New("the budget starts afresh")

// sawArmed reports whether this process saw the budget's pacing from responses on.
func (l *Limiter) sawArmed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.armed
}

// setArmed notes that the budget's pacing from responses is on.
func (l *Limiter) setArmed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = true
}
