package compute

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// MaxFindMatches bounds the resources a FindByName method returns: past it, the call ends with a
// [*TooManyMatchesError], so that a list that never ends cannot fill the memory with matches.
const MaxFindMatches = 1000

// TooManyMatchesError is the error of a FindByName that met more than [MaxFindMatches] resources
// with the name. It matches [ErrConflict].
type TooManyMatchesError struct {
	Kind  string // "instance", "volume", ...
	Name  string // the name looked up
	Limit int    // the bound that was passed
}

// Error reads "compute: more than 1000 instances are named "web": stopped reading the list".
func (e *TooManyMatchesError) Error() string {
	return fmt.Sprintf("compute: more than %d %ss are named %q: stopped reading the list", e.Limit, e.Kind, e.Name)
}

// Is makes errors.Is(err, ErrConflict) hold.
func (e *TooManyMatchesError) Is(target error) bool { return target == ErrConflict }

// ErrNameUnchecked matches the error of a CreateOnce whose lookup could not tell whether the name
// is taken: in each of its reads the list broke what the lookup rests on (the service counted more
// than it listed, or listed a resource ahead of older ones), so a resource with the name may have
// been missed. Other jobs creating and deleting while the list is read never cause it.
// Nothing was created by the call unless the error also matches [ErrOutcomeUnknown]. Calling again
// later is safe.
var ErrNameUnchecked = errors.New("compute: could not check the name")

// NameCheckError is the error that matches [ErrNameUnchecked]. It wraps the create's error when a
// create was sent and its outcome is unknown.
type NameCheckError struct {
	Kind  string // "instance", "volume", ...
	Name  string // the name looked up
	Walks int    // how many times the list was read
	Err   error  // the create's error, when a create whose outcome is unknown came first; nil otherwise
}

// Error reads "compute: could not check whether an instance named "web-1" exists: the list's
// pages disagreed in 3 walks (...); nothing was created, try again".
func (e *NameCheckError) Error() string {
	msg := fmt.Sprintf("compute: could not check whether a %s named %q exists: the list's pages disagreed in %d walks (the service counted more than it listed, or listed a resource ahead of older ones)",
		e.Kind, e.Name, e.Walks)
	if e.Err != nil {
		return msg + "; after a create whose outcome is unknown, look before creating it again: " + e.Err.Error()
	}
	return msg + "; nothing was created, try again"
}

// Is makes errors.Is(err, ErrNameUnchecked) hold.
func (e *NameCheckError) Is(target error) bool { return target == ErrNameUnchecked }

// Unwrap returns the create's error, if any.
func (e *NameCheckError) Unwrap() error { return e.Err }

// lookUpWalks bounds the walks of a lookup whose list breaks what a walk rests on (see sweep.read).
const lookUpWalks = 3

// matches is what one walk found for a set of names.
type matches[T any] struct {
	found  map[string][]T // by name, at most limit each
	unsure bool           // the list broke what the walk rests on (see sweep.read)
	// all, when the walk was asked to index every name, holds every resource it read by name; nil
	// when it was not asked, or the list held more than maxIndexed resources.
	all map[string][]T
}

// maxIndexed bounds the resources a walk kept for SharedLookup holds.
const maxIndexed = 10_000

// findByName returns the resources named exactly name, reading the whole list as search does, at
// most MaxFindMatches of them. An empty name, which no resource has, is refused before the list is
// read.
func findByName[T any](ctx context.Context, c *Client, kind string, list func(context.Context, *ListOptions) (*Page[T], error), name string) ([]T, error) {
	if ctx == nil {
		return nil, errNilContext
	}
	if name == "" {
		return nil, invalid("name", "is required")
	}
	m, err := search(ctx, c, kind, list, map[string]int{name: MaxFindMatches}, true, false)
	return m.found[name], err
}

// lookUp returns the resources named o.name (at most o.limit) for CreateOnce, walking again while
// the list breaks what a walk rests on, up to lookUpWalks times; unsure reports that the last
// walk met such a list.
// With a finder, concurrent lookups of one kind share their walks; when a shared walk fails for a
// time (a 429 past the retries, a 503, a network error), each lookup walks again on its own, as a
// wait reads on its own when the shared walk fails, so that one failure does not end them all.
func lookUp[T any](ctx context.Context, c *Client, o once[T]) (found []T, unsure bool, err error) {
	if o.finder != nil {
		found, unsure, err = o.finder.find(ctx, o.name, o.limit, o.maxAge)
		if err == nil || !transient(err) || ctx.Err() != nil {
			return found, unsure, err
		}
	}
	m, err := searchAgain(ctx, c, o.kind, o.list, map[string]int{o.name: o.limit}, false)
	return m.found[o.name], m.unsure, err
}

// searchAgain is search for CreateOnce's lookups, walking again while unsure; index asks for
// every name the walk reads (matches.all).
func searchAgain[T any](ctx context.Context, c *Client, kind string, list func(context.Context, *ListOptions) (*Page[T], error), names map[string]int, index bool) (matches[T], error) {
	for walks := 1; ; walks++ {
		m, err := search(ctx, c, kind, list, names, false, index)
		if err != nil || !m.unsure || walks == lookUpWalks {
			return m, err
		}
	}
}

// finder shares the lookups of one client's concurrent CreateOnce calls on one kind of resource,
// as the poller shares the polling of waits: a lookup joins the walk whose first request has not
// been sent yet, or else opens the next one, which starts when the walk in progress ends. So many
// calls made at once cost a walk or two of the list, not one each. A walk never misses a resource
// that exists from its first request to its last (see sweep), so it serves every call that began
// before its first request; never one that began after, since what a page shows is fixed when the
// service reads its request, which may be before the call began though its response comes after.
//
// A lookup with SharedLookup may take its answer from a walk that started before it, up to maxAge
// before: the last walk that ended well, or else the walk in progress when that one keeps every
// name it reads. It then waits for that walk instead of opening the next one, so the calls of a
// burst that arrive just after the first cost one walk, not two. If the walk in progress ends
// badly (an error, a list it could not rely on, too many resources to keep), the lookup takes
// nothing from it and goes on as if it had arrived after: it joins or opens the next walk. While
// the last walk asked to keep every name found the list too long to keep, no lookup waits for the
// walk in progress, which would likely keep nothing either.
type finder[T any] struct {
	c    *Client
	kind string
	list func(context.Context, *ListOptions) (*Page[T], error)

	mu      sync.Mutex
	open    *lookupWalk[T] // the walk that lookups can still join; nil when none
	busy    bool           // a goroutine runs the walks
	running *lookupWalk[T] // the walk whose requests are being sent; nil when none
	recent  *lookupWalk[T] // the last walk that ended well, for SharedLookup; nil when none
	// tooLong: the last walk that was asked to keep every name read more than maxIndexed
	// resources and kept none, so the walk in progress will likely keep none either: a SharedLookup
	// lookup does not wait for it. A walk that keeps its names clears it.
	tooLong bool
}

// lookupWalk is one shared walk (with its walks again while unsure) and its callers.
type lookupWalk[T any] struct {
	ctx     context.Context
	cancel  context.CancelFunc
	names   map[string]int // the names looked up, each with the most matches a caller keeps
	started time.Time      // set just before its first request is sent
	index   bool           // a caller asked for SharedLookup: the walk keeps every name it reads
	callers int            // the lookups waiting for it; the last to leave ends ctx
	done    chan struct{}  // closed when m and err are set
	m       matches[T]
	err     error
}

// kept reports whether w ended well and kept every name it read: a SharedLookup may take its
// answer from it.
func (w *lookupWalk[T]) kept() bool { return w.err == nil && !w.m.unsure && w.m.all != nil }

// named returns at most limit of the resources named name that w, which kept every name, saw.
func (w *lookupWalk[T]) named(name string, limit int) []T {
	found := w.m.all[name]
	return slices.Clone(found[:min(len(found), limit)])
}

// repanic raises again, on the caller's goroutine, a panic of w's list call.
func (w *lookupWalk[T]) repanic() {
	var wp *walkPanic
	if errors.As(w.err, &wp) {
		panic(wp.value)
	}
}

// maxRecent is how long a finder keeps its last walk for SharedLookup, whatever maxAge a lookup
// asks for: past it, the walk's resources are let go at the next lookup.
const maxRecent = 10 * time.Minute

func newFinder[T any](c *Client, kind string, list func(context.Context, *ListOptions) (*Page[T], error)) *finder[T] {
	return &finder[T]{c: c, kind: kind, list: list}
}

// find returns the resources named name (at most limit) as the shared walk it joins saw them, or,
// with a positive maxAge, as a walk that started at most maxAge ago saw them: the last walk that
// ended well, or the walk in progress if it keeps every name and ends well. The walk runs on a
// goroutine of its own with a context of its own, which ends when every caller has left: that of
// the call that opened it, detached (see detach), so that its calls are in that caller's trace. A
// lookup that waits for the walk in progress counts as one of its callers meanwhile, so that the
// walk goes on for it when the others leave, and ends if it leaves last.
func (f *finder[T]) find(ctx context.Context, name string, limit int, maxAge time.Duration) ([]T, bool, error) {
	f.mu.Lock()
	if r := f.recent; r != nil && time.Since(r.started) > maxRecent {
		f.recent = nil // no lookup can use it: let its resources go
	} else if r != nil && maxAge > 0 && time.Since(r.started) <= maxAge {
		f.mu.Unlock()
		return r.named(name, limit), false, nil
	}
	oldest := time.Now().Add(-maxAge) // the earliest start of a walk that may answer
	for waits := 0; waits < 2; waits++ {
		r := f.running
		if maxAge <= 0 || r == nil || !r.index || r.callers == 0 || r.started.Before(oldest) || f.tooLong {
			break
		}
		r.callers++
		f.mu.Unlock()
		if !f.wait(ctx, r) {
			return nil, false, ctx.Err()
		}
		r.repanic()
		if r.kept() { // as for recent
			return r.named(name, limit), false, nil
		}
		// It ended badly: go on as a lookup that arrives now, which may wait for the walk that
		// has started since, once.
		f.mu.Lock()
	}
	w := f.open
	if w == nil {
		wctx, cancel := context.WithCancel(detach(ctx))
		w = &lookupWalk[T]{ctx: wctx, cancel: cancel, names: map[string]int{}, done: make(chan struct{})}
		f.open = w
		if !f.busy {
			f.busy = true
			go f.run(w)
		}
	}
	w.names[name] = max(w.names[name], limit)
	w.index = w.index || maxAge > 0
	w.callers++
	f.mu.Unlock()

	if !f.wait(ctx, w) {
		return nil, false, ctx.Err()
	}
	w.repanic()
	found := w.m.found[name]
	return found[:min(len(found), limit)], w.m.unsure, w.err
}

// wait waits, as one of w's callers, until w ends or ctx does, then leaves w: the last caller to
// leave ends w's context. It reports whether w ended.
func (f *finder[T]) wait(ctx context.Context, w *lookupWalk[T]) bool {
	select {
	case <-w.done:
	case <-ctx.Done():
	}
	f.mu.Lock()
	if w.callers--; w.callers == 0 {
		w.cancel()
		if f.open == w {
			f.open = nil // nobody waits for it: a later lookup starts afresh
		}
	}
	f.mu.Unlock()
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// run runs w, then each walk that lookups opened meanwhile, until none is left. A walk is closed
// to joining lookups before its first request is sent, so that every lookup that joined it began
// before the service read any of its pages; while it runs, only SharedLookup's lookups, which may
// take an answer older than they are, wait for it (see finder).
func (f *finder[T]) run(w *lookupWalk[T]) {
	for w != nil {
		f.mu.Lock()
		if f.open == w {
			f.open = nil // lookups from now on join the next walk
		}
		names, index := maps.Clone(w.names), w.index // final: no lookup joins it any more
		w.started = time.Now()
		f.running = w
		f.mu.Unlock()
		w.m, w.err = searchAgain(w.ctx, f.c, f.kind, guarded(f.list), names, index)
		w.cancel()

		f.mu.Lock()
		f.running = nil // before done: a lookup it wakes never finds it running
		if w.kept() {
			f.recent = w
		}
		if index && w.err == nil {
			f.tooLong = w.m.all == nil
		}
		close(w.done)
		w = f.open
		if w == nil {
			f.busy = false
		}
		f.mu.Unlock()
	}
}

// detached is a context's values without its deadline, its cancellation or the SDK's own values of
// a call: what a call sets in its context (CaptureResponse's Response, the call's state) must not
// be written by a walk that outlives it, nor read by one.
type detached struct{ context.Context }

// detach returns ctx's values (an observer's span, the application's own) on a context that never
// ends, for a walk that runs on behalf of several callers.
func detach(ctx context.Context) context.Context {
	return detached{context.WithoutCancel(ctx)}
}

// Value is the caller's, but for the SDK's own keys.
func (d detached) Value(key any) any {
	switch key.(type) {
	case responseKey, goneKey, callStateKey:
		return nil
	}
	return d.Context.Value(key)
}
