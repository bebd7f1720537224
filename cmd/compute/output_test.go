package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// -o name and -o id print one value a line, for $(...) and while read loops.
func TestNameAndIDOutput(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkGroup(t, h.sdk())
	mkInstance(t, h.sdk())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"instance", "list", "-o", "id"}, "ins-000001\n"},
		{[]string{"instance", "list", "-o", "name"}, "web-1\n"},
		{[]string{"security-group", "get", "sg-000001", "-o", "name"}, "ssh\n"},
		{[]string{"ssh-key", "list", "-o", "name"}, "laptop\nci\n"},
		{[]string{"quota", "list", "-o", "id"}, "instances\nfloating_ips\nvolumes\nfilesystems\nssh_keys\nsnapshots\n"},
		{[]string{"reservation", "list", "-o", "name"}, "res-krs-small\n"},
		{[]string{"availability", "get", compute.RegionEUCDEMUC1, "-o", "name"},
			"vcpu-2_memory-4g\nvcpu-4_memory-8g\nvcpu-8_memory-32g\nvcpu-16_memory-128g_nvidia-h100-1\n"},
		{[]string{"instance", "actions", "ins-000001", "-o", "name"}, "stop\nreset\n"},
		{[]string{"instance", "user-metadata", "ins-000001", "-o", "name"}, "startup_script\n"},
		{[]string{"volume", "list", "-o", "id"}, "vol-data-1\nvol-data-2\nvol-data-3\nvol-backup\nvol-locked\n"},
		{[]string{"filesystem", "list", "-o", "id"}, ""},
	} {
		r := h.run(tc.args...)
		require.Equal(t, exitOK, r.code, "%v: %s", tc.args, r.stderr)
		assert.Equal(t, tc.want, r.stdout, "%v", tc.args)
	}
}

// An empty list is [] in JSON, never null, so that a program can always iterate over it.
func TestEmptyListIsAJSONArray(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	for _, kind := range []string{"instance", "security-group", "floating-ip", "filesystem", "snapshot"} {
		r := h.run(kind, "list", "-o", "json")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "[]\n", r.stdout, kind)
	}
}

// -o yaml holds the same data as -o json, and strings that look like other types (a name "true")
// stay strings; the golden file pins the order of the keys, the JSON one.
func TestYAMLMatchesJSON(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkInstance(t, h.sdk())
	_, err := h.sdk().Instances.Update(t.Context(), "ins-000001", &compute.InstanceUpdateRequest{Name: compute.Ptr("true")})
	require.NoError(t, err)
	for _, args := range [][]string{
		{"instance", "list"},
		{"instance", "get", "ins-000001"},
		{"image", "list"},
		{"reservation", "list"},
	} {
		js := h.run(append(args, "-o", "json")...)
		ym := h.run(append(args, "-o", "yaml")...)
		require.Equal(t, exitOK, js.code, js.stderr)
		require.Equal(t, exitOK, ym.code, ym.stderr)
		var fromJSON, fromYAML any
		require.NoError(t, json.Unmarshal([]byte(js.stdout), &fromJSON))
		require.NoError(t, yaml.Unmarshal([]byte(ym.stdout), &fromYAML))
		assert.Equal(t, normalize(t, fromJSON), normalize(t, fromYAML), "%v", args)
	}
	r := h.run("instance", "get", "ins-000001", "-o", "yaml")
	golden(t, "instance_get.yaml", r.stdout)
}

// normalize makes JSON and YAML decodings comparable: YAML decodes integers as int, JSON as float64.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// list reads every page: 106 volumes take two pages of 100.
func TestListReadsEveryPage(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	for i := range 101 {
		_, err := h.sdk().Volumes.Create(t.Context(), &compute.VolumeCreateRequest{Name: fmt.Sprintf("v%03d", i), Region: region, Size: 1})
		require.NoError(t, err)
	}
	h.srv.ResetRequests()
	r := h.run("volume", "list", "-o", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var vols []compute.Volume
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &vols))
	assert.Len(t, vols, 106)
	assert.Equal(t, "v100", vols[105].Name)
	assert.Equal(t, []string{"GET /compute/v1/volumes?page=1&per_page=100", "GET /compute/v1/volumes?page=2&per_page=100"}, h.requests())
}

// A list that fails halfway prints nothing: no half JSON array on stdout.
func TestListFailingHalfwayPrintsNothing(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	for i := range 101 {
		_, err := h.sdk().Volumes.Create(t.Context(), &compute.VolumeCreateRequest{Name: fmt.Sprintf("v%03d", i), Region: region, Size: 1})
		require.NoError(t, err)
	}
	h.transport = func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Query().Get("page") != "2" {
				return next.RoundTrip(r)
			}
			return &http.Response{StatusCode: http.StatusForbidden, Request: r,
				Header: http.Header{"Content-Type": {"application/json"}},
				Body:   io.NopCloser(strings.NewReader(`{"code":"02043","message":"permission denied"}`))}, nil
		})
	}
	r := h.run("volume", "list", "-o", "json")
	assert.Equal(t, exitOther, r.code)
	assert.Contains(t, r.stderr, "02043")
	assert.Empty(t, r.stdout)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
