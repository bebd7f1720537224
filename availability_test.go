package compute

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAvailabilityGolden(t *testing.T) {
	t.Parallel()
	runGoldenCases(t, []goldenCase{
		{
			name: "availability", method: "GET", path: "/compute/v1/availability/NA-CA-PRG-1/instances", query: "placement=NONE",
			status: http.StatusOK, respFile: "availability_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Availability.Instances(ctx, RegionNACAPRG1, &AvailabilityOptions{Placement: "NONE"})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Availability]("availability", true)(t, result, respBody)
				a := result.(*Availability)
				require.Len(t, a.InstanceTypes, 3)
				assert.Equal(t, InstanceTypeAvailability{Type: "n3-RTX-A6000x1", Available: true, Count: Ptr(12.0)}, a.InstanceTypes[0])
				assert.Equal(t, Ptr(0.5), a.InstanceTypes[1].Count, "count is a JSON number, not an integer")
				assert.Nil(t, a.InstanceTypes[2].Count, "an absent count is nil")
			},
		},
		{
			name: "availability_no_placement", method: "GET", path: "/compute/v1/availability/NA-CA-PRG-1/instances",
			status: http.StatusOK, respFile: "availability_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Availability.Instances(ctx, RegionNACAPRG1, nil)
			},
		},
	})
}

// TestAvailabilityQuery: an empty placement is not sent, so a request without options has no query
// at all (not even a "?"), and a placement is sent as is.
func TestAvailabilityQuery(t *testing.T) {
	t.Parallel()
	var uris []string
	body := golden(t, "availability_response.json")
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		uris = append(uris, r.RequestURI)
		serveJSON(body)(w, r)
	})
	for _, opts := range []*AvailabilityOptions{nil, {}, {Placement: "NONE"}} {
		_, err := c.Availability.Instances(context.Background(), "NORD-NO-KRS-1", opts)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{
		"/compute/v1/availability/NORD-NO-KRS-1/instances",
		"/compute/v1/availability/NORD-NO-KRS-1/instances",
		"/compute/v1/availability/NORD-NO-KRS-1/instances?placement=NONE",
	}, uris)
}
