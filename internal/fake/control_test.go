package fake

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestControlForcesAResourcesStatus(t *testing.T) {
	e := newEngine(Config{Durations: UniformDurations(time.Hour)})
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/instances", instanceBodyJSON)
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`)
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/volumes", `{"name":"v","region":"NORD-NO-KRS-1","size":1}`)

	// An instance forced active gets what an active instance has: addresses, and its actions.
	ok(t, e, http.StatusNoContent, "PUT", "/_fake/instances/ins-000001/status", `{"status":"active"}`)
	in := ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/ins-000001", "")["instance"].(map[string]any)
	assert.Equal(t, "active", in["status"])
	assert.NotNil(t, in["private_ip"])
	e.Advance(time.Hour)
	assert.Equal(t, "active", ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/ins-000001", "")["instance"].(map[string]any)["status"],
		"the create's transition was cancelled")
	ok(t, e, http.StatusNoContent, "PUT", "/_fake/instances/ins-000001/status", `{"status":"error"}`)
	assert.Equal(t, []any{"stop"}, ok(t, e, http.StatusOK, "GET", "/compute/v1/instances/ins-000001/actions", "")["actions"])

	ok(t, e, http.StatusNoContent, "PUT", "/_fake/floating-ips/fip-000001/status", `{"status":"error"}`)
	assert.Equal(t, "error", ok(t, e, http.StatusOK, "GET", "/compute/v1/floating-ips/fip-000001", "")["floating_ip"].(map[string]any)["status"])
	ok(t, e, http.StatusNoContent, "PUT", "/_fake/volumes/vol-000001/status", `{"status":"pending_delete"}`)
	assert.Equal(t, "pending_delete", ok(t, e, http.StatusOK, "GET", "/compute/v1/volumes/vol-000001", "")["volume"].(map[string]any)["status"])

	msg := refused(t, e, http.StatusBadRequest, codeBadRequest, "PUT", "/_fake/instances/ins-000001/status", `{"status":"shutoff"}`)
	assert.Contains(t, msg, "pending_payment", "the message names the statuses there are")
	refused(t, e, http.StatusBadRequest, codeMissingParameters, "PUT", "/_fake/instances/ins-000001/status", `{}`)
	refused(t, e, http.StatusNotFound, codeInstanceNotFound, "PUT", "/_fake/instances/ins-999999/status", `{"status":"active"}`)
	refused(t, e, http.StatusNotFound, codeInvalidRoute, "PUT", "/_fake/gpus/gpu-1/status", `{"status":"active"}`)
	refused(t, e, http.StatusBadRequest, codeBadRequest, "PUT", "/_fake/ssh-keys/key-ci/status", `{"status":"active"}`)
}

func TestControlSetsAndReadsQuotas(t *testing.T) {
	e := newEngine(Config{Limits: Limits{MaxVolumes: 9}})
	assert.Equal(t, map[string]any{"instances": 0.0, "floating_ips": 0.0, "volumes": 9.0, "filesystems": 0.0, "ssh_keys": 0.0,
		"snapshots": 0.0, "snapshots_per_instance": 0.0}, ok(t, e, http.StatusOK, "GET", "/_fake/quotas", ""))

	set := ok(t, e, http.StatusOK, "PUT", "/_fake/quotas", `{"floating_ips":1,"snapshots_per_instance":2}`)
	assert.Equal(t, 1.0, set["floating_ips"])
	assert.Equal(t, 0.0, set["volumes"], "a quota left out has none")
	assert.Equal(t, set, ok(t, e, http.StatusOK, "GET", "/_fake/quotas", ""))
	fip := `{"name":"ip","region":"NORD-NO-KRS-1"}`
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", fip)
	refused(t, e, http.StatusBadRequest, codeStaticPublicIPQuotaReached, "POST", "/compute/v1/floating-ips", fip)
	quotas := ok(t, e, http.StatusOK, "GET", "/compute/v1/quotas", "")["quotas"].([]any)
	assert.Contains(t, quotas, map[string]any{"key": "floating_ips", "capacity": 1.0, "used": 1.0, "flavors": []any{}})

	refused(t, e, http.StatusBadRequest, codeMalformedRequest, "PUT", "/_fake/quotas", `{"floating_ip":1}`)
	refused(t, e, http.StatusBadRequest, codeBadRequest, "PUT", "/_fake/quotas", `{"instances":-1}`)
	refused(t, e, http.StatusBadRequest, codeBadRequest, "PUT", "/_fake/quotas", `{"instances":1.5}`)
	refused(t, e, http.StatusBadRequest, codeMalformedRequest, "PUT", "/_fake/quotas", `[1]`)

	ok(t, e, http.StatusNoContent, "POST", "/_fake/reset", "")
	assert.Equal(t, 9.0, ok(t, e, http.StatusOK, "GET", "/_fake/quotas", "")["volumes"], "a reset restores the configured quotas")
	assert.Equal(t, 0.0, ok(t, e, http.StatusOK, "GET", "/_fake/quotas", "")["floating_ips"])
}

func TestControlListsAndRemovesFaultRules(t *testing.T) {
	e := newEngine(Config{})
	assert.Equal(t, map[string]any{"faults": []any{}}, ok(t, e, http.StatusOK, "GET", "/_fake/faults", ""))
	added := ok(t, e, http.StatusCreated, "POST", "/_fake/faults",
		`{"match":{"method":"GET","path":"/compute/v1/images"},"times":2,"fault":{"status":503,"code":"02036"}}`)
	assert.Equal(t, "rule-1", added["id"])
	ok(t, e, http.StatusCreated, "POST", "/_fake/faults", `{"match":{"path":"/compute/v1/instances/*"},"fault":{"latency":"1h"}}`)
	e.FailNext(1, Match{Method: "DELETE"}, Fault{Drop: true})

	refused(t, e, http.StatusServiceUnavailable, "02036", "GET", "/compute/v1/images", "")
	faults := ok(t, e, http.StatusOK, "GET", "/_fake/faults", "")["faults"].([]any)
	require.Len(t, faults, 3)
	assert.Equal(t, map[string]any{"id": "rule-1", "match": map[string]any{"method": "GET", "path": "/compute/v1/images"},
		"times": 1.0, "fault": map[string]any{"status": 503.0, "code": "02036"}}, faults[0], "times is what it has left")
	assert.Equal(t, map[string]any{"id": "rule-2", "match": map[string]any{"path": "/compute/v1/instances/*"},
		"fault": map[string]any{"latency": "1h0m0s"}}, faults[1])
	assert.Equal(t, "rule-3", faults[2].(map[string]any)["id"], "rules added in Go are listed too")

	ok(t, e, http.StatusNoContent, "DELETE", "/_fake/faults/rule-1", "")
	ok(t, e, http.StatusOK, "GET", "/compute/v1/images", "")
	refused(t, e, http.StatusNotFound, codeBadRequest, "DELETE", "/_fake/faults/rule-1", "")
	assert.Len(t, ok(t, e, http.StatusOK, "GET", "/_fake/faults", "")["faults"], 2)
	ok(t, e, http.StatusNoContent, "DELETE", "/_fake/faults", "")
	assert.Empty(t, ok(t, e, http.StatusOK, "GET", "/_fake/faults", "")["faults"])
}

// A rule that could never hit a request is refused, and the message names the problem.
func TestControlRefusesARuleThatCannotMatch(t *testing.T) {
	e := newEngine(Config{})
	for body, problem := range map[string]string{
		`{"match":{"method":"get"},"fault":{"status":500}}`:                                   `match.method`,
		`{"match":{"method":"FETCH"},"fault":{"status":500}}`:                                 `match.method`,
		`{"match":{"path":"http://127.0.0.1:8080/compute/v1/images"},"fault":{"status":500}}`: `not a URL`,
		`{"match":{"path":"compute/v1/images"},"fault":{"status":500}}`:                       `relative path`,
		`{"match":{"path":"/compute/v1/instances/[a-"},"fault":{"status":500}}`:               `not a valid path.Match pattern`,
		`{"match":{"path":"/compute/v1/images?type=snapshot"},"fault":{"status":500}}`:        `without the query`,
		`{"match":{"path":"/_fake/requests"},"fault":{"status":500}}`:                         `never faulted`,
		`{"match":{"method":"GET"},"fault":{}}`:                                               `fault needs`,
		`{"match":{"method":"GET"},"fault":{"status":200}}`:                                   `fault.status`,
		`{"match":{"method":"GET"},"fault":{"latency":"soon"}}`:                               `fault.latency`,
		`{"match":{"method":"GET"},"times":-1,"fault":{"status":500}}`:                        `times`,
		`{"id":"mine","fault":{"status":500}}`:                                                `id`,
		`{"match":{"path":"/%5Ffake/*"},"fault":{"status":500}}`:                              `never faulted`,
		`{"match":{"path":"/compute/v1/instances#x"},"fault":{"status":500}}`:                 `fragment`,
		`{"fault":{"status":429,"retry_after":"1\r\nX-Evil: 1"}}`:                             `control characters`,
		`{"fault":{"status":500,"content_type":"text/html\u0000"}}`:                           `control characters`,
	} {
		status, raw := send(t, e, "POST", "/_fake/faults", body)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", body, raw)
		assert.Contains(t, raw, problem, body)
	}
	refused(t, e, http.StatusBadRequest, codeMalformedRequest, "POST", "/_fake/faults", `{"match":{"Method":"GET"},"fault":{"drop":true}}`)
	assert.Empty(t, ok(t, e, http.StatusOK, "GET", "/_fake/faults", "")["faults"], "nothing refused was added")
	for _, body := range []string{
		`{"match":{"method":"PATCH","path":"/compute/v1/instances/*"},"fault":{"drop":true}}`,
		`{"match":{"path":"/compute/v1/instances/ins-00000[1-9]"},"probability":0.5,"fault":{"drop_after_processing":true}}`,
		`{"fault":{"status":429,"retry_after":"1"}}`,
	} {
		ok(t, e, http.StatusCreated, "POST", "/_fake/faults", body)
	}
}

func TestControlIsOffWithoutItsTokenAndDescribesItself(t *testing.T) {
	off := New(Config{})
	refused(t, off, http.StatusNotFound, codeInvalidRoute, "GET", "/_fake/quotas", "")
	e := newEngine(Config{})
	r := httptest.NewRequest("GET", "/_fake/quotas", nil)
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	status, doc := send(t, e, "GET", "/_fake/openapi.yaml", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, string(controlDocument), doc)
	for _, rt := range controlRoutes {
		assert.True(t, strings.Contains(doc, fmt.Sprintf("\n  /%s:", strings.ReplaceAll(strings.ReplaceAll(rt.path,
			"{}/{}", "{collection}/{id}"), "{}", "{id}"))), rt.path)
	}
}

// The clock moves forward only: an advance past what it can hold is refused over HTTP and stops at
// that bound in Go, so that times never run backwards.
func TestControlAdvanceNeverWrapsTheClock(t *testing.T) {
	e := newEngine(Config{Clock: newClock().Now})
	ok(t, e, http.StatusNoContent, "POST", "/_fake/advance", `{"duration":"2562047h"}`)
	refused(t, e, http.StatusBadRequest, codeBadRequest, "POST", "/_fake/advance", `{"duration":"2562047h"}`)
	before := e.now()
	e.Advance(time.Duration(math.MaxInt64))
	require.False(t, e.now().Before(before), "the clock went back from %v to %v", before, e.now())
}

// Only the control token opens the control endpoint, and only in its own header: the API's tokens
// (the default one is public) are refused in every header, and so is the control token sent as an
// API credential. A refused request changes nothing.
func TestControlOpensOnlyWithItsOwnToken(t *testing.T) {
	const readOnly = "viewer-token"
	e := newEngine(Config{ReadOnly: []string{readOnly}})
	ok(t, e, http.StatusCreated, "POST", "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`)
	for _, token := range []string{DefaultToken, readOnly, testControlToken} {
		for _, h := range []http.Header{
			{controlHeader: {token}},
			{"Authorization": {"Bearer " + token}},
			{"X-Auth-Token": {token}},
			{controlHeader: {"Bearer " + testControlToken}, "Authorization": {"Bearer " + token}},
		} {
			if h.Get(controlHeader) == testControlToken {
				continue // the one way in
			}
			for _, path := range []string{"/_fake/reset", "/_fake/faults"} {
				r := httptest.NewRequest("POST", path, strings.NewReader(`{"fault":{"status":500}}`))
				for k, v := range h {
					r.Header[k] = v
				}
				w := httptest.NewRecorder()
				e.ServeHTTP(w, r)
				assert.Equal(t, http.StatusUnauthorized, w.Code, "%s with %v", path, h)
				assert.NotContains(t, w.Body.String(), token)
			}
		}
	}
	ok(t, e, http.StatusOK, "GET", "/compute/v1/floating-ips/fip-000001", "") // not reset, no fault
	assert.Empty(t, ok(t, e, http.StatusOK, "GET", "/_fake/faults", "")["faults"])
}
