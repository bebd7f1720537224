package main

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadOnlyCommands(t *testing.T) {
	t.Parallel()
	runCases(t, readOnlyCases(t))
}

func readOnlyCases(t *testing.T) []cmdCase {
	return []cmdCase{
		{name: "image_list", args: []string{"image", "list"},
			reqs: []string{"GET /compute/v1/images?page=1&per_page=100"}, out: new([]compute.Image)},
		{name: "image_list_type", args: []string{"image", "list", "--type", "cloud-image"},
			reqs: []string{"GET /compute/v1/images?page=1&per_page=100&type=cloud-image"}, out: new([]compute.Image)},
		{name: "quota_list", setup: instanceActive, args: []string{"quota", "list"},
			reqs: []string{"GET /compute/v1/quotas"}, out: new([]compute.Quota)},
		{name: "reservation_list", args: []string{"reservation", "list"},
			reqs: []string{"GET /compute/v1/reservations"}, out: new([]compute.Reservation)},
		{name: "availability_get", args: []string{"availability", "get", compute.RegionEUCDEMUC1},
			reqs: []string{"GET /compute/v1/availability/EUC-DE-MUC-1/instances"}, out: new(compute.Availability)},
		{name: "availability_get_placement", args: []string{"availability", "get", region, "--placement", "SPREAD"},
			reqs: []string{"GET /compute/v1/availability/NORD-NO-KRS-1/instances?placement=SPREAD"}, out: new(compute.Availability)},
	}
}

// A quota without a limit (the service's 2^31-1) shows as unlimited in a table; JSON keeps the
// number the service sent.
func TestQuotaUnlimited(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run("quota", "list", "-o", "columns=key,capacity")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "instances      unlimited\n")
	assert.NotContains(t, r.stdout, "2147483647")
	r = h.run("quota", "list", "-o", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"capacity": 2147483647`)
}
