package compute

import (
	"context"
	"fmt"
	"hash/maphash"
)

// search reads list for names and keeps, for each, the resources named exactly so, at most the
// name's limit; more than that for one name is a *TooManyMatchesError when tooMany is set, or else
// ends keeping the first ones. It never misses a resource that exists from its first request to its
// last, whatever other jobs create and delete meanwhile (see sweep); unsure reports a list that
// broke what the rule rests on (see sweep.read).
// With index, it also keeps every resource it reads by name (matches.all), reading the whole list.
func search[T any](ctx context.Context, c *Client, kind string, list func(context.Context, *ListOptions) (*Page[T], error), names map[string]int, tooMany, index bool) (matches[T], error) {
	if ctx == nil {
		return matches[T]{}, errNilContext
	}
	s := &sweep[T]{ctx: ctx, c: c, kind: kind, list: list, names: names, tooMany: tooMany,
		m: matches[T]{found: map[string][]T{}}, ids: map[string]bool{}, pos: map[uint64]int{}, front: map[uint64]bool{}, seed: maphash.MakeSeed()}
	if index {
		s.m.all, s.indexed = map[string][]T{}, map[string]bool{}
	}
	if err := s.run(); err != nil {
		return matches[T]{}, err
	}
	return s.m, nil
}

// sweep is one read of a list that cannot miss a resource that exists throughout it.
//
// The service lists oldest first: a new resource comes after every one that exists, so a
// resource's position only ever falls, by one for each older resource deleted. Reading pages from
// the first to the last, a delete on a page already read moves the resources after it one place
// back, and one of them can cross onto that page unseen, even when creates keep the count
// unchanged. Read from the last page to the first, a resource can only move towards pages still to
// be read. So the sweep reads page 1 (a short one is the whole list), then finds the list's end:
// the page its latest total_count names and, while that page is full, the next (an empty one while
// a full page lies below is narrowed down by halves); then it reads every page below that end, from
// the last to the first. A resource that exists when the end is read is on that page or below it,
// and by induction it is on the page read next or below, until page 1, which holds it if nothing
// did before. Cost: the list's pages and page 1 once more; when the last page is exactly full, also
// the empty one after it and the last page once more (read full before the end was found, it must be
// read after it), which for a list of one page is page 1's second read.
type sweep[T any] struct {
	ctx     context.Context
	c       *Client
	kind    string
	list    func(context.Context, *ListOptions) (*Page[T], error)
	names   map[string]int // the names looked up, each with the most matches kept
	tooMany bool

	m       matches[T]
	ids     map[string]bool // the IDs kept in m, each kept once however often it is read
	full    int             // names that have all the matches they keep
	perPage int             // the page size, as page 1 says it
	total   int             // the latest total_count
	reads   int
	indexed map[string]bool // the IDs kept in m.all, when the sweep indexes every name
	pos     map[uint64]int  // by a hash of its ID, the position each item was last read at
	front   map[uint64]bool // the items of page 1 as first read
	seed    maphash.Seed
}

// done reports whether every name has all the matches it keeps (an indexing sweep reads on).
func (s *sweep[T]) done() bool { return !s.tooMany && s.m.all == nil && s.full == len(s.names) }

// pages is how many pages the latest total_count says the list has.
func (s *sweep[T]) pages() int { return (s.total + s.perPage - 1) / s.perPage }

func (s *sweep[T]) run() error {
	n, err := s.read(1)
	if err != nil || s.done() || n < s.perPage {
		return err // a short page 1 is the whole list
	}
	// The end: the lowest page found short. lo is the highest found full.
	lo, end, empty := 1, 0, false
	for end == 0 {
		if s.total > 0 && lo > s.pages() {
			return fmt.Errorf("compute: the service sent full pages past its total_count (%d); stopping the walk", s.total)
		}
		k := max(lo+1, s.pages())
		if n, err = s.read(k); err != nil || s.done() {
			return err
		}
		if n < s.perPage {
			end, empty = k, n == 0
		} else {
			lo = k
		}
	}
	// An empty end far above a full page: the list shrank, or its count said more than it held.
	for empty && end-lo > 1 {
		k := lo + (end-lo)/2
		if n, err = s.read(k); err != nil || s.done() {
			return err
		}
		if n < s.perPage {
			end, empty = k, n == 0
		} else {
			lo = k
		}
	}
	for k := end - 1; k >= 1; k-- {
		if _, err := s.read(k); err != nil || s.done() {
			return err
		}
	}
	return nil
}

// read reads page k, keeps its matches and returns how many items it held. It sets m.unsure when
// the page breaks what the sweep rests on: a short page whose own total_count says the list holds
// more than it shows (the service counts what it does not list); an item listed at a later
// position than before; or an item never read before listed ahead of one that page 1 showed when
// first read, which would have shown it too had it been older. The last two mean that a resource
// was listed before one older than itself: the list is not oldest first.
func (s *sweep[T]) read(k int) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	if s.reads >= s.c.maxWalkPages {
		return 0, fmt.Errorf("compute: the list took more than %d pages to read; stopping the walk", s.c.maxWalkPages)
	}
	s.reads++
	p, err := s.list(s.ctx, &ListOptions{Page: k, PerPage: MaxPerPage})
	if err != nil {
		return 0, err
	}
	if p.Page != 0 && p.Page != k {
		return 0, fmt.Errorf("compute: asked for page %d, the service sent page %d; stopping the walk", k, p.Page)
	}
	// The page size the service says, unless it says more than was asked for: a page that claims
	// 200 while holding the 100 asked for is full.
	perPage := p.PerPage
	if perPage <= 0 || perPage > MaxPerPage {
		perPage = MaxPerPage
	}
	if k == 1 {
		s.perPage = perPage
	} else if perPage != s.perPage {
		return 0, fmt.Errorf("compute: page %d is of %d items, page 1 of %d; stopping the walk", k, perPage, s.perPage)
	}
	s.total = p.TotalCount
	first := (k - 1) * s.perPage
	if len(p.Items) < s.perPage && p.TotalCount > first+len(p.Items) {
		s.m.unsure = true
	}
	newcomer := false // an item never read before came earlier on this page
	for i, v := range p.Items {
		id, _ := stringField(v, "ID")
		if id == "" {
			return 0, fmt.Errorf("compute: page %d holds an item with no id; stopping the walk", k)
		}
		h := maphash.String(s.seed, id)
		at, seen := s.pos[h]
		switch {
		case seen && (first+i > at || newcomer && s.front[h]):
			s.m.unsure = true
		case !seen:
			newcomer = true
		}
		if seen || len(s.pos) < maxSeen {
			s.pos[h] = first + i
		}
		if s.reads == 1 {
			s.front[h] = true
		}
		name, _ := stringField(v, "Name")
		if s.m.all != nil && !s.indexed[id] {
			if len(s.indexed) == maxIndexed {
				s.m.all, s.indexed = nil, nil // too long a list to keep
			} else {
				s.indexed[id] = true
				s.m.all[name] = append(s.m.all[name], v)
			}
		}
		limit, ok := s.names[name]
		if !ok || s.ids[id] {
			continue
		}
		if len(s.m.found[name]) == limit {
			if s.tooMany {
				return 0, &TooManyMatchesError{Kind: s.kind, Name: s.c.transport.cred.outside(name), Limit: limit}
			}
			continue
		}
		s.ids[id] = true
		s.m.found[name] = append(s.m.found[name], v)
		if len(s.m.found[name]) == limit {
			s.full++
		}
	}
	return len(p.Items), nil
}
