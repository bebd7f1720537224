package compute

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReservationsGolden(t *testing.T) {
	t.Parallel()
	runGoldenCases(t, []goldenCase{
		{
			name: "reservation_list", method: "GET", path: "/compute/v1/reservations",
			status: http.StatusOK, respFile: "reservation_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Reservations.List(ctx) },
			check: func(t *testing.T, result any, respBody []byte) {
				r, ok := result.([]Reservation)
				require.True(t, ok, "result is %T", result)
				require.Len(t, r, 1)
				assert.Equal(t, requireFullyMapped[Reservation](t, envelopeItem(t, respBody, "reservations")), r[0])
				assert.Equal(t, ReservationQuota{Capacity: 4, Used: 1}, r[0].Quota)
				assert.JSONEq(t, `["training", "q3"]`, string(r[0].Metadata["tags"]))
			},
		},
	})
}
