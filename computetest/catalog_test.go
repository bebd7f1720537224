package computetest_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogDefault(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()

	cat := srv.Catalog()
	require.Equal(t, computetest.DefaultCatalog(), cat)

	ids := func(n int, id func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	assert.Equal(t, []string{"EUC-DE-MUC-1", "EUW-GB-MNC-1", "EUW-NL-AMS-1", "NA-CA-FTS-1", "NA-CA-MNZ-1", "NA-CA-PRG-1", "NORD-NO-KRS-1"},
		ids(len(cat.Regions), func(i int) string { return cat.Regions[i].ID }))
	assert.Equal(t, []string{"vcpu-2_memory-4g", "vcpu-4_memory-8g", "vcpu-8_memory-32g", "vcpu-16_memory-128g_nvidia-h100-1"},
		ids(len(cat.InstanceTypes), func(i int) string { return cat.InstanceTypes[i].ID }))
	assert.Equal(t, []string{"key-laptop", "key-ci"}, ids(len(cat.SSHKeys), func(i int) string { return cat.SSHKeys[i].ID }))
	assert.Equal(t, []string{"AUTO", "SPREAD", "PACK"}, cat.PlacementOptions)
	assert.Len(t, cat.Volumes, 5)
	locked := 0
	for _, v := range cat.Volumes {
		if v.Status == computetest.VolumeLocked {
			locked++
			assert.Equal(t, "vol-locked", v.ID)
		} else {
			assert.Equal(t, computetest.VolumeAvailable, v.Status, v.ID)
		}
	}
	assert.Equal(t, 1, locked)
	gpu := cat.InstanceTypes[slices.IndexFunc(cat.InstanceTypes, func(it computetest.InstanceType) bool { return it.ID == "vcpu-16_memory-128g_nvidia-h100-1" })]
	assert.Equal(t, []string{"EUC-DE-MUC-1"}, gpu.Regions)

	// Every catalogue image is listed by the API, with the same fields.
	page, err := srv.Client().Images.List(context.Background(), nil)
	require.NoError(t, err)
	require.Equal(t, len(cat.Images), page.TotalCount)
	for i, im := range page.Items {
		want := cat.Images[i]
		assert.Equal(t, want.ID, im.ID)
		assert.Equal(t, want.Type, string(im.Type))
		assert.Equal(t, want.Slug, im.Slug)
		assert.Equal(t, want.Versions, im.Versions)
		assert.Equal(t, want.Regions, im.Regions)
		assert.True(t, want.CreatedAt.Equal(im.CreatedAt), im.ID)
	}

	// The wire form: timestamps with milliseconds, versions an array even when empty.
	a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/images?per_page=1", nil)
	require.Equal(t, http.StatusOK, a.Status)
	first := a.object(t)["images"].([]any)[0].(map[string]any)
	assert.Equal(t, "2026-01-15T09:00:00.000Z", first["created_at"])
	assert.Equal(t, []any{}, first["versions"])
}

func TestCatalogCustom(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	cat := computetest.Catalog{
		Regions:          []computetest.Region{{ID: "lab-1", Name: "Lab"}},
		InstanceTypes:    []computetest.InstanceType{{ID: "tiny", VCPUs: 1, MemoryGiB: 1, Regions: []string{"lab-1"}}},
		PlacementOptions: []string{"AUTO"},
		Images: []computetest.Image{{ID: "img-alpine", Name: "Alpine", Type: "base-os", Family: "alpine",
			Slug: "alpine", OSType: "linux", Versions: []string{}, Regions: []string{"lab-1"}, CreatedAt: t0, UpdatedAt: t0}},
		SSHKeys: []computetest.SSHKey{{ID: "key-lab", Name: "lab"}},
		Volumes: []computetest.Volume{{ID: "vol-lab", Name: "lab", Region: "lab-1", Status: computetest.VolumeAvailable}},
	}
	srv := computetest.NewServer(computetest.WithCatalog(cat))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	require.Equal(t, cat, srv.Catalog())

	custom := func(r *compute.InstanceCreateRequest) {
		r.Type, r.Region, r.Image, r.SSHKeys, r.Volumes = "tiny", "lab-1", "alpine", []string{"key-lab"}, []string{"vol-lab"}
	}
	in := activeInstance(t, c, custom)
	assert.Equal(t, compute.Ref{ID: "img-alpine", Name: "Alpine"}, in.Image)
	assert.Equal(t, []compute.Ref{{ID: "key-lab", Name: "lab"}}, in.SSHKeys)
	assert.Equal(t, computetest.VolumeInUse, srv.Catalog().Volumes[0].Status)

	sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "lab", Region: "lab-1"})
	require.NoError(t, err)
	fip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "lab", Region: "lab-1"})
	require.NoError(t, err)
	_, err = c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{SecurityGroups: []string{sg.ID}})
	require.NoError(t, err)
	snap, err := c.Snapshots.Create(ctx, in.ID, &compute.SnapshotCreateRequest{Name: "lab"})
	require.NoError(t, err)
	assert.Equal(t, "linux", snap.OSType)

	page, err := c.Images.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 2, "the custom image and the snapshot")
	assert.Equal(t, "img-alpine", page.Items[0].ID)
	assert.Equal(t, "alpine", page.Items[1].Family)

	// The default catalogue is gone: its regions, types, images, keys and volumes are unknown.
	for _, tc := range []struct {
		mut  func(*compute.InstanceCreateRequest)
		code compute.ErrorCode
	}{
		{func(r *compute.InstanceCreateRequest) { custom(r); r.Region = "NORD-NO-KRS-1" }, compute.CodeInstanceConfigNotAllowed},
		{func(r *compute.InstanceCreateRequest) { custom(r); r.Type = "vcpu-2_memory-4g" }, compute.CodeInstanceConfigNotAllowed},
		{func(r *compute.InstanceCreateRequest) { custom(r); r.Image = "img-ubuntu-2404" }, compute.CodeInvalidImage},
		{func(r *compute.InstanceCreateRequest) { custom(r); r.SSHKeys = []string{"key-laptop"} }, compute.CodeSSHKeyNotFound},
		{func(r *compute.InstanceCreateRequest) { custom(r); r.Volumes = []string{"vol-data-1"} }, compute.CodeVolumeNotFound},
		{func(r *compute.InstanceCreateRequest) { custom(r); r.PlacementOption = "SPREAD" }, compute.CodeInvalidPlacementOption},
	} {
		_, err := c.Instances.Create(ctx, newInstanceRequest(tc.mut))
		requireAPIError(t, err, http.StatusBadRequest, tc.code)
	}
	_, err = c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "x", Region: "NORD-NO-KRS-1"})
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeBadRequest)

	// The instance built from the snapshot, with the floating IP, completes the round.
	in2, err := c.Instances.Create(ctx, newInstanceRequest(custom, func(r *compute.InstanceCreateRequest) {
		r.Image, r.Volumes, r.FloatingIP = snap.ID, nil, fip.ID
	}))
	require.NoError(t, err)
	assert.Equal(t, snap.ID, in2.Image.ID)
}

func TestCatalogIsACopy(t *testing.T) {
	t.Parallel()
	given := computetest.DefaultCatalog()
	srv := computetest.NewServer(computetest.WithCatalog(given))
	defer srv.Close()
	c := srv.Client()

	// Changing what was given to WithCatalog changes nothing.
	given.Regions[0].ID = "changed"
	given.Images[0].Regions[0] = "changed"
	given.InstanceTypes[0].UnsupportedImages[0] = "changed"

	// Nor does changing what Catalog returned, at any depth.
	cat := srv.Catalog()
	cat.Regions = nil
	cat.Volumes[0].Status = computetest.VolumeLocked
	cat.Images[0].Regions[0] = "changed"
	cat.Images[3].Versions[0] = "changed"
	cat.InstanceTypes[0].Regions[0] = "changed"
	cat.InstanceTypes[0].UnsupportedImages = nil
	cat.SSHKeys[0].ID = "changed"
	cat.PlacementOptions[0] = "changed"

	require.Equal(t, computetest.DefaultCatalog(), srv.Catalog())
	in := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.Volumes = []string{"vol-data-1"} })
	assert.Equal(t, "AUTO", in.PlacementOption)
	_, err := c.Instances.Create(context.Background(), newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.Image = "img-windows-2022"
	}))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeImageIncompatible)
	_, err = c.Instances.Create(context.Background(), newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.Image = "ubuntu:22.04"
	}))
	require.NoError(t, err)

	// The images the API lists are copies too.
	page, err := c.Images.List(context.Background(), nil)
	require.NoError(t, err)
	page.Items[0].Regions[0] = "changed"
	assert.Equal(t, "EUC-DE-MUC-1", srv.Catalog().Images[0].Regions[0])
}

func TestCatalogImageListFilter(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	want := map[compute.ImageType][]string{}
	for _, im := range computetest.DefaultCatalog().Images {
		want[compute.ImageType(im.Type)] = append(want[compute.ImageType(im.Type)], im.ID)
	}
	require.Len(t, want, 3, "the default catalogue has the three public types")
	for _, typ := range []compute.ImageType{compute.ImageTypeBaseOS, compute.ImageTypeCloudImage, compute.ImageTypePreconfigured, compute.ImageTypeSnapshot} {
		page, err := c.Images.List(ctx, &compute.ImageListOptions{Type: typ})
		require.NoError(t, err)
		var got []string
		for _, im := range page.Items {
			assert.Equal(t, typ, im.Type)
			got = append(got, im.ID)
		}
		assert.Equal(t, want[typ], got, typ)
		assert.Equal(t, len(want[typ]), page.TotalCount, typ)
	}

	// Pagination over the images.
	var all []string
	for im, err := range c.Images.All(ctx, &compute.ImageListOptions{ListOptions: compute.ListOptions{PerPage: 4}}) {
		require.NoError(t, err)
		all = append(all, im.ID)
	}
	assert.Len(t, all, len(computetest.DefaultCatalog().Images))
	page, err := c.Images.List(ctx, &compute.ImageListOptions{ListOptions: compute.ListOptions{Page: 9, PerPage: 4}})
	require.NoError(t, err)
	assert.Empty(t, page.Items, "a page past the end is empty")
	assert.Equal(t, len(all), page.TotalCount)

	rawAuthed(t, srv, http.MethodGet, "/compute/v1/images?type=kernel", nil).requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
}

func TestCatalogCloudImageVersions(t *testing.T) {
	t.Parallel()
	_, c := newFake(t)
	ctx := context.Background()

	for _, ref := range []string{"ubuntu:22.04", "ubuntu:24.04", "ubuntu", "img-ubuntu-cloud"} {
		in, err := c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) { r.Image = ref }))
		require.NoError(t, err, ref)
		assert.Equal(t, compute.Ref{ID: "img-ubuntu-cloud", Name: "Ubuntu"}, in.Image, ref)
	}
	for _, ref := range []string{"ubuntu:18.04", "ubuntu:", "debian-12:12", "img-ubuntu-cloud:22.04x"} {
		_, err := c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) { r.Image = ref }))
		apiErr := requireAPIError(t, err, http.StatusBadRequest, compute.CodeInvalidImage)
		assert.Contains(t, apiErr.Message, ref)
	}
}

func TestCatalogOpenAPI(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()

	doc, err := srv.Client().OpenAPI(context.Background())
	require.NoError(t, err)
	text := string(doc)
	assert.True(t, strings.HasPrefix(text, "openapi: 3"), text[:min(len(text), 40)])
	for _, p := range []string{"/security-groups:", "/floating-ips/{id}:", "/instances/{id}/actions:", "/images:"} {
		assert.Contains(t, text, p)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/compute/v1/openapi.yaml", reqs[0].Path)

	a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/openapi.yaml", nil)
	require.Equal(t, http.StatusOK, a.Status)
	assert.Equal(t, "application/yaml", a.Header.Get("Content-Type"))
	assert.Equal(t, doc, a.Body)
	// Like every endpoint, it needs a token.
	raw(t, srv, http.MethodGet, "/compute/v1/openapi.yaml", nil, nil).requireError(t, http.StatusUnauthorized, compute.CodeAuthTokenNotProvided)
}
