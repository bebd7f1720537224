package computetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const controlToken = "control-secret"

// controlCall sends a request with plain net/http: to the control endpoint with the control token
// (header X-Fake-Control-Token) when control is true, else to the API with the API token.
func controlCall(t *testing.T, srv *computetest.Server, method, path, body string, control bool) (int, http.Header, []byte) {
	t.Helper()
	return controlCallCtx(context.Background(), t, srv, method, path, body, control)
}

func controlCallCtx(ctx context.Context, t *testing.T, srv *computetest.Server, method, path, body string, control bool) (int, http.Header, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if control {
		req.Header.Set("X-Fake-Control-Token", controlToken)
	} else {
		req.Header.Set("Authorization", "Bearer "+srv.Token)
	}
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, b
}

func errorCode(t *testing.T, b []byte) string {
	t.Helper()
	var e struct{ Code, Message string }
	require.NoError(t, json.Unmarshal(b, &e), "%s", b)
	require.NotEmpty(t, e.Message)
	return e.Code
}

func TestControlIsOffByDefault(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()
	status, _, body := controlCall(t, srv, http.MethodPost, "/_fake/reset", "", true)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "02001", errorCode(t, body), "like any unknown route")
}

func TestControlIsGuardedByItsOwnToken(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithControl(controlToken))
	defer srv.Close()

	// The API token does not open the control endpoint.
	status, _, body := controlCall(t, srv, http.MethodGet, "/_fake/requests", "", false)
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, "02014", errorCode(t, body))
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/_fake/requests", nil)
	require.NoError(t, err)
	req.Header.Set("X-Fake-Control-Token", "wrong")
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.NotContains(t, string(b), controlToken)

	// The control token does not open the API.
	req, err = http.NewRequest(http.MethodGet, srv.URL+"/compute/v1/images", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+controlToken)
	resp, err = srv.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	status, _, _ = controlCall(t, srv, http.MethodGet, "/_fake/nothing", "", true)
	assert.Equal(t, http.StatusNotFound, status)

	assert.Panics(t, func() { computetest.NewServer(computetest.WithControl(computetest.DefaultToken)) },
		"a control token equal to the API token is a mistake")
}

func TestControlInjectsFaults(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithControl(controlToken))
	defer srv.Close()

	// A 5xx on the next create.
	status, _, body := controlCall(t, srv, http.MethodPost, "/_fake/faults",
		`{"match":{"method":"POST","path":"/compute/v1/floating-ips"},"times":1,"fault":{"status":503,"code":"02036","message":"busy"}}`, true)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	create := `{"name":"ip","region":"NORD-NO-KRS-1"}`
	status, _, body = controlCall(t, srv, http.MethodPost, "/compute/v1/floating-ips", create, false)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "02036", errorCode(t, body))

	// A response dropped after processing: the create takes effect, no response arrives.
	controlCall(t, srv, http.MethodPost, "/_fake/faults",
		`{"match":{"method":"POST"},"times":1,"fault":{"drop_after_processing":true}}`, true)
	status, _, _ = controlCall(t, srv, http.MethodPost, "/compute/v1/floating-ips", create, false)
	assert.Equal(t, 0, status, "no response")
	status, _, body = controlCall(t, srv, http.MethodGet, "/compute/v1/floating-ips/fip-000001", "", false)
	assert.Equal(t, http.StatusOK, status, "the dropped create took effect: %s", body)

	// A 429 storm: the next three requests, with the contract's error body and Retry-After.
	controlCall(t, srv, http.MethodPost, "/_fake/faults", `{"times":3,"fault":{"status":429,"retry_after":"2","message":"slow down"}}`, true)
	for range 3 {
		status, header, body := controlCall(t, srv, http.MethodGet, "/compute/v1/images", "", false)
		assert.Equal(t, http.StatusTooManyRequests, status)
		assert.Equal(t, "2", header.Get("Retry-After"))
		assert.Equal(t, "02009", errorCode(t, body))
	}
	status, _, _ = controlCall(t, srv, http.MethodGet, "/compute/v1/images", "", false)
	assert.Equal(t, http.StatusOK, status, "the storm is over")

	// A stall: the request waits until the client gives up.
	controlCall(t, srv, http.MethodPost, "/_fake/faults", `{"match":{"path":"/compute/v1/instances"},"fault":{"latency":"1h"}}`, true)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	status, _, body = controlCallCtx(ctx, t, srv, http.MethodGet, "/compute/v1/instances", "", false)
	assert.Equal(t, 0, status)
	assert.Contains(t, string(body), context.DeadlineExceeded.Error())
	assert.True(t, errors.Is(ctx.Err(), context.DeadlineExceeded))

	// Clearing the rules ends the stall.
	status, _, _ = controlCall(t, srv, http.MethodDelete, "/_fake/faults", "", true)
	assert.Equal(t, http.StatusNoContent, status)
	status, _, _ = controlCall(t, srv, http.MethodGet, "/compute/v1/instances", "", false)
	assert.Equal(t, http.StatusOK, status)

	// A rule that does nothing, or is not JSON, is refused.
	for _, bad := range []string{`{"fault":{}}`, `{"fault":{"status":200}}`, `{"fault":{"latency":"soon"}}`, `{"colour":"red"}`, `[]`} {
		status, _, body := controlCall(t, srv, http.MethodPost, "/_fake/faults", bad, true)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", bad, body)
	}
}

func TestControlRequestLogResetAndAdvance(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithControl(controlToken), computetest.WithDurations(computetest.UniformDurations(time.Minute)))
	defer srv.Close()

	status, _, body := controlCall(t, srv, http.MethodPost, "/compute/v1/floating-ips", `{"name":"ip","region":"NORD-NO-KRS-1"}`, false)
	require.Equal(t, http.StatusCreated, status, "%s", body)

	status, _, body = controlCall(t, srv, http.MethodGet, "/_fake/requests", "", true)
	require.Equal(t, http.StatusOK, status)
	var log struct {
		Requests []map[string]any `json:"requests"`
	}
	require.NoError(t, json.Unmarshal(body, &log))
	require.Len(t, log.Requests, 1, "control requests are not logged")
	r := log.Requests[0]
	assert.Equal(t, "POST", r["method"])
	assert.Equal(t, "/compute/v1/floating-ips", r["path"])
	assert.Equal(t, `{"name":"ip","region":"NORD-NO-KRS-1"}`, r["body"])
	assert.Equal(t, "bearer", r["auth"])
	assert.EqualValues(t, 201, r["status"])
	assert.Equal(t, true, r["processed"])
	assert.NotContains(t, string(body), srv.Token, "the token is never recorded")

	// Advance completes the transition.
	status, _, body = controlCall(t, srv, http.MethodPost, "/_fake/advance", `{"duration":"1m"}`, true)
	require.Equal(t, http.StatusNoContent, status, "%s", body)
	_, _, body = controlCall(t, srv, http.MethodGet, "/compute/v1/floating-ips/fip-000001", "", false)
	assert.Contains(t, string(body), `"status":"created"`)

	// Reset forgets everything: the floating IP, the log; IDs start again.
	status, _, _ = controlCall(t, srv, http.MethodPost, "/_fake/reset", "", true)
	require.Equal(t, http.StatusNoContent, status)
	status, _, _ = controlCall(t, srv, http.MethodGet, "/compute/v1/floating-ips/fip-000001", "", false)
	assert.Equal(t, http.StatusNotFound, status)
	_, _, body = controlCall(t, srv, http.MethodPost, "/compute/v1/floating-ips", `{"name":"again","region":"NORD-NO-KRS-1"}`, false)
	assert.Contains(t, string(body), `"id":"fip-000001"`)

	status, _, _ = controlCall(t, srv, http.MethodDelete, "/_fake/requests", "", true)
	require.Equal(t, http.StatusNoContent, status)
	_, _, body = controlCall(t, srv, http.MethodGet, "/_fake/requests", "", true)
	assert.JSONEq(t, `{"requests":[]}`, string(body))

	status, _, body = controlCall(t, srv, http.MethodGet, "/_fake/catalog", "", true)
	require.Equal(t, http.StatusOK, status)
	cat, err := computetest.ParseCatalog(body)
	require.NoError(t, err)
	assert.Equal(t, "EUC-DE-MUC-1", cat.Regions[0].ID)
}
