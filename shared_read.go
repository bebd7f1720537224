package compute

import (
	"context"
	"encoding/json"
	"time"
)

// GetOption configures a Get.
type GetOption interface {
	applyGet(*getConfig)
}

type getConfig struct {
	maxAge time.Duration // SharedRead's; 0 for a read of its own
	err    error
}

type getOptionFunc func(*getConfig)

func (f getOptionFunc) applyGet(c *getConfig) { f(c) }

// SharedRead lets a Get be answered from a walk of its kind's list that started less than maxAge
// before the call, so that many reads cost a few list pages instead of a GET each (a Terraform
// refresh, a dashboard). The first read starts a walk; every read within maxAge, concurrent or
// later, takes its resource from it, waiting for the page that shows it. A resource the walk did
// not show is read with its own GET, which alone can say that it is gone; so is each resource not
// shown yet when the walk fails, or when a page has not answered within a second of its sending
// (the walk then ends). A walk reads on while its pages are no more than the reads it serves, or
// the whole list holds no more pages than them, so that a few reads on a long list cost one page
// more than their GETs. The resource may be up to maxAge old: do not share the read that must see
// a change just made. A read answered from a walk sends no request of its own; the walk's requests
// run on a goroutine of the client's (see [Observer]). maxAge must be positive.
func SharedRead(maxAge time.Duration) GetOption {
	return getOptionFunc(func(c *getConfig) {
		if maxAge <= 0 {
			c.err = invalid("max_age", "must be positive, got %s", maxAge)
			return
		}
		c.maxAge = maxAge
	})
}

// readWalk is one walk of a kind's list that shared reads take their resources from, kept until
// no read can use it any more (maxAge after it started, for the largest maxAge asked).
type readWalk[T any] struct {
	started  time.Time
	keep     time.Time           // dropped after this
	drop     *time.Timer         // drops it at keep, once it ended
	asked    map[string]struct{} // the IDs read through it, up to a bound
	seen     map[string]T        // every resource on the pages read so far; nil once dropped
	ended    bool                // seen is all the walk tells
	readers  int                 // the reads that took the walk and have not returned
	panic    *walkPanic          // the walk's list call panicked
	progress chan struct{}       // closed, and replaced, whenever the fields above change
}

// changed wakes the reads waiting for the walk. The caller holds the poller's lock.
func (w *readWalk[T]) changed() {
	close(w.progress)
	w.progress = make(chan struct{})
}

// getWith is a kind's Get: with SharedRead, the poller's read walks may answer it, else its own GET.
func getWith[T any](ctx context.Context, p *poller[T], r request, env envelope[T], opts []GetOption) (*T, error) {
	if len(opts) == 0 {
		return fetch(ctx, p.c, r, env)
	}
	if ctx == nil {
		return nil, errNilContext
	}
	if _, err := expandPath(r.op.path, r.ids); err != nil {
		return nil, err
	}
	var cfg getConfig
	for _, o := range opts {
		if o != nil {
			o.applyGet(&cfg)
		}
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	own := func() (*T, error) { return fetch(ctx, p.c, r, env) }
	if cfg.maxAge == 0 || ctx.Err() != nil {
		return own() // an ended context fails as a plain Get's does, starting no walk
	}
	return p.read(ctx, r.ids[0], cfg.maxAge, own)
}

// read returns resource id as the read walk that started less than maxAge ago shows it, starting one
// when there is none, or as own reads it.
func (p *poller[T]) read(ctx context.Context, id string, maxAge time.Duration, own func() (*T, error)) (*T, error) {
	p.mu.Lock()
	now := time.Now()
	w := p.reads
	if w == nil || now.Sub(w.started) >= maxAge {
		w = &readWalk[T]{started: now, asked: map[string]struct{}{}, seen: map[string]T{}, progress: make(chan struct{})}
		old := p.reads
		p.reads = w
		if old != nil {
			p.dropLater(old) // no read can take it any more
		}
		go p.walkForReads(w)
	}
	w.readers++
	defer func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		w.readers--
		p.dropLater(w)
	}()
	if len(w.asked) <= p.c.maxWalkPages {
		w.asked[id] = struct{}{}
	}
	if keep := w.started.Add(maxAge); keep.After(w.keep) {
		w.keep = keep
		p.dropLater(w)
	}
	for {
		if v, ok := w.seen[id]; ok {
			p.mu.Unlock()
			return cloned(v), nil
		}
		if w.panic != nil {
			p.mu.Unlock()
			panic(w.panic.value)
		}
		if w.ended {
			p.mu.Unlock()
			return own()
		}
		progress := w.progress
		p.mu.Unlock()
		select {
		case <-progress:
		case <-ctx.Done():
			return own() // which fails as a call with an ended context does
		}
		p.mu.Lock()
	}
}

// walkForReads walks the list for w's reads, on a goroutine of its own with a context of its own (no
// caller's, which may end while other reads still wait), until its end or until walking no longer
// pays: until the pages read pass the reads served by one and the whole list's pages pass them too.
func (p *poller[T]) walkForReads(w *readWalk[T]) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	read, enough := 0, false
	pages := func(ctx context.Context, o *ListOptions) (*Page[T], error) {
		pg, _, _, _, err := p.page(ctx, o, false, func() {}, cancel, func() {}) // a late page ends the walk
		if err != nil {
			return nil, err
		}
		read++
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, v := range pg.Items {
			id, _ := stringField(v, "ID")
			w.seen[id] = v
		}
		reads := len(w.asked)
		enough = read > reads && walkCost(o.Page, pg) > reads
		w.changed()
		return pg, nil
	}
	var err error
	for _, err = range walk(ctx, p.c, &ListOptions{PerPage: MaxPerPage}, pages, false) {
		if err != nil || enough {
			break
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	w.panic, _ = err.(*walkPanic) // another failure tells nothing more: the reads send their GETs
	w.ended = true
	w.changed()
	p.dropLater(w)
}

// dropLater drops w, once it ended, when no read can use it any more, so that its resources do not
// stay in memory: at once when a newer walk replaced it and no read that took it is left, else when
// it is older than the largest maxAge asked of it. The caller holds the poller's lock.
func (p *poller[T]) dropLater(w *readWalk[T]) {
	if !w.ended || w.seen == nil {
		return // the walk's end calls it again; or it is dropped already
	}
	if p.reads != w {
		if w.readers == 0 { // the last read that took it calls it again
			if w.drop != nil {
				w.drop.Stop()
			}
			w.seen, w.asked = nil, nil
		}
		return
	}
	d := time.Until(w.keep)
	if w.drop != nil {
		w.drop.Reset(d)
		return
	}
	w.drop = time.AfterFunc(d, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if time.Now().Before(w.keep) {
			return // kept longer meanwhile; its timer was reset
		}
		w.seen, w.asked = nil, nil
		if p.reads == w {
			p.reads = nil
		}
	})
}

// cloned returns a deep copy of v, so that reads of one resource share no slice or pointer.
func cloned[T any](v T) *T {
	out := new(T)
	if data, err := json.Marshal(v); err != nil || json.Unmarshal(data, out) != nil {
		*out = v // not reached with the SDK's resource types
	}
	return out
}
