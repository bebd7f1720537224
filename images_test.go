package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkImagePage compares a page of images with the golden response and its counts.
func checkImagePage(total, page, perPage int) func(t *testing.T, result any, respBody []byte) {
	return func(t *testing.T, result any, respBody []byte) {
		p := result.(*Page[Image])
		require.NotEmpty(t, p.Items)
		assert.Equal(t, requireFullyMapped[Image](t, envelopeItem(t, respBody, "images")), p.Items[0])
		assert.Equal(t, total, p.TotalCount)
		assert.Equal(t, page, p.Page)
		assert.Equal(t, perPage, p.PerPage)
	}
}

func TestImageGolden(t *testing.T) {
	t.Parallel()
	cases := []goldenCase{
		{
			name:   "image_list",
			method: "GET", path: "/compute/v1/images", query: "page=2&per_page=10",
			status: http.StatusOK, respFile: "image_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Images.List(ctx, &ImageListOptions{ListOptions: ListOptions{Page: 2, PerPage: 10}})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkImagePage(42, 2, 10)(t, result, respBody)
				p := result.(*Page[Image])
				require.Len(t, p.Items, 2)
				assert.Equal(t, ImageTypeCloudImage, p.Items[0].Type)
				assert.Equal(t, []string{"22.04", "24.04"}, p.Items[0].Versions)
				assert.Equal(t, ImageTypeBaseOS, p.Items[1].Type)
				assert.Empty(t, p.Items[1].Versions, "only a cloud image has versions")
			},
		},
		{
			name:   "image_list_snapshot",
			method: "GET", path: "/compute/v1/images", query: "page=1&type=snapshot",
			status: http.StatusOK, respFile: "image_list_snapshot_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Images.List(ctx, &ImageListOptions{Type: ImageTypeSnapshot, ListOptions: ListOptions{Page: 1}})
			},
			check: checkImagePage(1, 1, 50),
		},
		{
			name:   "image_list_nil_options",
			method: "GET", path: "/compute/v1/images", query: "",
			status: http.StatusOK, respFile: "image_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Images.List(ctx, nil)
			},
			check: checkImagePage(42, 2, 10),
		},
		{
			name:   "image_list_preconfigured",
			method: "GET", path: "/compute/v1/images", query: "type=preconfigured",
			status: http.StatusOK, respFile: "image_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Images.List(ctx, &ImageListOptions{Type: ImageTypePreconfigured})
			},
		},
	}
	runGoldenCases(t, cases)
}

func TestImageListOptionsQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts *ImageListOptions
		want string
	}{
		{nil, ""},
		{&ImageListOptions{}, ""},
		{&ImageListOptions{Type: ImageTypeBaseOS}, "type=base-os"},
		{&ImageListOptions{Type: ImageTypeCloudImage, ListOptions: ListOptions{Page: 3, PerPage: 100}}, "page=3&per_page=100&type=cloud-image"},
		{&ImageListOptions{Type: "marketplace"}, "type=marketplace"},
	} {
		v, err := query.Values(tc.opts)
		require.NoError(t, err)
		assert.Equal(t, tc.want, v.Encode())
		assert.NoError(t, tc.opts.Validate())
	}
}

func TestImageUnknownTypeRoundTrips(t *testing.T) {
	t.Parallel()
	in := `{"id":"img-1","name":"n","type":"marketplace","family":"f","slug":"s","os_type":"windows",` +
		`"versions":[],"regions":["eu-west-1"],"created_at":"2024-05-01T10:20:30.123Z","updated_at":"2024-05-01T10:20:30.124Z"}`
	var img Image
	require.NoError(t, json.Unmarshal([]byte(in), &img))
	assert.Equal(t, ImageType("marketplace"), img.Type)
	out, err := json.Marshal(img)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

func TestImageAllKeepsTheTypeOnEveryPage(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		ids := map[int][]string{1: {"img-1", "img-2"}, 2: {"img-3"}}[page]
		items := []map[string]any{}
		for _, id := range ids {
			items = append(items, map[string]any{"id": id, "type": r.URL.Query().Get("type")})
		}
		replyJSON(w, http.StatusOK, map[string]any{"images": items, "total_count": 3, "page": page, "per_page": 2})
	})
	opts := &ImageListOptions{Type: ImageTypeSnapshot, ListOptions: ListOptions{PerPage: 2}}
	var got []string
	for img, err := range c.Images.All(context.Background(), opts) {
		require.NoError(t, err)
		assert.Equal(t, ImageTypeSnapshot, img.Type)
		got = append(got, img.ID)
	}
	assert.Equal(t, []string{"img-1", "img-2", "img-3"}, got)
	reqs := rec.all()
	require.Len(t, reqs, 2)
	assert.Equal(t, "page=1&per_page=2&type=snapshot", reqs[0].Query)
	assert.Equal(t, "page=2&per_page=2&type=snapshot", reqs[1].Query)
	assert.Equal(t, &ImageListOptions{Type: ImageTypeSnapshot, ListOptions: ListOptions{PerPage: 2}}, opts,
		"the caller's options are never changed")
}

func TestImageAllWithNilOptions(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, serveJSON(golden(t, "image_list_snapshot_response.json")))
	var n int
	for _, err := range c.Images.All(context.Background(), nil) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n)
	require.Equal(t, 1, rec.count())
	assert.Equal(t, "page=1", rec.all()[0].Query)
}

func TestImageValidation(t *testing.T) {
	t.Parallel()
	list := func(opts *ImageListOptions) func(context.Context, *Client) error {
		return func(ctx context.Context, c *Client) error {
			_, err := c.Images.List(ctx, opts)
			return err
		}
	}
	all := func(opts *ImageListOptions) func(context.Context, *Client) error {
		return func(ctx context.Context, c *Client) error {
			for _, err := range c.Images.All(ctx, opts) {
				return err
			}
			return nil
		}
	}
	runRefused(t, []refusedCase{
		{"list per_page 101", "per_page", list(&ImageListOptions{ListOptions: ListOptions{PerPage: 101}})},
		{"list per_page -1", "per_page", list(&ImageListOptions{Type: ImageTypeSnapshot, ListOptions: ListOptions{PerPage: -1}})},
		{"list page -1", "page", list(&ImageListOptions{ListOptions: ListOptions{Page: -1}})},
		{"all per_page 101", "per_page", all(&ImageListOptions{ListOptions: ListOptions{PerPage: 101}})},
	})
}
