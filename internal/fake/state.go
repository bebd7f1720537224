package fake

import (
	"fmt"
	"maps"
	"slices"
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
	// instance.refsTo), given the two IDs; nil allows it.
	ref   string
	inUse func(id, instance string) *Error
}

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
	// refs are, for each resource, those that refer to it (see link), so that a check or a rename
	// reaches them without a scan.
	refs  map[string]map[string]bool
	kinds []kind

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
		seq: map[string]int{}, refs: map[string]map[string]bool{}}
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
	}
	for _, v := range s.catalog.Volumes {
		s.volumes.add(v.ID, catalogVolume(v, at))
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
	s.seq[prefix]++
	return fmt.Sprintf("%s-%06d", prefix, s.seq[prefix])
}

// newAddress hands out addresses from a prefix of two octets: 62,500 before one repeats.
func (s *state) newAddress(prefix string, version string) string {
	s.seq["addr:"+prefix]++
	n := s.seq["addr:"+prefix]
	if version == "ipv6" {
		return fmt.Sprintf("2001:db8::%x", n)
	}
	return fmt.Sprintf("%s%d.%d", prefix, n/250%250, 1+n%250)
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

// knownRegion reports whether the catalogue offers a region.
func (s *state) knownRegion(id string) bool {
	return slices.ContainsFunc(s.catalog.Regions, func(r Region) bool { return r.ID == id })
}
