package fake

import "slices"

// listQuotas shows one entry per quota, in the order the kinds are registered. Not paginated.
func listQuotas(s *state, _ call, _ *none) ([]quotaBody, *Error) { return s.quotas(), nil }

// listReservations shows the catalogue's reservations. Not paginated.
func listReservations(s *state, _ call, _ *none) ([]reservationBody, *Error) {
	return s.reservations(), nil
}

// getAvailability reports a region's instance types. placement is echoed; an unknown region is
// 02004 and a placement that is neither a catalogue placement option nor "NONE" (the example of an
// earlier revision of the service's description) is 02052.
func getAvailability(s *state, c call, _ *none) (availabilityBody, *Error) {
	region, placement := c.ids[0], c.query.Get("placement")
	switch {
	case !s.knownRegion(region):
		return availabilityBody{}, badRequest(codeBadRequest, "unknown region %q", region)
	case placement != "" && placement != "NONE" && !slices.Contains(s.catalog.PlacementOptions, placement):
		return availabilityBody{}, badRequest(codeInvalidPlacementOption, "invalid placement option %q", placement)
	}
	return s.availability(region, placement), nil
}
