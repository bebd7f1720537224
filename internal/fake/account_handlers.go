package fake

import (
	"encoding/json"
	"slices"
)

// listQuotas shows one entry per quota, in the order the kinds are registered, with what the fake
// holds now: capacity is the limit (unlimited, 2^31-1, when there is none) and used counts the
// resources. Not paginated.
func listQuotas(s *state, _ call, _ *none) ([]quotaBody, *Error) {
	out := []quotaBody{}
	for _, k := range s.kinds {
		sp := k.spec()
		if sp.quota == "" {
			continue
		}
		b := quotaBody{Key: sp.quota, Capacity: unlimited, Used: k.len(), Flavors: k.flavorCounts()}
		if m := *s.limits.byKey()[sp.quota]; m > 0 {
			b.Capacity = m
		}
		out = append(out, b)
	}
	return out, nil
}

// listReservations shows the catalogue's reservations, used counting their instances. Not paginated.
func listReservations(s *state, _ call, _ *none) ([]reservationBody, *Error) {
	out := make([]reservationBody, 0, len(s.catalog.Reservations))
	for _, r := range s.catalog.Reservations {
		md := r.Metadata
		if md == nil {
			md = map[string]json.RawMessage{}
		}
		out = append(out, reservationBody{ID: r.ID, FlavorName: r.FlavorName, Region: r.Region, Metadata: md,
			Quota: reservationQuota{Capacity: r.Capacity, Used: len(s.refs[ref("reservation", r.ID)])}})
	}
	return out, nil
}

// getAvailability reports, for a region, every instance type of the catalogue: available when the
// type is offered there and the instance quota has room, with count the instances that can still
// be created when a quota is set. placement is echoed; an unknown region is 02004 and a placement
// that is neither a catalogue placement option nor "NONE" (the example of an earlier revision of
// the service's description) is 02052.
func getAvailability(s *state, c call, _ *none) (availabilityBody, *Error) {
	region, placement := c.ids[0], c.query.Get("placement")
	if err := s.region("region", region); err != nil {
		return availabilityBody{}, err
	}
	if placement != "" && placement != "NONE" && !slices.Contains(s.catalog.PlacementOptions, placement) {
		return availabilityBody{}, badRequest(codeInvalidPlacementOption, "invalid placement option %q", placement)
	}
	var count *int
	room := true
	if m := s.limits.MaxInstances; m > 0 {
		n := max(0, m-s.instances.len())
		count, room = &n, n > 0
	}
	out := availabilityBody{Type: "instances", Region: region, Placement: placement, InstanceTypes: []typeAvailability{}}
	for _, t := range s.catalog.InstanceTypes {
		offered := slices.Contains(t.Regions, region)
		a := typeAvailability{Type: t.ID, Available: offered && room}
		if offered {
			a.Count = count
		}
		out.InstanceTypes = append(out.InstanceTypes, a)
	}
	return out, nil
}
