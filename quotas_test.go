package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuotasGolden(t *testing.T) {
	t.Parallel()
	runGoldenCases(t, []goldenCase{
		{
			name: "quota_list", method: "GET", path: "/compute/v1/quotas",
			status: http.StatusOK, respFile: "quota_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Quotas.List(ctx) },
			check: func(t *testing.T, result any, respBody []byte) {
				q, ok := result.([]Quota)
				require.True(t, ok, "result is %T", result)
				var env map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(respBody, &env))
				require.Equal(t, strictDecode[[]Quota](t, env["quotas"]), q)
				require.Equal(t, requireFullyMapped[Quota](t, envelopeItem(t, respBody, "quotas")), q[0])
				assert.Equal(t, QuotaFlavor{FlavorName: "n3-A100x8", ProductName: "GPU instance", Unit: "instance", Used: 1}, q[0].Flavors[1])
				assert.Equal(t, "volume_storage", q[1].Key)
			},
		},
	})
}
