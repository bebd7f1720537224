package compute

import (
	"context"
	"encoding/json"
)

// Reservation is capacity reserved for the account; give its ID as
// [InstanceCreateRequest.ReservationID] to create an instance under it.
type Reservation struct {
	ID         string `json:"id"`          // identifies the reservation
	FlavorName string `json:"flavor_name"` // the flavor it is for
	Region     string `json:"region"`      // the reservation's region
	// Metadata is an object the contract does not describe, each value as the service sent it.
	Metadata map[string]json.RawMessage `json:"metadata"`
	Quota    ReservationQuota           `json:"quota"` // how much it holds and how much is used
}

// ReservationQuota is the size of a [Reservation] and its use.
type ReservationQuota struct {
	Capacity int `json:"capacity"` // how much the reservation holds
	Used     int `json:"used"`     // how much of it is in use
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
