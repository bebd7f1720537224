package engine

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// table keeps resources by ID in creation order, the order lists show them in.
type table[T any] struct {
	byID  map[string]*T
	order []string
}

func newTable[T any]() table[T] { return table[T]{byID: map[string]*T{}} }

func (t *table[T]) get(id string) (*T, bool) {
	v, ok := t.byID[id]
	return v, ok
}

func (t *table[T]) add(id string, v *T) {
	t.byID[id] = v
	t.order = append(t.order, id)
}

func (t *table[T]) remove(id string) {
	if _, ok := t.byID[id]; !ok {
		return
	}
	delete(t.byID, id)
	if i := slices.Index(t.order, id); i >= 0 {
		t.order = slices.Delete(t.order, i, i+1)
	}
}

// all returns the resources in creation order.
func (t *table[T]) all() []*T {
	out := make([]*T, 0, len(t.order))
	for _, id := range t.order {
		out = append(out, t.byID[id])
	}
	return out
}

// pending is a transition that completes at a time on the server's clock.
type pending struct {
	to string
	at time.Time
}

// due reports whether a transition is set and complete at now.
func (p *pending) due(now time.Time) bool { return p != nil && !now.Before(p.at) }

// newID returns the next identifier of a kind: "ins-000001", "sg-000001", and so on. IDs are
// sequential so that test output is repeatable.
func (e *Engine) newID(prefix string) string {
	e.seq[prefix]++
	return fmt.Sprintf("%s-%06d", prefix, e.seq[prefix])
}

// now is the server's clock plus what Advance added, truncated to the contract's millisecond
// precision so that what the server stores is what it shows.
func (e *Engine) now() time.Time {
	return e.cfg.Clock().Add(e.offset).UTC().Truncate(time.Millisecond)
}

// Advance moves the server's clock forward by d, completing the transitions due by then. It works
// with any clock, real or fake.
func (e *Engine) Advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d > 0 {
		e.offset += d
	}
	e.settle(e.now())
}

// settle completes every transition due at now, in creation order so that the addresses handed out
// are repeatable. The caller holds e.mu.
func (e *Engine) settle(now time.Time) {
	var instances []*instance
	for _, id := range e.instances.order {
		if in := e.instances.byID[id]; in.next.due(now) {
			instances = append(instances, in)
		}
	}
	for _, in := range instances {
		e.settleInstance(in, now)
	}
	for _, id := range e.groups.order {
		if g := e.groups.byID[id]; g.next.due(now) {
			g.Status = g.next.to
			g.next = nil
		}
	}
	for _, v := range e.volumes.all() {
		if v.next.due(now) {
			v.Status, v.UpdatedAt = v.next.to, stamp(v.next.at)
			v.next = nil
		}
	}
	for _, fs := range e.filesystems.all() {
		e.settleFilesystem(fs, now)
	}
	for _, sn := range e.snapshots.all() {
		settleSnapshot(sn, now)
	}
	for _, id := range e.fips.order {
		if f := e.fips.byID[id]; f.next.due(now) {
			f.Status = f.next.to
			f.IPAddress = nullString(e.newAddress("100.64.", f.Version))
			f.UpdatedAt = stamp(f.next.at)
			f.next = nil
			e.refreshPublicIP(f)
		}
	}
}

// newAddress hands out addresses, one per call, from a prefix of two octets: 62,500 before one
// repeats.
func (e *Engine) newAddress(prefix string, version string) string {
	e.seq["addr:"+prefix]++
	n := e.seq["addr:"+prefix]
	if version == "ipv6" {
		return fmt.Sprintf("2001:db8::%x", n)
	}
	return fmt.Sprintf("%s%d.%d", prefix, n/250%250, 1+n%250)
}

// listParams reads per_page and page as the contract defines them: per_page 1..100, default 50;
// page >= 1, default 1.
func listParams(q url.Values) (perPage, page int, err *apiError) {
	perPage, page = 50, 1
	if v := q.Get("per_page"); v != "" {
		n, convErr := strconv.Atoi(v)
		if convErr != nil || n < 1 || n > 100 {
			return 0, 0, badRequest(codeBadRequest, "per_page must be an integer from 1 to 100, got %q", v)
		}
		perPage = n
	}
	if v := q.Get("page"); v != "" {
		n, convErr := strconv.Atoi(v)
		if convErr != nil || n < 1 {
			return 0, 0, badRequest(codeBadRequest, "page must be a positive integer, got %q", v)
		}
		page = n
	}
	return perPage, page, nil
}

// pageOf is one page of items under the collection key, with the contract's envelope, turning
// only the items of the page into their wire shape. A page past the end is empty, with the true
// total_count.
func pageOf[T, W any](c *call, key string, items []T, wire func(T) W) (int, any, *apiError) {
	perPage, page, err := listParams(c.query)
	if err != nil {
		return 0, nil, err
	}
	start := len(items)
	if page-1 < len(items)/perPage+1 {
		start = min((page-1)*perPage, len(items))
	}
	end := min(start+perPage, len(items))
	out := make([]W, 0, end-start)
	for _, it := range items[start:end] {
		out = append(out, wire(it))
	}
	return http.StatusOK, map[string]any{
		key:           out,
		"total_count": len(items),
		"page":        page,
		"per_page":    perPage,
	}, nil
}
