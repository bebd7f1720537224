package compute

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// poller shares the polling of one client's waits on one kind of resource. While two or more waits
// run and a walk of the list costs fewer requests than a GET each, it walks the list about once a
// second per page, and each wait takes its resource from the walk. A resource the walk did not show
// is read with a GET: a list can lag, so only the GET's 404 says a resource is gone; so is every
// resource while the walk fails for a time (a refusal for good ends the waits, as their GETs would).
type poller[T any] struct {
	list func(context.Context, *ListOptions) (*Page[T], error)

	mu      sync.Mutex
	waits   map[string]int     // the waits in flight on each ID
	running bool               // the walking goroutine runs
	stop    context.CancelFunc // ends the goroutine's walk or sleep when fewer than two waits remain
	pages   int                // the pages of the whole list at the last walk; 0 before it
	walked  chan struct{}      // closed when the walk in progress is published
	latest  map[string]T       // every resource on the pages the last walk read, by ID
	err     error              // the last walk's error
}

func newPoller[T any](list func(context.Context, *ListOptions) (*Page[T], error)) *poller[T] {
	return &poller[T]{list: list, waits: map[string]int{}, walked: make(chan struct{})}
}

// join records a wait on id, starting the walks when worth it, and returns the wait's leave.
func (p *poller[T]) join(id string) (leave func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waits[id]++
	if len(p.waits) >= 2 && !p.running {
		p.start()
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.waits[id]--; p.waits[id] == 0 {
			delete(p.waits, id)
		}
		if len(p.waits) < 2 && p.stop != nil {
			p.stop()
			p.stop = nil
		}
	}
}

// start starts the walking goroutine. The caller holds p.mu.
func (p *poller[T]) start() {
	var ctx context.Context
	ctx, p.stop = context.WithCancel(context.Background())
	p.running = true
	go p.run(ctx)
}

// sharing reports whether waits take their resources from walks now. The caller holds p.mu.
func (p *poller[T]) sharing() bool {
	return p.running && len(p.waits) >= 2 && p.pages <= len(p.waits)
}

// poll returns the resource id as the next walk shows it, or as get reads it. shared reports
// whether a walk answered (the wait then polls again at once, which waits for the next walk).
func (p *poller[T]) poll(ctx context.Context, id string, get func(context.Context) (*T, error)) (v *T, shared bool, err error) {
	p.mu.Lock()
	if !p.sharing() {
		p.mu.Unlock()
		v, err := get(ctx)
		return v, false, err
	}
	walked := p.walked
	p.mu.Unlock()
	select {
	case <-walked:
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
	p.mu.Lock()
	found, ok := p.latest[id]
	err = p.err
	p.mu.Unlock()
	var wp *walkPanic
	switch {
	case errors.As(err, &wp):
		panic(wp.value)
	case err != nil && !transient(err):
		return nil, true, err
	case err != nil || !ok:
		// A walk that failed for now (a 503, a network error) or that did not show the resource:
		// its own GET says.
		v, err := get(ctx)
		return v, false, err
	}
	return &found, true, nil
}

// run walks while walks are worth it, publishing each, then ends; ctx ends when it should.
func (p *poller[T]) run(ctx context.Context) {
	for {
		p.mu.Lock()
		waits, costly := len(p.waits), p.pages > len(p.waits)
		if waits < 2 || ctx.Err() != nil {
			// A wait still blocked for a walk finds nothing in it and reads on its own.
			p.running, p.latest, p.err = false, nil, nil
			close(p.walked)
			p.walked = make(chan struct{})
			if len(p.waits) >= 2 { // waits joined while it was stopping
				p.start()
			}
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		read := 1
		if !costly {
			read = p.walk(ctx)
		}
		_ = sleep(ctx, time.Duration(max(read, 1))*DefaultPollMin)
	}
}

// walkPanic is a panic of the walk's list call (an Observer's, say), which each wait sharing the
// walk raises again on its own goroutine, where its caller can recover it.
type walkPanic struct{ value any }

func (w *walkPanic) Error() string {
	return fmt.Sprintf("compute: the shared list walk panicked: %v", w.value)
}

// listPage reads one page of the list for a walk, a panic turned into a *walkPanic.
func (p *poller[T]) listPage(ctx context.Context, page int) (pg *Page[T], err error) {
	defer func() {
		if r := recover(); r != nil {
			pg, err = nil, &walkPanic{value: r}
		}
	}()
	return p.list(ctx, &ListOptions{Page: page, PerPage: MaxPerPage})
}

// walk reads the list until it has seen every awaited resource, to its end (at most total_count's
// pages plus one), or, when the list holds more pages than there are waits, for one page; it publishes what it saw and returns the pages
// read. Waits can join while a page comes, so the awaited set is read after each page.
func (p *poller[T]) walk(ctx context.Context) int {
	seen := map[string]T{}
	var err error
	read := 0
	for page := 1; page <= defaultMaxWalkPages; page++ {
		var pg *Page[T]
		if pg, err = p.listPage(ctx, page); err != nil {
			break
		}
		read++
		for _, v := range pg.Items {
			id, _ := stringField(v, "ID")
			seen[id] = v
		}
		p.mu.Lock()
		if page == 1 {
			p.pages = max(1, (pg.TotalCount+MaxPerPage-1)/MaxPerPage)
		}
		all := true
		for id := range p.waits {
			if _, ok := seen[id]; !ok {
				all = false
			}
		}
		costly := p.pages > len(p.waits)
		p.mu.Unlock()
		// Past total_count's pages plus one the list is broken: what the walk missed, each wait reads
		// on its own.
		if all || costly || len(pg.Items) < MaxPerPage || page > p.pages {
			break
		}
	}
	p.mu.Lock()
	p.latest, p.err = seen, err
	if ctx.Err() != nil { // stopped: the walk says nothing
		p.latest, p.err = nil, nil
	}
	close(p.walked)
	p.walked = make(chan struct{})
	p.mu.Unlock()
	return read
}
