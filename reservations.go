package compute

import (
	"context"
	"encoding/json"
)

// Reservation is capacity reserved for the account; give its ID as
// [InstanceCreateRequest.ReservationID] to create an instance under it.
type Reservation struct {
	// ID identifies the reservation.
	ID string `json:"id"`
	// FlavorName is the flavor the reservation is for.
	FlavorName string `json:"flavor_name"`
	// Region is the reservation's region.
	Region string `json:"region"`
	// Metadata is an object the contract does not describe, each value as the service sent it.
	Metadata map[string]json.RawMessage `json:"metadata"`
	// Quota is how much the reservation holds and how much of it is used.
	Quota ReservationQuota `json:"quota"`
}

// ReservationQuota is the size of a [Reservation] and its use.
type ReservationQuota struct {
	// Capacity is how much the reservation holds.
	Capacity int `json:"capacity"`
	// Used is how much of it is in use.
	Used int `json:"used"`
}

// reservationsBody is the reservations response, not paginated.
type reservationsBody struct {
	Reservations *[]Reservation `json:"reservations"`
}

func (b *reservationsBody) resource() *[]Reservation { return b.Reservations }

// List returns every reservation of the account: GET /compute/v1/reservations.
func (s *ReservationsService) List(ctx context.Context) ([]Reservation, error) {
	r, err := fetch(ctx, s.c, request{op: opListReservations}, &reservationsBody{})
	if err != nil {
		return nil, err
	}
	return *r, nil
}
