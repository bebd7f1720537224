package fake

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The availability report says a type is not available once the instance quota is full, and
// available again when there is room.
func TestAvailabilityFollowsTheInstanceQuota(t *testing.T) {
	e := newEngine(Config{Limits: Limits{MaxInstances: 1}})
	available := func() map[string]any {
		out := map[string]any{}
		a := ok(t, e, http.StatusOK, "GET", "/compute/v1/availability/NORD-NO-KRS-1/instances", "")["availability"].(map[string]any)
		for _, it := range a["instance_types"].([]any) {
			it := it.(map[string]any)
			out[it["type"].(string)] = []any{it["available"], it["count"]}
		}
		return out
	}
	assert.Equal(t, []any{true, 1.0}, available()["vcpu-2_memory-4g"])
	assert.Equal(t, []any{false, nil}, available()["vcpu-16_memory-128g_nvidia-h100-1"], "not offered in the region")

	ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)
	assert.Equal(t, []any{false, 0.0}, available()["vcpu-2_memory-4g"], "the quota is full")
	assert.Equal(t, []any{false, 0.0}, available()["vcpu-8_memory-32g"])

	ok(t, e, http.StatusNoContent, "DELETE", "/compute/v1/instances/ins-000001", "")
	assert.Equal(t, []any{true, 1.0}, available()["vcpu-2_memory-4g"], "room again once the instance is gone")
}
