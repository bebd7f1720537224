package fake

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"time"
)

// store keeps the resources of one kind by ID, in the order they were added, which is the order
// lists show them in. Adding, finding and removing one, and finding the i-th, cost the same however
// many it holds (a log at most, and for a removal a copy of the freed slots after its own).
type store[R resource] struct {
	s       *state
	sp      *spec
	byID    map[string]*entry[R]
	order   order
	flavors map[string]int // the resources by flavor, for the quotas list
}

type entry[R resource] struct {
	v    R
	slot int
}

// get returns the resource with this ID, or the kind's 404.
func (st *store[R]) get(id string) (R, *Error) {
	r, ok := st.find(id)
	if !ok {
		return r, st.sp.notFound(id)
	}
	return r, nil
}

// find returns the resource with this ID and whether there is one.
func (st *store[R]) find(id string) (r R, ok bool) {
	if e, ok := st.byID[id]; ok {
		return e.v, true
	}
	return r, false
}

func (st *store[R]) add(id string, r R) {
	st.byID[id] = &entry[R]{v: r, slot: st.order.add(id)}
	st.flavors[r.flavor()]++
	st.s.link(id, r.uses()...)
}

// begin starts a transition: r reaches status to after d.
func (st *store[R]) begin(r R, now time.Time, d time.Duration, to string) {
	st.s.queue.begin(r.pending(), now.Add(d), func(at time.Time) { r.arrive(st.s, to, at) })
}

// remove forgets a resource and the transition it had in progress.
func (st *store[R]) remove(id string) {
	e, ok := st.byID[id]
	if !ok {
		return
	}
	st.s.queue.cancel(e.v.pending())
	st.s.unlink(id, e.v.uses()...)
	delete(st.byID, id)
	st.order.remove(e.slot)
	st.flavors[e.v.flavor()]--
	if st.order.compact() {
		for slot, id := range st.order.ids {
			st.byID[id].slot = slot
		}
	}
}

func (st *store[R]) len() int { return st.order.len() }

// at returns the resource at position i (from 0) of the order they were added in.
func (st *store[R]) at(i int) R { return st.byID[st.order.ids[st.order.slot(i)]].v }

func (st *store[R]) spec() *spec { return st.sp }

// flavorCounts are the resources by flavor, in flavor order, for the quotas list.
func (st *store[R]) flavorCounts() []quotaFlavor {
	out := []quotaFlavor{}
	for name, n := range st.flavors {
		if name != "" && n > 0 {
			out = append(out, quotaFlavor{FlavorName: name, ProductName: st.sp.product, Unit: "count", Used: n})
		}
	}
	slices.SortFunc(out, func(a, b quotaFlavor) int { return cmp.Compare(a.FlavorName, b.FlavorName) })
	return out
}

// force puts a resource into a status at once, as if it had reached it, cancelling its transition.
func (st *store[R]) force(id, status string, now time.Time) *Error {
	if len(st.sp.statuses) == 0 {
		return badRequest(codeBadRequest, "%s have no status", st.sp.collection)
	}
	r, err := st.get(id)
	if err != nil {
		return err
	}
	if !slices.Contains(st.sp.statuses, status) {
		return badRequest(codeBadRequest, "status must be one of %s, got %q", strings.Join(st.sp.statuses, ", "), status)
	}
	st.s.queue.cancel(r.pending())
	r.arrive(st.s, status, now)
	return nil
}

// order is a sequence of IDs in the order they were added, where an ID is removed by its slot,
// which stays its own until compact. The freed slots are kept sorted, so that the i-th remaining ID
// is found by a binary search over them rather than by shifting the IDs after a removed one.
type order struct {
	ids   []string // by slot; "" once removed
	freed []int    // the removed slots, in increasing order
}

// len is the number of IDs still there.
func (o *order) len() int { return len(o.ids) - len(o.freed) }

// add appends an ID and returns its slot.
func (o *order) add(id string) int {
	o.ids = append(o.ids, id)
	return len(o.ids) - 1
}

// remove frees a slot.
func (o *order) remove(slot int) {
	o.ids[slot] = ""
	i, _ := slices.BinarySearch(o.freed, slot)
	o.freed = slices.Insert(o.freed, i, slot)
}

// slot is the slot of the i-th ID still there (from 0): i plus the k slots freed before it, k being
// the first index where freed[k]-k > i (freed[k]-k only grows with k).
func (o *order) slot(i int) int {
	return i + sort.Search(len(o.freed), func(k int) bool { return o.freed[k]-k > i })
}

// compact drops the freed slots once they outnumber the taken ones (so that, spread over the
// removals, it costs each a constant) and reports whether the slots changed.
func (o *order) compact() bool {
	if len(o.ids) < 64 || 2*o.len() > len(o.ids) {
		return false
	}
	o.ids = slices.DeleteFunc(o.ids, func(id string) bool { return id == "" })
	o.freed = o.freed[:0]
	return true
}
