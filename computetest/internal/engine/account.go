package engine

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
)

// unlimited is the capacity the quotas list shows for a quota that Limits leaves at zero.
const unlimited = 1<<31 - 1

// quotaKind is one quota of the account: its key in the quotas list, the code a create past it
// gets, its capacity in Limits, and how the fake counts its use.
type quotaKind struct {
	key     string
	code    string
	limit   func(Limits) int
	used    func(e *Engine) int
	flavors func(e *Engine) []quotaFlavor
}

// The quotas the fake keeps. The contract names 02010 ("max quota reached") for the generic case
// and 02049 for floating IPs; the per-instance snapshot quota (02012) is checked by the snapshot
// create itself.
var (
	quotaInstances = quotaKind{key: "instances", code: codeMaxQuotaReached,
		limit: func(l Limits) int { return l.MaxInstances }, used: func(e *Engine) int { return len(e.instances.order) },
		flavors: func(e *Engine) []quotaFlavor {
			return countFlavors("instance", e.instances.all(), func(in *instance) string { return in.Type })
		}}
	quotaFloatingIPs = quotaKind{key: "floating_ips", code: codeStaticPublicIPQuotaReached,
		limit: func(l Limits) int { return l.MaxFloatingIPs }, used: func(e *Engine) int { return len(e.fips.order) }}
	quotaVolumes = quotaKind{key: "volumes", code: codeMaxQuotaReached,
		limit: func(l Limits) int { return l.MaxVolumes }, used: func(e *Engine) int { return len(e.volumes.order) },
		flavors: func(e *Engine) []quotaFlavor {
			return countFlavors("volume", e.volumes.all(), func(v *volume) string { return v.Type })
		}}
	quotaFilesystems = quotaKind{key: "filesystems", code: codeMaxQuotaReached,
		limit: func(l Limits) int { return l.MaxFilesystems }, used: func(e *Engine) int { return len(e.filesystems.order) }}
	quotaSSHKeys = quotaKind{key: "ssh_keys", code: codeMaxQuotaReached,
		limit: func(l Limits) int { return l.MaxSSHKeys }, used: func(e *Engine) int { return len(e.sshKeys.order) }}
	quotaSnapshots = quotaKind{key: "snapshots", code: codeMaxQuotaReached,
		limit: func(l Limits) int { return l.MaxSnapshots }, used: func(e *Engine) int { return len(e.snapshots.order) }}
)

var quotaKinds = []quotaKind{quotaInstances, quotaFloatingIPs, quotaVolumes, quotaFilesystems, quotaSSHKeys, quotaSnapshots}

// quota refuses a create that would go past the quota with its code. The caller holds e.mu.
func (e *Engine) quota(q quotaKind) *apiError {
	if m := q.limit(e.cfg.Limits); m > 0 && q.used(e) >= m {
		return badRequest(q.code, "max quota reached: %s is limited to %d", q.key, m)
	}
	return nil
}

type quotaFlavor struct {
	FlavorName  string `json:"flavor_name"`
	ProductName string `json:"product_name"`
	Unit        string `json:"unit"`
	Used        int    `json:"used"`
}

type quotaBody struct {
	Key      string        `json:"key"`
	Capacity int           `json:"capacity"`
	Used     int           `json:"used"`
	Flavors  []quotaFlavor `json:"flavors"`
}

// countFlavors counts items by flavor (an instance's type, a volume's type), in flavor order.
func countFlavors[T any](product string, items []T, flavor func(T) string) []quotaFlavor {
	counts := map[string]int{}
	for _, it := range items {
		counts[flavor(it)]++
	}
	out := []quotaFlavor{}
	for name, n := range counts {
		out = append(out, quotaFlavor{FlavorName: name, ProductName: product, Unit: "count", Used: n})
	}
	slices.SortFunc(out, func(a, b quotaFlavor) int { return cmp.Compare(a.FlavorName, b.FlavorName) })
	return out
}

// listQuotas shows each quota with what the fake holds now: capacity is the limit Limits sets
// (unlimited, 2^31-1, when it sets none) and used counts the resources. Not paginated.
func (e *Engine) listQuotas(*call) (int, any, *apiError) {
	out := make([]quotaBody, 0, len(quotaKinds))
	for _, q := range quotaKinds {
		b := quotaBody{Key: q.key, Capacity: unlimited, Used: q.used(e), Flavors: []quotaFlavor{}}
		if m := q.limit(e.cfg.Limits); m > 0 {
			b.Capacity = m
		}
		if q.flavors != nil {
			b.Flavors = q.flavors(e)
		}
		out = append(out, b)
	}
	return http.StatusOK, map[string]any{"quotas": out}, nil
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

// listReservations shows the catalogue's reservations; used counts the instances associated with
// each. Not paginated.
func (e *Engine) listReservations(*call) (int, any, *apiError) {
	out := make([]reservationBody, 0, len(e.catalog.Reservations))
	for _, r := range e.catalog.Reservations {
		md := r.Metadata
		if md == nil {
			md = map[string]json.RawMessage{}
		}
		out = append(out, reservationBody{ID: r.ID, FlavorName: r.FlavorName, Region: r.Region, Metadata: md,
			Quota: reservationQuota{Capacity: r.Capacity, Used: e.reservationUse(r.ID)}})
	}
	return http.StatusOK, map[string]any{"reservations": out}, nil
}

func (e *Engine) reservationUse(id string) int {
	n := 0
	for _, in := range e.instances.all() {
		if string(in.ReservationID) == id {
			n++
		}
	}
	return n
}

// reservation checks a reservation_id of an instance create or update: it must exist (02067), be
// for the instance's type and region (02020) and have room (02010). An instance already associated
// with it does not count against it.
func (e *Engine) reservation(id, typ, region, owner string) *apiError {
	i := slices.IndexFunc(e.catalog.Reservations, func(r Reservation) bool { return r.ID == id })
	if i < 0 {
		return badRequest(codeReservationNotFound, "reservation %q not found", id)
	}
	r := e.catalog.Reservations[i]
	if r.FlavorName != typ || r.Region != region {
		return badRequest(codeInstanceConfigNotAllowed, "reservation %q is for %s in %s, not %s in %s", id, r.FlavorName, r.Region, typ, region)
	}
	if in, ok := e.instances.get(owner); ok && string(in.ReservationID) == id {
		return nil
	}
	if e.reservationUse(id) >= r.Capacity {
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

// availability reports, for a region, every instance type of the catalogue: available when the type
// is offered there and the instance quota has room, with count the instances that can still be
// created when a quota is set. placement is echoed; an unknown region is 02004 and a placement that is
// neither a catalogue placement option nor "NONE" (the example of an earlier revision of the
// service's description) is 02052.
func (e *Engine) availability(c *call) (int, any, *apiError) {
	region := c.ids[0]
	if !e.knownRegion(region) {
		return 0, nil, badRequest(codeBadRequest, "unknown region %q", region)
	}
	placement := c.query.Get("placement")
	if placement != "" && placement != "NONE" && !slices.Contains(e.catalog.PlacementOptions, placement) {
		return 0, nil, badRequest(codeInvalidPlacementOption, "invalid placement option %q", placement)
	}
	var count *int
	room := true
	if m := e.cfg.Limits.MaxInstances; m > 0 {
		n := max(0, m-len(e.instances.order))
		count, room = &n, n > 0
	}
	out := availabilityBody{Type: "instances", Region: region, Placement: placement, InstanceTypes: []typeAvailability{}}
	for _, t := range e.catalog.InstanceTypes {
		offered := slices.Contains(t.Regions, region)
		a := typeAvailability{Type: t.ID, Available: offered && room}
		if offered {
			a.Count = count
		}
		out.InstanceTypes = append(out.InstanceTypes, a)
	}
	return http.StatusOK, map[string]any{"availability": out}, nil
}
