package compute

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVolumesGolden(t *testing.T) {
	t.Parallel()
	const id = "5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d0e"
	runGoldenCases(t, []goldenCase{
		{
			name: "volume_list", method: "GET", path: "/compute/v1/volumes", query: "page=1&per_page=20",
			status: http.StatusOK, respFile: "volume_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.List(ctx, &ListOptions{Page: 1, PerPage: 20})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkPage[Volume]("volumes", 2, 1, 20)(t, result, respBody)
				p := result.(*Page[Volume])
				assert.Equal(t, requireFullyMapped[Volume](t, envelopeItem(t, respBody, "volumes")), p.Items[0])
				assert.Equal(t, VolumeStatusPendingDelete, p.Items[1].Status)
				assert.Equal(t, VolumeTypeHDD, p.Items[1].Type)
			},
		},
		{
			name: "volume_create", method: "POST", path: "/compute/v1/volumes",
			reqFile: "volume_create_request.json", status: http.StatusCreated, respFile: "volume_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.Create(ctx, &VolumeCreateRequest{
					Name: "data-1", Description: "Postgres data", Region: RegionNORDNOKRS1, Size: 200, Type: VolumeTypeSSD,
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Volume]("volume", true)(t, result, respBody)
				v := result.(*Volume)
				assert.Equal(t, VolumeStatusCreating, v.Status)
				assert.Equal(t, []Ref{}, v.Instances)
				assert.False(t, v.Available(), "a creating volume is not attachable yet")
			},
		},
		{
			// Optional fields left out are not sent.
			name: "volume_create_minimal", method: "POST", path: "/compute/v1/volumes",
			reqFile: "volume_create_minimal_request.json", status: http.StatusCreated, respFile: "volume_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.Create(ctx, &VolumeCreateRequest{Name: "scratch", Region: RegionNORDNOKRS1, Size: 1})
			},
		},
		{
			name: "volume_get", method: "GET", path: "/compute/v1/volumes/" + id,
			status: http.StatusOK, respFile: "volume_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Volumes.Get(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Volume]("volume", true)(t, result, respBody)
				v := result.(*Volume)
				assert.Equal(t, []Ref{{ID: "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", Name: "db-1"}}, v.Instances)
				assert.False(t, v.Available(), "an attached volume is not available")
			},
		},
		{
			// Description: Ptr("") is sent, to clear it.
			name: "volume_update", method: "PATCH", path: "/compute/v1/volumes/" + id,
			reqFile: "volume_update_request.json", status: http.StatusOK, respFile: "volume_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Volumes.Update(ctx, id, &VolumeUpdateRequest{Name: Ptr("data-1-big"), Description: Ptr(""), Size: Ptr(500)})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Volume]("volume", true)(t, result, respBody)
				assert.True(t, result.(*Volume).Available(), "created and unattached is the contract's available")
			},
		},
		{
			name: "volume_delete", method: "DELETE", path: "/compute/v1/volumes/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Volumes.Delete(ctx, id) },
		},
	})
}

// Validation names the JSON field.
func TestVolumeValidation(t *testing.T) {
	t.Parallel()
	requireValidationFields(t, map[string]validationCase{
		"volume bad type":       {&VolumeCreateRequest{Name: "v", Region: "r", Size: 1, Type: "nvme"}, "type"},
		"volume no region":      {&VolumeCreateRequest{Name: "v", Size: 1}, "region"},
		"volume shrink to zero": {&VolumeUpdateRequest{Size: Ptr(0)}, "size"},
		"volume empty update":   {&VolumeUpdateRequest{}, "request"},
	})
}

// Values the SDK has no constant for decode unchanged.
func TestVolumeUnknownValuesRoundTrip(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, serveJSON([]byte(`{"volume": {"id": "v-1", "status": "migrating", "type": "nvme"}}`)))
	v, err := c.Volumes.Get(context.Background(), "v-1")
	require.NoError(t, err)
	assert.Equal(t, VolumeStatus("migrating"), v.Status)
	assert.Equal(t, VolumeType("nvme"), v.Type)
}
