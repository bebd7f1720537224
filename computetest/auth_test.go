package computetest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAuthBearerAccepted(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()
	require.Equal(t, computetest.DefaultToken, srv.Token)

	_, err := srv.Client().Instances.List(context.Background(), nil)
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "bearer", reqs[0].Auth)
	assert.Equal(t, http.StatusOK, reqs[0].Status)
	assert.True(t, reqs[0].Processed)

	// The scheme is case-insensitive.
	a := raw(t, srv, http.MethodGet, "/compute/v1/instances", http.Header{"Authorization": {"bearer " + srv.Token}}, nil)
	assert.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
}

func TestAuthLegacyXAuthTokenAccepted(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithToken("legacy-token-123"))
	defer srv.Close()
	c := srv.Client(compute.WithLegacyAuthHeader())

	fip, err := c.FloatingIPs.Create(context.Background(), &compute.FloatingIPCreateRequest{Name: "ip", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	assert.NotEmpty(t, fip.ID)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "x-auth-token", reqs[0].Auth)
	assert.Equal(t, http.StatusCreated, reqs[0].Status)

	a := raw(t, srv, http.MethodGet, "/compute/v1/floating-ips", http.Header{"X-Auth-Token": {"legacy-token-123"}}, nil)
	assert.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
}

func TestAuthMissingToken(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()

	for _, h := range []http.Header{
		nil,
		{"Authorization": {"Bearer "}},
		{"X-Auth-Token": {"  "}},
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			var body any
			if method == http.MethodPost {
				body = map[string]any{"name": "ip", "region": "NORD-NO-KRS-1"}
			}
			a := raw(t, srv, method, "/compute/v1/floating-ips", h, body)
			a.requireError(t, http.StatusUnauthorized, compute.CodeAuthTokenNotProvided)
		}
	}
	for _, r := range srv.Requests() {
		assert.False(t, r.Processed, "%s %s with no token", r.Method, r.Path)
		assert.Equal(t, http.StatusUnauthorized, r.Status)
	}
	// Nothing was created by the refused POSTs.
	page, err := srv.Client().FloatingIPs.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Zero(t, page.TotalCount)
}

func TestAuthWrongToken(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()

	c, err := compute.NewClient("not-the-token", compute.WithBaseURL(srv.URL), compute.WithHTTPClient(srv.HTTPClient()),
		compute.WithoutRateLimit())
	require.NoError(t, err)
	_, err = c.Instances.List(context.Background(), nil)
	apiErr := requireAPIError(t, err, http.StatusUnauthorized, compute.CodeAuthPermissionDenied)
	assert.Equal(t, 1, apiErr.Attempts, "a 401 is not retried")
	require.ErrorIs(t, err, compute.ErrUnauthorized)

	for _, h := range []http.Header{
		{"Authorization": {"Bearer " + srv.Token + "x"}},
		{"Authorization": {"Basic " + srv.Token}},
		{"X-Auth-Token": {"wrong"}},
	} {
		a := raw(t, srv, http.MethodGet, "/compute/v1/instances", h, nil)
		assert.Equal(t, http.StatusUnauthorized, a.Status, "%v: %s", h, a.Body)
	}
	for _, r := range srv.Requests() {
		assert.False(t, r.Processed)
	}
}

func TestAuthReadOnlyToken(t *testing.T) {
	t.Parallel()
	const ro = "read-only-token"
	srv := computetest.NewServer(computetest.WithReadOnlyToken(ro))
	defer srv.Close()
	ctx := context.Background()

	// Resources made with the full token, for the read-only token to read and fail to change.
	admin := srv.Client()
	in := activeInstance(t, admin)
	sg, err := admin.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "web", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	fip, err := admin.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)

	c, err := compute.NewClient(ro, compute.WithBaseURL(srv.URL), compute.WithHTTPClient(srv.HTTPClient()),
		compute.WithoutRateLimit())
	require.NoError(t, err)

	writes := []struct {
		method string
		call   func() error
	}{
		{http.MethodPost, func() error { _, err := c.Instances.Create(ctx, newInstanceRequest()); return err }},
		{http.MethodPost, func() error { return c.Instances.Stop(ctx, in.ID) }},
		{http.MethodPut, func() error {
			_, err := c.SecurityGroups.Update(ctx, sg.ID, &compute.SecurityGroupUpdateRequest{Name: "renamed"})
			return err
		}},
		{http.MethodPatch, func() error {
			_, err := c.FloatingIPs.Update(ctx, fip.ID, &compute.FloatingIPUpdateRequest{Name: compute.Ptr("renamed")})
			return err
		}},
		{http.MethodPatch, func() error {
			_, err := c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{Name: compute.Ptr("renamed")})
			return err
		}},
		{http.MethodDelete, func() error { return c.Instances.Delete(ctx, in.ID) }},
		{http.MethodDelete, func() error { return c.SecurityGroups.Delete(ctx, sg.ID) }},
	}
	for _, w := range writes {
		srv.ResetRequests()
		err := w.call()
		requireAPIError(t, err, http.StatusForbidden, compute.CodePermissionDenied)
		require.ErrorIs(t, err, compute.ErrForbidden)
		reqs := srv.Requests()
		require.Len(t, reqs, 1)
		assert.Equal(t, w.method, reqs[0].Method)
		assert.False(t, reqs[0].Processed)
	}

	// Reads work.
	got, err := c.Instances.Get(ctx, in.ID)
	require.NoError(t, err)
	assert.Equal(t, "web-1", got.Name, "the refused PATCH changed nothing")
	assert.Equal(t, compute.InstanceStatusActive, got.Status, "the refused stop changed nothing")
	_, err = c.Instances.Actions(ctx, in.ID)
	require.NoError(t, err)
	gotSG, err := c.SecurityGroups.Get(ctx, sg.ID)
	require.NoError(t, err)
	assert.Equal(t, "web", gotSG.Name)
	page, err := c.Instances.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, page.TotalCount)
	a := raw(t, srv, http.MethodGet, "/compute/v1/images", http.Header{"Authorization": {"Bearer " + ro}}, nil)
	assert.Equal(t, http.StatusOK, a.Status)
	a = raw(t, srv, http.MethodPost, "/compute/v1/floating-ips", http.Header{"X-Auth-Token": {ro}},
		map[string]any{"name": "x", "region": "NORD-NO-KRS-1"})
	a.requireError(t, http.StatusForbidden, compute.CodePermissionDenied)
}

func TestAuthTokenNeverRecorded(t *testing.T) {
	t.Parallel()
	const token, ro = "s3cret-full-token-7f1c", "s3cret-read-only-9a2b"
	srv := computetest.NewServer(computetest.WithToken(token), computetest.WithReadOnlyToken(ro))
	defer srv.Close()
	ctx := context.Background()

	c := srv.Client()
	in := activeInstance(t, c)
	_, err := c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{Name: compute.Ptr("renamed")})
	require.NoError(t, err)
	legacy := srv.Client(compute.WithLegacyAuthHeader())
	_, err = legacy.Images.List(ctx, &compute.ImageListOptions{Type: compute.ImageTypeBaseOS})
	require.NoError(t, err)
	roc, err := compute.NewClient(ro, compute.WithBaseURL(srv.URL), compute.WithHTTPClient(srv.HTTPClient()))
	require.NoError(t, err)
	_, err = roc.Instances.Create(ctx, newInstanceRequest())
	require.Error(t, err)
	raw(t, srv, http.MethodGet, "/compute/v1/instances", http.Header{"Authorization": {"Bearer " + token + "-wrong"}}, nil)
	raw(t, srv, http.MethodGet, "/compute/v1/instances", http.Header{"X-Auth-Token": {ro}}, nil)

	reqs := srv.Requests()
	require.Len(t, reqs, 7)
	for i, r := range reqs {
		assert.Empty(t, r.Header.Values("Authorization"), "request %d", i)
		assert.Empty(t, r.Header.Values("X-Auth-Token"), "request %d", i)
		dump := fmt.Sprintf("%#v %s %v", r, r.Body, r.Header)
		for _, secret := range []string{token, ro, "s3cret"} {
			assert.False(t, strings.Contains(dump, secret), "request %d records the token: %s", i, dump)
		}
	}
	assert.NotEmpty(t, reqs[0].Header.Get("User-Agent"), "other headers are recorded")
	assert.Equal(t, []string{"bearer", "bearer", "bearer", "x-auth-token", "bearer", "bearer", "x-auth-token"},
		func() []string {
			var out []string
			for _, r := range reqs {
				out = append(out, r.Auth)
			}
			return out
		}())
}

// encoding/json would match "SSH_KEYS" to ssh_keys; the fake refuses any spelling but the exact one,
// so a client with a misspelt field fails in tests.
func TestBodyKeysMustBeSpelledExactly(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	for _, body := range []string{
		`{"name":"a","hostname":"a","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1","image":"debian-12","SSH_KEYS":["key-ci"],"password":"0123456789abcdef"}`,
		`{"Name":"a","hostname":"a","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1","image":"debian-12","ssh_keys":["key-ci"]}`,
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/compute/v1/instances", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		resp, err := srv.HTTPClient().Do(req)
		require.NoError(t, err)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", raw)
		assert.Contains(t, string(raw), `"code":"02002"`)
	}
}
