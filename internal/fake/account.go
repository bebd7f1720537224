package fake

import (
	"encoding/json"
	"slices"
)

// Limits are the account quotas the fake enforces. Zero means unlimited.
type Limits struct {
	// MaxInstances refuses a create beyond this many instances with code 02010.
	MaxInstances int
	// MaxFloatingIPs refuses a create beyond this many floating IPs with code 02049.
	MaxFloatingIPs int
	// MaxSnapshotsPerInstance refuses a snapshot beyond this many per instance with code 02012.
	MaxSnapshotsPerInstance int
	// MaxSnapshots refuses a snapshot (taken, imported or cloned) beyond this many with code 02010.
	MaxSnapshots int
	// MaxVolumes refuses a volume create beyond this many volumes with code 02010.
	MaxVolumes int
	// MaxFilesystems refuses a filesystem create beyond this many filesystems with code 02010.
	MaxFilesystems int
	// MaxSSHKeys refuses an SSH key create beyond this many keys with code 02010.
	MaxSSHKeys int
}

// byKey are the quotas' fields by their key in the quotas lists and the control endpoint: each
// kind's (spec.quota), and the snapshots per instance.
func (l *Limits) byKey() map[string]*int {
	return map[string]*int{"instances": &l.MaxInstances, "floating_ips": &l.MaxFloatingIPs, "volumes": &l.MaxVolumes,
		"filesystems": &l.MaxFilesystems, "ssh_keys": &l.MaxSSHKeys, "snapshots": &l.MaxSnapshots,
		"snapshots_per_instance": &l.MaxSnapshotsPerInstance}
}

// unlimited is the capacity the quotas list shows for a quota that Limits leaves at zero.
const unlimited = 1<<31 - 1

// quota refuses a create that would go past a kind's quota, with the kind's code: 02010 ("max
// quota reached"), or 02049 for floating IPs. The per-instance snapshot quota (02012) is the
// snapshot create's own.
func (s *state) quota(k kind) *Error {
	sp := k.spec()
	if m := *s.limits.byKey()[sp.quota]; m > 0 && k.len() >= m {
		return badRequest(sp.code, "max quota reached: %s is limited to %d", sp.quota, m)
	}
	return nil
}

type quotaBody struct {
	Key      string        `json:"key"`
	Capacity int           `json:"capacity"`
	Used     int           `json:"used"`
	Flavors  []quotaFlavor `json:"flavors"`
}

type reservationQuota struct {
	Capacity int `json:"capacity"`
	Used     int `json:"used"`
}

type reservationBody struct {
	ID         string                     `json:"id"`
	FlavorName string                     `json:"flavor_name"`
	Region     string                     `json:"region"`
	Metadata   map[string]json.RawMessage `json:"metadata"`
	Quota      reservationQuota           `json:"quota"`
}

// checkReservation checks a reservation_id of an instance create or update: it must exist (02067),
// be for the instance's type and region (02020) and have room (02010). The instance owner, already
// associated with it, does not count against it.
func (s *state) checkReservation(id, typ, region, owner string) *Error {
	i := slices.IndexFunc(s.catalog.Reservations, func(r Reservation) bool { return r.ID == id })
	if i < 0 {
		return badRequest(codeReservationNotFound, "reservation %q not found", id)
	}
	r := s.catalog.Reservations[i]
	users := s.refs[ref("reservation", id)]
	switch {
	case r.FlavorName != typ || r.Region != region:
		return badRequest(codeInstanceConfigNotAllowed, "reservation %q is for %s in %s, not %s in %s", id, r.FlavorName, r.Region, typ, region)
	case users[owner]:
		return nil
	case len(users) >= r.Capacity:
		return badRequest(codeMaxQuotaReached, "max quota reached: reservation %q holds %d instances", id, r.Capacity)
	}
	return nil
}

type typeAvailability struct {
	Type      string `json:"type"`
	Available bool   `json:"available"`
	Count     *int   `json:"count,omitempty"`
}

type availabilityBody struct {
	Type          string             `json:"type"`
	Region        string             `json:"region"`
	Placement     string             `json:"placement,omitempty"`
	InstanceTypes []typeAvailability `json:"instance_types"`
}
