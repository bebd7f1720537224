package compute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// poller shares the polling of one client's waits on one kind of resource. While two or more waits
// run (or the last of a fleet's, see fewest) and a walk of the list costs no more requests than a
// GET each, it walks the list, and each wait takes its resource from the next walk whose first page
// is sent after it asked (a wait that asks while that page waits in the limiter is answered by it:
// every page is newer than the asking). While the rate has room, a walk follows the last when the
// most eager wait would poll alone (a second by default), or a quarter of a second after it once
// the list stopped growing or shrinking (no creates or deletes under way) when the run's waits,
// polling alone, would have read at least as often (the walks of such a fleet serve its waits to
// the last one); while the client's other requests wait for the rate (a fleet's creates), walking
// takes about a twentieth of the client's requests (see pace). A walk reads from the list's end
// (where the total_count of the last page read says it is; the first walk of a run reads page 1 for
// it) back to the first page, stopping as soon as it has seen every awaited resource: the newest
// resources, which a fleet of creates awaits, come first, and resources shift only towards the
// pages still to read. With a ListBoard (a limiter shared by several processes), each page a walk
// reads is posted to it, and a walk takes from it every awaited resource that another process's
// page, sent after the wait asked, showed: it reads no page, or stops reading, once the board and
// its own pages show every awaited resource; between walks, the poller looks the board up every
// walkCheck, so that such a page answers the waits as soon as it is posted, and the next page of
// their own comes an interval after that. A resource the walk did not show is read with a GET: a
// list can lag, so only the GET's 404 says a resource is gone. A walk that fails tells the waits
// nothing: each reads its own resource, and only its own GET's refusal ends it. A walk refused for
// good (a 403, a 400, a page the walk cannot use) stops the walking until fewer than two waits
// remain; one that fails for a time (a 503) is tried again a second later. Whenever walking stops
// paying, every wait blocked for a walk is released at once to read on its own.
//
// Shared waits never do worse than each wait alone: a page sent (granted by the limiter: a wait in
// its queue is no stall, nor the wait before a retry, as a 429's Retry-After: the service answered)
// that has not answered within stallAfter of its sending stalls the walk, which releases every wait
// blocked for it, and the waits read on their own until a page answers again; and the walk decides
// with each page, from its total_count and the pages read, whether walking still costs less than a
// GET each, stopping (and releasing the waits) as soon as it does not.
//
// The same machinery serves reads with SharedRead (shared_read.go): their walks read the whole list
// once for every read within maxAge.
type poller[T any] struct {
	c     *Client
	list  func(context.Context, *ListOptions) (*Page[T], error)
	name  string    // the list's name on the board
	board ListBoard // the client's limiter, when it shares the walks' pages among processes; else nil

	mu      sync.Mutex
	waits   map[string]int        // the waits in flight on each ID
	every   map[time.Duration]int // the first poll interval of each wait in flight, counted
	running bool                  // the walking goroutine runs
	stop    context.CancelFunc    // ends the goroutine's walk or sleep when fewer than two waits remain
	pages   int                   // the pages of the whole list at the last walk of this run; 0 before it
	spent   int                   // the pages the last walk from the list's end read to see every awaited resource; 0 after a walk that read pages and did not (or read from the start)
	refused bool                  // a walk was refused for good: no more walks in this run
	stalled bool                  // a page of the walk in progress was sent and has not answered in stallAfter
	count   int                   // the total_count last seen (a page of this process's, or another's on the board); -1 before the first
	counted int64                 // the sequence of that sighting: its page's board mark, or this process's count of its pages
	still   bool                  // the last two total_count sightings agreed: the list keeps its size
	most    int                   // the most resources awaited at once in this run
	next    *walkResult[T]        // what the walk whose first page goes next publishes; the polls waiting for it hold it
	started chan struct{}         // closed when the walking goroutine starts; a new one once it ends
	reads   *readWalk[T]          // the latest walk that shared reads take their resources from; nil when none
}

// stallAfter is how long a page of a shared walk may take, from its sending, before the waits
// blocked for it read on their own: about a poll interval, so that no wait waits much longer than
// it would alone.
const stallAfter = DefaultPollMin

// walkResult is one walk's answer to the polls that waited for it. seen is nil when the walk told
// nothing (it failed, or it did not happen because walking stopped paying).
type walkResult[T any] struct {
	done      chan struct{} // closed when the result is published
	published bool          // done is closed; set under the poller's lock
	seen      map[string]T  // every resource on the pages the walk read, by ID; nil when it read none
	panic     *walkPanic    // the walk's list call panicked
	// The board's part (see ListBoard): asks holds, by ID, the greatest mark the polls waiting
	// for this result took after they asked, and board what the board showed during the walk.
	// A poll takes its resource from board only when the sighting's mark is greater than its own.
	asks  map[string]int64
	board map[string]Sighting
}

// publish closes done, once; seen and panic must be set before. The caller holds the poller's lock.
func (r *walkResult[T]) publish() {
	if !r.published {
		r.published = true
		close(r.done)
	}
}

func newWalkResult[T any]() *walkResult[T] {
	return &walkResult[T]{done: make(chan struct{}), asks: map[string]int64{}}
}

// newPoller returns the poller of the list that list reads, named name on the board (when the
// client's limiter is a [ListBoard]).
func newPoller[T any](c *Client, name string, list func(context.Context, *ListOptions) (*Page[T], error)) *poller[T] {
	p := &poller[T]{c: c, list: list, name: name, waits: map[string]int{}, every: map[time.Duration]int{}, next: newWalkResult[T](), started: make(chan struct{}), count: -1}
	if c != nil && c.transport != nil {
		p.board, _ = c.transport.limiter.(ListBoard)
	}
	return p
}

// join records a wait on id whose first poll interval is every, starting the walks when worth it,
// and returns the wait's leave.
func (p *poller[T]) join(id string, every time.Duration) (leave func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waits[id]++
	p.every[every]++
	if len(p.waits) >= 2 && !p.running {
		p.start()
	}
	p.most = max(p.most, len(p.waits))
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.waits[id]--; p.waits[id] == 0 {
			delete(p.waits, id)
		}
		if p.every[every]--; p.every[every] == 0 {
			delete(p.every, every)
		}
		if len(p.waits) == 0 { // the run's last wait is done: a later one starts afresh
			p.most, p.still = 0, false
		}
		if len(p.waits) < p.fewest() && p.stop != nil {
			p.stop()
			p.stop = nil
		}
		if !p.sharing() {
			p.release()
		}
	}
}

// start starts the walking goroutine. The caller holds p.mu. A new run measures the list again:
// what an earlier run saw (a list since cleaned up, a refusal) does not keep its waits apart.
func (p *poller[T]) start() {
	var ctx context.Context
	ctx, p.stop = context.WithCancel(context.Background())
	p.running, p.refused, p.pages, p.spent, p.count, p.counted, p.still, p.most = true, false, 0, 0, -1, 0, false, len(p.waits)
	close(p.started)
	go p.run(ctx)
}

// sharing reports whether waits take their resources from walks now: while a walk costs no more
// than a GET each. A walk's cost is the pages the last one read to see every awaited resource
// (from the list's end, a page or two for a fleet of creates), else the whole list's. The caller
// holds p.mu.
func (p *poller[T]) sharing() bool {
	cost := p.pages
	if p.spent > 0 {
		cost = p.spent
	}
	return p.running && !p.refused && !p.stalled && len(p.waits) >= p.fewest() && cost <= len(p.waits)
}

// fewest returns how few waits the walks keep running for: two, or one for the last wait of a
// fleet (a run whose waits at their most, polling alone, would read at least as often as walks
// every walkEager: four at the default interval), which the fleet's walks serve to its end. The
// caller holds p.mu.
func (p *poller[T]) fewest() int {
	if p.most > 1 && p.fleet(p.interval(), 1) {
		return 1
	}
	return 2
}

// interval returns the most eager wait's first poll interval (DefaultPollMin when none is
// shorter). The caller holds p.mu.
func (p *poller[T]) interval() time.Duration {
	every := DefaultPollMin
	for d := range p.every {
		every = min(every, d)
	}
	return every
}

// fleet reports whether the run's waits at their most, polling alone every every, would read at
// least as often as walks of pages every walkEager. The caller holds p.mu.
func (p *poller[T]) fleet(every time.Duration, pages int) bool {
	return time.Duration(p.most)*walkEager >= time.Duration(pages)*every
}

// company waits, up to d, until the walks run (a second wait on the kind joined): a wait whose
// first poll would read alone while the client's other requests wait for the rate, its GET queued
// behind them, shares the walk of the waits that follow it instead. It returns at once while the
// walks run.
func (p *poller[T]) company(ctx context.Context, d time.Duration) {
	p.mu.Lock()
	running, started := p.running, p.started
	p.mu.Unlock()
	if running {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-started:
	case <-t.C:
	case <-ctx.Done():
	}
}

// release publishes an empty result to the polls waiting for the next walk, which then read on
// their own. The caller holds p.mu.
func (p *poller[T]) release() {
	p.next.publish()
	p.next = newWalkResult[T]()
}

// poll returns the resource id as the next walk whose first page is sent shows it, or as a
// board's sighting newer than the poll's asking shows it (see ask), or as get reads it. shared
// reports whether a walk answered (the wait then polls again at once, which waits for the next
// walk).
func (p *poller[T]) poll(ctx context.Context, id string, get func(context.Context) (*T, error)) (v *T, shared bool, err error) {
	p.mu.Lock()
	if !p.sharing() {
		p.mu.Unlock()
		v, err := get(ctx)
		return v, false, err
	}
	res := p.next
	p.mu.Unlock()
	mark := p.ask(ctx, res, id)
	select {
	case <-res.done:
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
	if res.panic != nil {
		panic(res.panic.value)
	}
	if found, ok := res.seen[id]; ok {
		return &found, true, nil
	}
	if found, ok := sighted[T](res.board[id], id, mark); ok {
		return found, true, nil
	}
	// The walk failed, did not happen, or did not show the resource: its own GET says.
	v, err = get(ctx)
	return v, false, err
}

// ask takes a mark from the board for a poll of id that waits for res, after it asked, and records
// it in res; it returns math.MaxInt64 (no sighting answers the poll) without a board, or when the
// board fails.
func (p *poller[T]) ask(ctx context.Context, res *walkResult[T], id string) int64 {
	if p.board == nil {
		return math.MaxInt64
	}
	mark, err := p.board.Mark(ctx)
	if err != nil {
		return math.MaxInt64
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := res.asks[id]; !ok || mark > prev {
		res.asks[id] = mark
	}
	return mark
}

// sighted returns the resource id as s shows it, when s was seen on a page sent after the mark of
// the poll that asks (its mark is greater) and is id's.
func sighted[T any](s Sighting, id string, mark int64) (*T, bool) {
	if s.JSON == nil || s.Mark <= mark {
		return nil, false
	}
	var v T
	if json.Unmarshal(s.JSON, &v) != nil {
		return nil, false
	}
	if got, _ := stringField(v, "ID"); got != id {
		return nil, false
	}
	return &v, true
}

// run walks while walks are worth it, publishing each, then ends; ctx ends when it should.
func (p *poller[T]) run(ctx context.Context) {
	for {
		p.mu.Lock()
		if len(p.waits) < p.fewest() || ctx.Err() != nil {
			p.running = false
			p.started = make(chan struct{})
			p.release()            // a wait still blocked for a walk reads on its own
			if len(p.waits) >= 2 { // waits joined while it was stopping
				p.start()
			}
			p.mu.Unlock()
			return
		}
		worth := p.sharing()
		if !worth {
			p.release()
		}
		p.mu.Unlock()
		read, others, started, granted := 1, time.Duration(0), time.Now(), p.c.transport.load.granted.Load()
		sent := started
		if worth {
			read, others, sent = p.walk(ctx)
			granted = p.c.transport.load.granted.Load() // the share counts from the walk's end
		}
		p.pace(ctx, sent, granted, max(read, 1), others)
	}
}

// The pace of the shared walks while other requests need the rate.
const (
	// walkShare is the most of a client's requests its walks take while its other requests wait
	// for the rate: a walk of k pages is followed by the next once k/walkShare of the client's
	// requests have gone since it ended.
	walkShare = 0.05
	// walkMaxGap bounds that wait, from the walk's last page, once none of the client's own
	// requests waits for the rate (a process sharing the rate with others, its waits all it
	// does): the waits see their resources settle within about that, and a second a page.
	walkMaxGap = 6 * time.Second
	// walkBusyGap bounds it while some of the client's own requests wait for the rate: a wait
	// seen sooner would let the client send nothing sooner, and walks of several processes
	// sharing one budget would otherwise take much of its rate. A wait polling alone while
	// others need the rate backs off up to as long.
	walkBusyGap = DefaultPollMax
	// busyWait is how long a request may wait in the limiter, with none of its client's requests
	// ahead, without telling that others sharing the rate (another process on the same budget)
	// use it: longer than a request waits for the one before it.
	busyWait = DefaultPollMin / 4
	// walkCheck is how often a walk spaced out for the rate looks whether the client's other
	// requests are done, and, with a board, whether another process's page answers the waits.
	walkCheck = 100 * time.Millisecond
	// walkEager is how soon a walk follows the last while the rate has room, the list does not
	// change size and the run's waits would have read at least as often alone: a quarter of a
	// second, so that a fleet's last resources are seen within about that of settling, with most
	// of the rate left to others.
	walkEager = DefaultPollMin / 4
)

// pace waits until the next walk may start. The walk's last page was sent at sent (its time counts
// from then: a walk whose pages waited behind the client's own requests is not followed at once by
// another that shows the same), granted requests of the client had gone when it ended, it read
// pages, and its pages waited at most others in the limiter for others sharing the rate. While the
// rate has room (no other request of the client waits in its limiter, and others was short),
// walking delays nobody: the next walk starts when the most eager wait in flight would poll alone
// (a second after, by default), a walk costing no more than the waits' own GETs would. Once the
// list stopped changing size (the last two sightings of its total_count, on this process's pages or
// on the board's, agreed: no creates or deletes under way, in this process or another, whose
// requests this client does not see queue), it starts walkEager after instead, when the most waits
// of this run at once, polling alone at that interval, would have read at least as often as the
// walks read pages (at the defaults, four waits a page): a fleet's walks then cost no more than its
// waits would, and keep that pace while its last waits end. While other requests wait for the rate,
// walking takes at most walkShare of the client's requests: the next walk starts once
// pages/walkShare of them have gone since this one ended (and a second a page has passed since its
// last page was sent). Once none of the client's own requests waits for the rate, the waits are all
// it waits for: the next walk starts at most walkMaxGap (or a second a page) after this one's last
// page was sent, however busy others keep the rate; while some do, at most walkBusyGap (or a second
// a page) after.
//
// With a board, pace looks it up every walkCheck and returns as soon as another process's page
// answers every wait (see onBoard): the next walk reads no page, and the one after it comes an
// interval later. These times then count from a random instant within walkCheck after sent, so that
// two processes whose walks fell on the same instant, each reading a page the other's waits asked
// too late for, drift apart, and the later one takes the earlier one's page.
func (p *poller[T]) pace(ctx context.Context, sent time.Time, granted int64, pages int, others time.Duration) {
	p.mu.Lock()
	share := p.sharing()
	p.mu.Unlock()
	if share {
		p.boardCount(ctx)
	}
	p.mu.Lock()
	every := p.eager(p.interval(), pages)
	p.mu.Unlock()
	paced := time.Duration(pages) * DefaultPollMin
	latest, busyLatest := max(walkMaxGap, paced), max(walkBusyGap, paced)
	need := int64(math.Ceil(float64(pages) / walkShare))
	load := p.c.transport.load
	if p.board != nil {
		sent = sent.Add(rand.N(walkCheck))
	}
	for {
		since := time.Since(sent)
		switch {
		case since >= latest && load.queued.Load() == 0:
			return // the client waits for nothing but its waits
		case since >= busyLatest:
			return
		case since >= every && load.queued.Load() == 0 && others <= busyWait:
			return // the rate has room
		case since >= paced && load.granted.Load()-granted >= need:
			return // walking took its share
		}
		if p.onBoard(ctx) {
			return // another process's page showed every awaited resource: the next walk takes it
		}
		d := walkCheck
		if since < every && (p.board == nil || every-since < d) {
			d = every - since
		}
		if sleep(ctx, d) != nil {
			return
		}
	}
}

// eager returns how soon, while the rate has room, the next read of the waits may follow one of
// pages, every being the most eager wait's interval: walkEager once the list keeps its size and
// the run's waits at their most, polling alone, would read at least as often as the walks read
// pages (see pace); else every. The caller holds p.mu.
func (p *poller[T]) eager(every time.Duration, pages int) time.Duration {
	if p.still && p.fleet(every, pages) {
		return min(every, walkEager)
	}
	return every
}

// countID is the ID under which a walk posts each page's total_count to the board, in the list
// named after the poller's with countList appended: the processes that take their waits' resources
// from another's pages learn from it whether the list keeps its size.
const (
	countList = "-count"
	countID   = "total"
)

// counts notes total_count total, seen on a page whose sequence is seq (its board mark; 0 without
// a board, the pages of this process then counted in turn): still tells whether it agrees with
// the sighting before it. An older sighting than the last one noted is ignored. The caller holds
// p.mu.
func (p *poller[T]) counts(seq int64, total int) {
	if seq == 0 {
		seq = p.counted + 1
	}
	if seq <= p.counted {
		return
	}
	p.still, p.count, p.counted = total == p.count, total, seq
}

// postCount posts a page's total_count to the board, with the page's mark.
func (p *poller[T]) postCount(ctx context.Context, mark int64, total int) {
	if p.board == nil || mark == 0 {
		return
	}
	_ = p.board.Post(ctx, p.name+countList, mark, map[string][]byte{countID: []byte(strconv.Itoa(total))})
}

// boardCount notes the latest total_count a page of any process posted to the board (see counts),
// waiting at most walkCheck for it. pace asks it while the waits share walks.
func (p *poller[T]) boardCount(ctx context.Context) {
	if p.board == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, walkCheck)
	defer cancel()
	s, err := p.board.Seen(ctx, p.name+countList, []string{countID})
	if err != nil {
		return
	}
	x, ok := s[countID]
	n, err := strconv.Atoi(string(x.JSON))
	if !ok || err != nil || n < 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts(x.Mark, n)
}

// onBoard reports whether the board shows every resource that the polls waiting for the next walk
// await, each on a page sent after its poll asked (so the next walk reads no page). It is false
// without asking the board when there is none, while the waits do not share walks, or while one of
// them has not asked yet; and when the board takes longer than walkCheck to answer.
func (p *poller[T]) onBoard(ctx context.Context) bool {
	if p.board == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.unseen(nil, nil)
	if len(ids) == 0 || !p.sharing() {
		return false
	}
	for _, id := range ids {
		if _, ok := p.next.asks[id]; !ok {
			return false
		}
	}
	ctx, cancel := context.WithTimeout(ctx, walkCheck)
	defer cancel()
	s := p.lookup(ctx, ids)
	covered := func(id string) bool {
		x, ok := s[id]
		return ok && x.Mark > p.asked(nil, id)
	}
	return s != nil && len(p.unseen(nil, covered)) == 0
}

// walkPanic is a panic of the walk's list call (an Observer's, say), which each wait sharing the
// walk raises again on its own goroutine, where its caller can recover it.
type walkPanic struct{ value any }

func (w *walkPanic) Error() string {
	return fmt.Sprintf("compute: the shared list walk panicked: %v", w.value)
}

// guarded calls list, a panic turned into a *walkPanic error.
func guarded[T any](list func(context.Context, *ListOptions) (*Page[T], error)) func(context.Context, *ListOptions) (*Page[T], error) {
	return func(ctx context.Context, o *ListOptions) (pg *Page[T], err error) {
		defer func() {
			if r := recover(); r != nil {
				pg, err = nil, &walkPanic{value: r}
			}
		}()
		return list(ctx, o)
	}
}

// walk reads the list from its end (see walkFirst and walkBack) until its pages and the board's
// sightings newer than the waits' asking show every awaited resource, to its first page, or until
// walking costs more than a GET each; it publishes what it saw to the polls that asked before its
// first page was sent (only the board's sightings, to those that asked so far, when no page was),
// and returns the pages read, the longest any of them waited in the limiter for others sharing
// the rate, and when its last page was sent (when it was called, if no page was). Waits can join
// while a page comes, so the awaited set is read after each page. A page that stalls publishes
// nothing to them at once (see stallAfter).
func (p *poller[T]) walk(ctx context.Context) (read int, others time.Duration, sent time.Time) {
	called := time.Now()
	// The walk answers the polls that asked before its first page was sent, however long that
	// page waited in the limiter: every page it reads is newer than their asking.
	var res *walkResult[T]
	take := func() { // with p.mu held
		if res == nil {
			res, p.next = p.next, newWalkResult[T]()
		}
	}

	// What the board holds of the awaited resources: a wait whose poll asked before the page that
	// showed one was sent (another process's, often) needs no page of this walk.
	p.mu.Lock()
	sightings := p.lookup(ctx, p.unseen(nil, nil))
	covered := func(id string) bool { // with p.mu held
		s, ok := sightings[id]
		return ok && s.Mark > p.asked(res, id)
	}
	seen := map[string]T{}
	enough, complete := false, false
	var err error
	pages := func(ctx context.Context, o *ListOptions) (*Page[T], error) {
		if read > 0 && sightings != nil {
			// Another process may have read what this walk has yet to: the board says.
			p.mu.Lock()
			more := p.lookup(ctx, p.unseen(seen, covered))
			for id, s := range more {
				if s.Mark > sightings[id].Mark {
					sightings[id] = s
				}
			}
			done := len(p.unseen(seen, covered)) == 0
			p.mu.Unlock()
			if done {
				enough, complete = true, true
				return nil, errCovered
			}
		}
		pg, w, at, mark, err := p.page(ctx, o, true, take, func() {
			p.stalled = true // the waits read on their own until a page answers
			res.publish()
			p.release()
		}, func() { p.stalled = false })
		others = max(others, w)
		if !at.IsZero() {
			sent = at
		}
		if err != nil {
			return nil, err
		}
		read++
		p.postCount(ctx, mark, pg.TotalCount)
		for _, v := range pg.Items {
			id, _ := stringField(v, "ID")
			seen[id] = v
		}
		p.post(ctx, mark, pg.Items)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.counts(mark, pg.TotalCount)
		p.pages = walkCost(o.Page, pg)
		enough = p.pages > len(p.waits) // walking costs more than a GET each
		for id := range p.waits {
			if _, ok := seen[id]; !ok && !covered(id) {
				return pg, nil
			}
		}
		enough, complete = true, true // every awaited resource is in
		return pg, nil
	}
	last := p.pages
	onBoard := sightings != nil && len(p.unseen(seen, covered)) == 0
	p.mu.Unlock()
	switch {
	case onBoard:
		// Every awaited resource is on the board, seen after its wait asked: no page to read.
	case last > 1:
		err = p.walkBack(ctx, last, 1, 0, pages, &enough)
	default:
		err = p.walkFirst(ctx, pages, &enough)
	}
	if errors.Is(err, errCovered) {
		err = nil
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	unsent := res == nil
	take() // no page was sent: the polls that asked so far read on their own
	p.stalled = false
	switch {
	case complete && last > 1:
		p.spent = read // from the list's end
	case read > 0:
		p.spent = 0
	}
	if !res.published {
		res.board = sightings
	}
	wp, _ := err.(*walkPanic)
	switch {
	case wp == nil && err != nil && !transient(err) && ctx.Err() == nil:
		p.refused = true // the waits read on their own from now on
	case res.published:
		// A page stalled: res went out empty, and its polls read on their own already.
	case wp != nil:
		res.panic = wp
	case err == nil && ctx.Err() == nil && !unsent:
		res.seen = seen
	}
	res.publish()
	if !p.sharing() {
		p.release() // walking stopped paying: no wait waits for the next walk
	}
	if sent.IsZero() {
		sent = called
	}
	return read, others, sent
}

// errCovered ends a walk whose remaining awaited resources the board shows, seen after their
// waits asked.
var errCovered = errors.New("compute: the board shows the rest")

// lookup returns what the board holds of ids; nil without a board, or when it fails. The caller
// holds p.mu, which lookup releases while it asks the board.
func (p *poller[T]) lookup(ctx context.Context, ids []string) map[string]Sighting {
	if p.board == nil {
		return nil
	}
	p.mu.Unlock()
	defer p.mu.Lock()
	s, err := p.board.Seen(ctx, p.name, ids)
	if err != nil {
		return nil
	}
	return s
}

// unseen returns the awaited IDs that seen does not hold and covered (nil for none) does not
// cover. The caller holds p.mu.
func (p *poller[T]) unseen(seen map[string]T, covered func(string) bool) []string {
	var ids []string
	for id := range p.waits {
		if _, ok := seen[id]; !ok && (covered == nil || !covered(id)) {
			ids = append(ids, id)
		}
	}
	return ids
}

// asked returns the greatest mark the polls of id took after they asked, among those waiting for
// res (nil before the walk took it) and for the walk after it. The caller holds p.mu.
func (p *poller[T]) asked(res *walkResult[T], id string) int64 {
	a, ok := p.next.asks[id]
	if res != nil {
		if b, ok2 := res.asks[id]; ok2 && (!ok || b > a) {
			a, ok = b, true
		}
	}
	if !ok {
		return math.MaxInt64 // no poll took a mark: no sighting covers it
	}
	return a
}

// markPage returns the board's mark for a page about to be written, its turn granted; 0 (the page
// is not posted) without a board, or when it fails.
func (p *poller[T]) markPage(ctx context.Context) int64 {
	if p.board == nil {
		return 0
	}
	m, err := p.board.Mark(ctx)
	if err != nil {
		return 0
	}
	return m
}

// post records on the board what a page marked mark showed; the board's failure costs only the
// sharing.
func (p *poller[T]) post(ctx context.Context, mark int64, items []T) {
	if p.board == nil || mark == 0 || len(items) == 0 {
		return
	}
	out := make(map[string][]byte, len(items))
	for _, v := range items {
		id, _ := stringField(v, "ID")
		b, err := json.Marshal(v)
		if id == "" || err != nil {
			continue
		}
		out[id] = b
	}
	_ = p.board.Post(ctx, p.name, mark, out)
}

// walkFirst reads a list whose end the poller does not know yet (its first walk, or the list was
// one page at the last), until enough: page 1, whose total_count says where the list ends, then,
// when it goes on, the pages from that end back to page 2 (see walkBack), the newest first.
func (p *poller[T]) walkFirst(ctx context.Context, pages func(context.Context, *ListOptions) (*Page[T], error), enough *bool) error {
	pg, err := pages(ctx, &ListOptions{Page: 1, PerPage: MaxPerPage})
	if err != nil || *enough {
		return err
	}
	if pg.Page != 0 && pg.Page != 1 {
		return fmt.Errorf("compute: asked for page 1, the service sent page %d; stopping the walk", pg.Page)
	}
	end := walkCost(1, pg)
	if end < 2 {
		return nil
	}
	return p.walkBack(ctx, end, 2, 1, pages, enough)
}

// walkBack reads the list from its end down to page low, until enough, after read pages read
// before it (which count towards the client's bound on a walk's pages): page last, where the
// previous walk found the end; when that page is full and its total_count says the list goes on,
// the pages from the end the count says back to last; then the pages below last. The newest
// resources, which the waits of a fleet of creates await, come first. A full page whose count says
// it is the last ends the list: what a count that lags leaves out, the waits read on their own.
func (p *poller[T]) walkBack(ctx context.Context, last, low, read int, pages func(context.Context, *ListOptions) (*Page[T], error), enough *bool) error {
	get := func(k int) (*Page[T], error) {
		if read++; read > p.c.maxWalkPages {
			return nil, fmt.Errorf("compute: the list took more than %d pages to read; stopping the walk", p.c.maxWalkPages)
		}
		pg, err := pages(ctx, &ListOptions{Page: k, PerPage: MaxPerPage})
		if err != nil {
			return nil, err
		}
		if pg.Page != 0 && pg.Page != k {
			return nil, fmt.Errorf("compute: asked for page %d, the service sent page %d; stopping the walk", k, pg.Page)
		}
		return pg, nil
	}
	pg, err := get(last)
	if err != nil || *enough {
		return err
	}
	end := last
	if len(pg.Items) >= MaxPerPage {
		end = max(last+1, (pg.TotalCount+MaxPerPage-1)/MaxPerPage)
		if pg.TotalCount > 0 && pg.TotalCount <= last*MaxPerPage {
			end = last // the count says this page is the last
		}
	}
	for k := end; k > last; k-- {
		if _, err := get(k); err != nil || *enough {
			return err
		}
	}
	for k := last - 1; k >= low; k-- {
		if _, err := get(k); err != nil || *enough {
			return err
		}
	}
	return nil
}

// walkCost is the pages a walk of the whole list reads, as far as page n, the page just read,
// tells: those its total_count says, and one past n when n is full and its count does not end the
// list there (the walk reads on, in case the count lags, or because the count says more).
func walkCost[T any](n int, pg *Page[T]) int {
	cost := max(n, (pg.TotalCount+MaxPerPage-1)/MaxPerPage)
	if len(pg.Items) >= MaxPerPage && n*MaxPerPage != pg.TotalCount {
		cost = max(cost, n+1)
	}
	return cost
}

// pageWatch times each attempt of one page request of a shared walk from its sending (see
// stallAfter): late runs when an attempt has not answered stallAfter after it was sent, answered
// when the request returns, with a page or an error, each with mu held, and late never after
// answered. The waits between attempts (a 429's Retry-After, a backoff) are no stall: the service
// answered, as a wait in the limiter's queue is none.
type pageWatch struct {
	mu                    *sync.Mutex  // the poller's lock
	first, late, answered func()       // first runs as the first attempt is sent; each with mu held
	mark                  func() int64 // the board's mark, taken as each attempt is sent, before it is written; nil for none
	marked                int64        // the last attempt's mark; under tmu

	tmu     sync.Mutex
	timer   *time.Timer   // runs while an attempt is in flight
	others  time.Duration // the longest an attempt waited in the limiter for others sharing the rate
	firstAt time.Time     // when the first attempt was sent
	done    bool          // the request returned; under mu
}

// sent is called as each attempt of the page is sent, with how long it waited in the limiter for
// others sharing the rate: it takes the board's mark (a round trip to the board, before the
// request is written), then starts the attempt's timer.
func (w *pageWatch) sent(others time.Duration) {
	var marked int64
	if w.mark != nil {
		marked = w.mark() // before the request is written: the page is newer than the mark
	}
	w.tmu.Lock()
	defer w.tmu.Unlock()
	w.marked = marked
	w.others = max(w.others, others)
	if w.firstAt.IsZero() {
		w.firstAt = time.Now()
		w.runFirst()
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = time.AfterFunc(stallAfter, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.done {
			w.late()
		}
	})
}

// runFirst runs first with mu held (tmu is held too: nothing that holds mu takes tmu).
func (w *pageWatch) runFirst() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.first()
}

// ended is called as each attempt ends, answered or failed: it stops the attempt's timer.
func (w *pageWatch) ended() {
	w.tmu.Lock()
	defer w.tmu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// returned is called when the page request returned.
func (w *pageWatch) returned() {
	w.ended()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.answered()
}

// page reads one page of list through a pageWatch, and says how long its attempts waited in the
// limiter for others sharing the rate, at most, when the first was sent (zero when none was), and
// the board's mark of the last attempt (0 without a board, or unless marked).
func (p *poller[T]) page(ctx context.Context, o *ListOptions, marked bool, first, late, answered func()) (*Page[T], time.Duration, time.Time, int64, error) {
	w := &pageWatch{mu: &p.mu, first: first, late: late, answered: answered}
	if marked && p.board != nil {
		w.mark = func() int64 { return p.markPage(ctx) }
	}
	pg, err := guarded(p.list)(withAttemptHooks(ctx, attemptHooks{sent: w.sent, ended: w.ended}), o)
	w.returned()
	w.tmu.Lock()
	defer w.tmu.Unlock()
	return pg, w.others, w.firstAt, w.marked, err
}

// attemptHooksKey is the context key of the attemptHooks the transport calls for each attempt.
type attemptHooksKey struct{}

// attemptHooks are called by the transport as each attempt of a call is sent, after the limiter's
// grant, and as it ends, answered or failed. sent is told how long the attempt waited in the
// limiter for others sharing the rate: its whole wait when none of the client's own requests was
// ahead of it, else 0.
type attemptHooks struct {
	sent  func(others time.Duration)
	ended func()
}

// withAttemptHooks returns ctx with h called for each attempt of its calls.
func withAttemptHooks(ctx context.Context, h attemptHooks) context.Context {
	return context.WithValue(ctx, attemptHooksKey{}, h)
}

// attemptSent calls the sent hook withAttemptHooks put in ctx, if any, with how long the attempt
// waited in the limiter for others sharing the rate.
func attemptSent(ctx context.Context, others time.Duration) {
	if h, ok := ctx.Value(attemptHooksKey{}).(attemptHooks); ok && h.sent != nil {
		h.sent(others)
	}
}

// attemptEnded calls the ended hook withAttemptHooks put in ctx, if any.
func attemptEnded(ctx context.Context) {
	if h, ok := ctx.Value(attemptHooksKey{}).(attemptHooks); ok && h.ended != nil {
		h.ended()
	}
}

// clientLoad counts a client's attempts: those waiting in its limiter now, and those it let go.
// The shared walks read it to space themselves out while other requests need the rate.
type clientLoad struct {
	queued  atomic.Int64 // attempts waiting in the limiter
	granted atomic.Int64 // attempts the limiter let go
}

// busy reports whether other requests need the rate: some of the client's wait in its limiter, or
// the caller's own request waited longer than busyWait for others sharing the rate (another process
// on the same budget).
func (l *clientLoad) busy(others time.Duration) bool {
	return l.queued.Load() > 0 || others > busyWait
}
