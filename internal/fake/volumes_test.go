package fake

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A volume still creating is not available: attaching it is refused with 02032, on a create and on
// an update in either form, until it is created.
func TestAttachRefusesAVolumeStillCreating(t *testing.T) {
	e := newEngine(Config{Durations: Durations{VolumeCreate: time.Hour}})
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/volumes", `{"name":"v","region":"NORD-NO-KRS-1","size":1}`)
	withVolume := strings.Replace(instanceBodyJSON, `}`, `,"volumes":["vol-000001"]}`, 1)
	msg := refused(t, e, http.StatusBadRequest, codeVolumeAttachFailed, "POST", "/compute/v1/instances", withVolume)
	assert.Contains(t, msg, "creating")
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)
	refused(t, e, http.StatusBadRequest, codeVolumeAttachFailed, "PATCH", "/compute/v1/instances/ins-000001", `{"volumes":["vol-000001"]}`)
	refused(t, e, http.StatusBadRequest, codeVolumeAttachFailed, "PATCH", "/compute/v1/instances/ins-000001", `{"volumes":{"attach":"vol-000001"}}`)

	e.Advance(time.Hour)
	in := ok(t, e, http.StatusOK, "PATCH", "/compute/v1/instances/ins-000001", `{"volumes":{"attach":"vol-000001"}}`)["instance"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"id": "vol-000001", "name": "v"}}, in["volumes"])
}
