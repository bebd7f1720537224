package fake

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// spec is what a resource kind is, beyond its resources.
type spec struct {
	collection string                 // its path segment under /compute/v1/, such as "floating-ips"
	notFound   func(id string) *Error // the refusal for an ID it does not hold
	quota      string                 // its quota's key in the quotas lists, "" for none
	code       string                 // what a create past the quota gets
	product    string                 // its name in the quota's flavors
	statuses   []string               // what the control endpoint can force; none: it has no status
	// inUse refuses the delete of a resource that an instance refers to as ref (see
	// instance.refsTo), its message given the two IDs; none allows it.
	ref   string
	inUse refusal
}

// refusal is a code and a message's format.
type refusal struct{ code, format string }

// resource is what the state needs of every resource type.
type resource interface {
	// arrive puts the resource into a status, with the effects of reaching it (an instance that
	// becomes active for the first time gets its addresses).
	arrive(s *state, status string, at time.Time)
	pending() **transition // the place of its transition in progress
	flavor() string        // what the quotas list counts it under, "" for nothing
	view(s *state) any     // the resource as a response shows it
	uses() []string        // what it refers to, named by ref: its store links them while it holds it
}

// lifecycle is the transition a resource has in progress; resources embed it.
type lifecycle struct{ next *transition }

func (l *lifecycle) pending() **transition { return &l.next }
func (l *lifecycle) flavor() string        { return "" }
func (l *lifecycle) uses() []string        { return nil }

// kind is a resource kind's store as the quotas and the control endpoint see it, which go through
// every kind (see register) without naming them.
type kind interface {
	spec() *spec
	len() int
	flavorCounts() []quotaFlavor
	force(id, status string, now time.Time) *Error
}

// state is everything the fake holds: the catalogue, the resources, the transitions in progress,
// the counters behind IDs and addresses, and the quotas. The engine holds its lock around every use.
type state struct {
	catalog   Catalog
	durations Durations
	limits    Limits
	queue     queue
	seq       map[string]int
	// catalogIDs are the IDs of the catalogue's keys and volumes, which newID skips.
	catalogIDs map[string]bool
	// refs are, for each resource, those that refer to it (see link), so that a check or a rename
	// reaches them without a scan.
	refs  map[string]map[string]bool
	kinds []kind
	// public are the public addresses and who holds each.
	public publicPool

	instances   store[*instance]
	groups      store[*securityGroup]
	floatingIPs store[*floatingIP]
	volumes     store[*volume]
	filesystems store[*filesystem]
	snapshots   store[*snapshot]
	sshKeys     store[*sshKey]
}

// newState is the state of a fresh engine: nothing but the catalogue, whose SSH keys and volumes
// are the account's first.
func newState(cfg Config) *state {
	s := &state{catalog: cfg.Catalog.Clone(), durations: cfg.Durations, limits: cfg.Limits,
		seq: map[string]int{}, refs: map[string]map[string]bool{}, catalogIDs: map[string]bool{}, public: newPublicPool()}
	// The kinds, each registered once, in the order of the quotas list.
	register(s, &s.instances, &instanceSpec)
	register(s, &s.floatingIPs, &floatingIPSpec)
	register(s, &s.volumes, &volumeSpec)
	register(s, &s.filesystems, &filesystemSpec)
	register(s, &s.sshKeys, &sshKeySpec)
	register(s, &s.snapshots, &snapshotSpec)
	register(s, &s.groups, &groupSpec)
	at := stamp(catalogTime)
	for _, k := range s.catalog.SSHKeys {
		s.sshKeys.add(k.ID, catalogSSHKey(k, at))
		s.catalogIDs[k.ID] = true
	}
	for _, v := range s.catalog.Volumes {
		s.volumes.add(v.ID, catalogVolume(v, at))
		s.catalogIDs[v.ID] = true
	}
	return s
}

// register makes a kind's store and adds it to s.kinds.
func register[R resource](s *state, st *store[R], sp *spec) {
	*st = store[R]{s: s, sp: sp, byID: map[string]*entry[R]{}, flavors: map[string]int{}}
	s.kinds = append(s.kinds, st)
}

// The stores, for the route table.
func instances(s *state) *store[*instance]     { return &s.instances }
func groups(s *state) *store[*securityGroup]   { return &s.groups }
func floatingIPs(s *state) *store[*floatingIP] { return &s.floatingIPs }
func volumes(s *state) *store[*volume]         { return &s.volumes }
func filesystems(s *state) *store[*filesystem] { return &s.filesystems }
func snapshots(s *state) *store[*snapshot]     { return &s.snapshots }
func sshKeys(s *state) *store[*sshKey]         { return &s.sshKeys }

// newID returns the next identifier of a kind: "ins-000001", "sg-000001", and so on. IDs are
// sequential so that test output is repeatable.
func (s *state) newID(prefix string) string {
	for {
		s.seq[prefix]++
		id := fmt.Sprintf("%s-%06d", prefix, s.seq[prefix])
		if !s.catalogIDs[id] { // a catalogue's key or volume may have taken it
			return id
		}
	}
}

// newPrivateAddress hands out private addresses, in 10.0.0.0/16: 62,500 before one repeats.
func (s *state) newPrivateAddress() string {
	s.seq["addr:private"]++
	n := s.seq["addr:private"]
	return fmt.Sprintf("10.0.%d.%d", n/250%250, 1+n%250)
}

// link records that a resource refers to others, each named by ref: an instance to its volumes,
// security groups, SSH keys, image and reservation, a snapshot to its instance.
func (s *state) link(from string, to ...string) {
	for _, k := range to {
		if s.refs[k] == nil {
			s.refs[k] = map[string]bool{}
		}
		s.refs[k][from] = true
	}
}

// unlink forgets that a resource refers to others.
func (s *state) unlink(from string, to ...string) {
	for _, k := range to {
		if delete(s.refs[k], from); len(s.refs[k]) == 0 {
			delete(s.refs, k)
		}
	}
}

// referrers are the resources of a kind that refer to a resource, in the order of their IDs, the
// order they were created in.
func referrers[R resource](st *store[R], to string) []R {
	var out []R
	for _, id := range slices.Sorted(maps.Keys(st.s.refs[to])) {
		if r, ok := st.find(id); ok {
			out = append(out, r)
		}
	}
	return out
}

// holder is the first instance that refers to a resource as kind (see instance.refsTo), "" when none
// does: a volume or a floating IP is attached to one at a time.
func (s *state) holder(kind, id string) string {
	if users := referrers(&s.instances, ref(kind, id)); len(users) > 0 {
		return users[0].ID
	}
	return ""
}

// ref names a resource in refs: its kind and its ID.
func ref(kind, id string) string { return kind + ":" + id }

// region refuses, with 02004, a request's region (in field) that the catalogue lacks; "" is none.
func (s *state) region(field, id string) *Error {
	if id != "" && !s.knownRegion(id) {
		return badRequest(codeBadRequest, "unknown %s %q", field, id)
	}
	return nil
}

// knownRegion reports whether the catalogue offers a region.
func (s *state) knownRegion(id string) bool {
	return slices.ContainsFunc(s.catalog.Regions, func(r Region) bool { return r.ID == id })
}

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

// remove forgets a resource and the transition it had in progress, and frees its public address.
func (st *store[R]) remove(id string) {
	e, ok := st.byID[id]
	if !ok {
		return
	}
	st.s.queue.cancel(e.v.pending())
	st.s.unlink(id, e.v.uses()...)
	st.s.public.release(id)
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

type quotaFlavor struct {
	FlavorName  string `json:"flavor_name"`
	ProductName string `json:"product_name"`
	Unit        string `json:"unit"`
	Used        int    `json:"used"`
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
	st.put(r, status, now)
	return nil
}

// put is force without its checks: r, in any status.
func (st *store[R]) put(r R, status string, now time.Time) {
	st.s.queue.cancel(r.pending())
	r.arrive(st.s, status, now)
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
