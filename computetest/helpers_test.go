package computetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/require"
)

// Helpers shared by the fake's own tests.

// newInstanceRequest is a create request that the default catalogue accepts: vcpu-2_memory-4g in NORD-NO-KRS-1
// running Ubuntu 24.04 with one SSH key. mutate, if given, changes it first.
func newInstanceRequest(mutate ...func(*compute.InstanceCreateRequest)) *compute.InstanceCreateRequest {
	req := &compute.InstanceCreateRequest{
		Name: "web-1", Hostname: "web-1", Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1",
		Image: "img-ubuntu-2404", SSHKeys: []string{"key-laptop"},
	}
	for _, m := range mutate {
		m(req)
	}
	return req
}

// createInstance creates an instance through the SDK and fails the test if it cannot.
func createInstance(t *testing.T, c *compute.Client, mutate ...func(*compute.InstanceCreateRequest)) *compute.Instance {
	t.Helper()
	in, err := c.Instances.Create(context.Background(), newInstanceRequest(mutate...))
	require.NoError(t, err)
	return in
}

// activeInstance creates an instance on a server with instant transitions and checks that it is
// active on the next read.
func activeInstance(t *testing.T, c *compute.Client, mutate ...func(*compute.InstanceCreateRequest)) *compute.Instance {
	t.Helper()
	in := createInstance(t, c, mutate...)
	got, err := c.Instances.Get(context.Background(), in.ID)
	require.NoError(t, err)
	require.Equal(t, compute.InstanceStatusActive, got.Status)
	return got
}

// requireStatus reads an instance and checks its status.
func requireStatus(t *testing.T, c *compute.Client, id string, want compute.InstanceStatus) {
	t.Helper()
	got, err := c.Instances.Get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, want, got.Status)
}

// requireAPIError checks that err is an *APIError with this HTTP status and error code.
func requireAPIError(t *testing.T, err error, status int, code compute.ErrorCode) *compute.APIError {
	t.Helper()
	require.Error(t, err)
	var apiErr *compute.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, code, apiErr.Code, "code of %v", err)
	require.Equal(t, status, apiErr.StatusCode, "status of %v", err)
	return apiErr
}

// rawResponse is the response to a request sent without the SDK.
type rawResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// errorCode is the code of an error body ("" when there is none).
func (a rawResponse) errorCode(t *testing.T) compute.ErrorCode {
	t.Helper()
	var e struct {
		Code    compute.ErrorCode `json:"code"`
		Message string            `json:"message"`
	}
	require.NoError(t, json.Unmarshal(a.Body, &e), "error body %s", a.Body)
	require.NotEmpty(t, e.Message, "error body %s", a.Body)
	return e.Code
}

// object decodes a JSON object body.
func (a rawResponse) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.Body, &m), "body %s", a.Body)
	return m
}

// requireError checks a raw response's status and error code.
func (a rawResponse) requireError(t *testing.T, status int, code compute.ErrorCode) {
	t.Helper()
	require.Equal(t, status, a.Status, "body %s", a.Body)
	require.Equal(t, code, a.errorCode(t))
}

// authBearer is the header set of a request authenticated with the server's token.
func authBearer(srv *computetest.Server) http.Header {
	return http.Header{"Authorization": {"Bearer " + srv.Token}}
}

// raw sends one request to the server with srv.HTTPClient, bypassing the SDK (and so its
// client-side validation). path is appended to srv.URL as is; body, when not nil, is JSON-encoded
// (a []byte or string is sent verbatim).
func raw(t *testing.T, srv *computetest.Server, method, path string, header http.Header, body any) rawResponse {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		enc, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, srv.URL+path, rd)
	require.NoError(t, err)
	for k, vs := range header {
		req.Header[k] = vs
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return rawResponse{Status: resp.StatusCode, Header: resp.Header, Body: out}
}

// rawAuthed is raw with the server's token as a Bearer credential.
func rawAuthed(t *testing.T, srv *computetest.Server, method, path string, body any) rawResponse {
	t.Helper()
	return raw(t, srv, method, path, authBearer(srv), body)
}

// newFake starts a fake with default options, closed when the test ends, and an SDK client for it.
func newFake(t *testing.T) (*computetest.Server, *compute.Client) {
	t.Helper()
	srv := computetest.NewServer()
	t.Cleanup(srv.Close)
	return srv, srv.Client()
}
