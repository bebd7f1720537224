package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSnapshotsGolden(t *testing.T) {
	t.Parallel()
	const instanceID = "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f"
	const path = "/compute/v1/instances/" + instanceID + "/snapshots"
	cases := []goldenCase{
		{
			name: "snapshot_create", method: "POST", path: path,
			reqFile: "snapshot_create_request.json", status: http.StatusCreated, respFile: "snapshot_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Create(ctx, instanceID, &SnapshotCreateRequest{
					Name: "web-1-before-upgrade", ReplicatedRegion: "eu-central-1",
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				want := requireFullyMapped[Snapshot](t, envelopeItem(t, respBody, "snapshot"))
				got, ok := result.(*Snapshot)
				require.True(t, ok, "result is %T", result)
				require.Equal(t, want, *got)
			},
		},
		{
			// replicated_region is optional: left empty, it is not sent.
			name: "snapshot_create_name_only", method: "POST", path: path,
			reqFile: "snapshot_create_name_only_request.json", status: http.StatusCreated, respFile: "snapshot_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Create(ctx, instanceID, &SnapshotCreateRequest{Name: "web-1-before-upgrade"})
			},
		},
		{
			name: "snapshot_list", method: "GET", path: path, query: "page=1&per_page=50",
			status: http.StatusOK, respFile: "snapshot_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.ListByInstance(ctx, instanceID, &ListOptions{Page: 1, PerPage: 50})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				want := requireFullyMapped[Snapshot](t, envelopeItem(t, respBody, "snapshots"))
				p, ok := result.(*Page[Snapshot])
				require.True(t, ok, "result is %T", result)
				require.Len(t, p.Items, 2)
				require.Equal(t, want, p.Items[0])
				assert.Equal(t, "snap-9c0d1e2f", p.Items[1].ID)
				assert.Equal(t, 2, p.TotalCount)
				assert.Equal(t, 1, p.Page)
				assert.Equal(t, 50, p.PerPage)
			},
		},
		{
			name: "snapshot_list_no_options", method: "GET", path: path,
			status: http.StatusOK, respFile: "snapshot_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.ListByInstance(ctx, instanceID, nil)
			},
		},
	}
	runGoldenCases(t, cases)
}

func TestSnapshotsAllByInstance(t *testing.T) {
	t.Parallel()
	respBody := bytes.ReplaceAll(golden(t, "snapshot_list_response.json"), []byte("c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f"), []byte("i?1"))
	c, rec := newTestClient(t, serveJSON(respBody))
	var ids []string
	for s, err := range c.Snapshots.AllByInstance(context.Background(), "i?1", nil) {
		require.NoError(t, err)
		ids = append(ids, s.ID)
	}
	assert.Equal(t, []string{"snap-5e6f7a8b", "snap-9c0d1e2f"}, ids)
	reqs := rec.all()
	require.Len(t, reqs, 1, "total_count is reached on the first page")
	assert.Equal(t, "/compute/v1/instances/i%3F1/snapshots", reqs[0].Path)
	assert.Equal(t, "page=1", reqs[0].Query)
}

// TestSnapshotsOfAnotherInstanceAreRefused: a page of an instance's snapshots that holds another
// instance's is a broken or hostile server's, and ends the walk with an error.
func TestSnapshotsOfAnotherInstanceAreRefused(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, serveJSON(golden(t, "snapshot_list_response.json")))
	err := firstErr(c.Snapshots.AllByInstance(context.Background(), "i-other", nil))
	require.ErrorContains(t, err, `of instance "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", not of the one asked for`)
}

func TestSnapshotCreateValidation(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		req   *SnapshotCreateRequest
		field string
	}{
		"nil request":   {nil, "request"},
		"name required": {&SnapshotCreateRequest{ReplicatedRegion: "eu-central-1"}, "name"},
		"name blank":    {&SnapshotCreateRequest{Name: " \t"}, "name"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
			s, err := c.Snapshots.Create(context.Background(), "i-1", tc.req)
			assert.Nil(t, s)
			requireInvalid(t, err, tc.field, rec)
		})
	}
}

func TestSnapshotListValidation(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	_, err := c.Snapshots.ListByInstance(context.Background(), "i-1", &ListOptions{PerPage: -5})
	requireInvalid(t, err, "per_page", rec)
}

// Code 02037: only an active instance can be snapshotted. The POST is sent once and the code is
// matchable.
func TestSnapshotCreateRequiresActive(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusBadRequest, map[string]string{"code": "02037", "message": "Only active instances can be snapshotted"})
	})
	_, err := c.Snapshots.Create(context.Background(), "i-1", &SnapshotCreateRequest{Name: "s"})
	require.Error(t, err)
	assert.ErrorIs(t, err, CodeSnapshotRequiresActive)
	assert.ErrorIs(t, err, ErrBadRequest)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.Equal(t, 1, rec.count())
}

func TestSnapshotUnknownStatusRoundTrip(t *testing.T) {
	t.Parallel()
	var s Snapshot
	require.NoError(t, json.Unmarshal([]byte(`{"id":"snap-1","status":"available"}`), &s))
	assert.Equal(t, SnapshotStatus("available"), s.Status)
	out, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"status":"available"`)

	obj := envelopeItem(t, golden(t, "snapshot_list_response.json"), "snapshots")
	full := requireFullyMapped[Snapshot](t, obj)
	out, err = json.Marshal(full)
	require.NoError(t, err)
	// Timestamps re-encode as RFC 3339 with trailing zeros trimmed (".250Z" becomes ".25Z"), so the
	// round trip is compared decoded, with the same keys.
	assert.Equal(t, full, requireFullyMapped[Snapshot](t, out))
}

func TestSnapshotsCollectionGolden(t *testing.T) {
	t.Parallel()
	const id = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
	runGoldenCases(t, []goldenCase{
		{
			name: "snapshots_list", method: "GET", path: "/compute/v1/snapshots", query: "page=1&per_page=50",
			status: http.StatusOK, respFile: "snapshots_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.List(ctx, &ListOptions{Page: 1, PerPage: 50})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkPage[Snapshot]("snapshots", 2, 1, 50)(t, result, respBody)
				p := result.(*Page[Snapshot])
				assert.Equal(t, "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e", p.Items[0].SourceSnapshotID)
				assert.Equal(t, SnapshotStatusError, p.Items[1].Status)
				assert.Empty(t, p.Items[1].SourceInstanceID, "an imported snapshot has no source instance")
			},
		},
		{
			name: "snapshot_import", method: "POST", path: "/compute/v1/snapshots",
			reqFile: "snapshot_import_request.json", status: http.StatusCreated, respFile: "snapshot_import_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Import(ctx, &SnapshotImportRequest{
					Name: "debian-custom", Region: RegionEUWNLAMS1, Size: 20,
					URL: "https://images.example.com/debian-custom.raw.zst", OSType: OSTypeLinux,
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Snapshot]("snapshot", false)(t, result, respBody)
				s := result.(*Snapshot)
				assert.Equal(t, SnapshotStatusCreating, s.Status)
				assert.Equal(t, int64(20), s.Size)
			},
		},
		{
			name: "snapshot_get", method: "GET", path: "/compute/v1/snapshots/" + id,
			status: http.StatusOK, respFile: "snapshot_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Snapshots.Get(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				// Every field but resource_id, which the service no longer sends.
				checkOne[Snapshot]("snapshot", false)(t, result, respBody)
				s := result.(*Snapshot)
				assert.Equal(t, OSTypeWindows, s.OSType)
				assert.Equal(t, "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", s.SourceInstanceID)
				assert.Equal(t, time.Date(2025, 5, 3, 12, 4, 10, 250_000_000, time.UTC), s.UpdatedAt)
			},
		},
		{
			name: "snapshot_update", method: "PATCH", path: "/compute/v1/snapshots/" + id,
			reqFile: "snapshot_update_request.json", status: http.StatusOK, respFile: "snapshot_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Update(ctx, id, &SnapshotUpdateRequest{Name: "web-1-golden"})
			},
			check: checkOne[Snapshot]("snapshot", false),
		},
		{
			name: "snapshot_delete", method: "DELETE", path: "/compute/v1/snapshots/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Snapshots.Delete(ctx, id) },
		},
		{
			name: "snapshot_clone", method: "POST", path: "/compute/v1/snapshots/" + id + "/clone",
			reqFile: "snapshot_clone_request.json", status: http.StatusCreated, respFile: "snapshot_clone_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Snapshots.Clone(ctx, id, &SnapshotCloneRequest{Name: "web-1-golden-ams", Region: RegionEUWNLAMS1})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Snapshot]("snapshot", false)(t, result, respBody)
				assert.Equal(t, id, result.(*Snapshot).SourceSnapshotID)
			},
		},
	})
}

// The collection's requests: validation names the JSON field.
func TestSnapshotImportAndCloneValidation(t *testing.T) {
	t.Parallel()
	requireValidationFields(t, map[string]validationCase{
		"import bad os":  {&SnapshotImportRequest{Name: "s", Region: "r", Size: 1, URL: "https://x", OSType: "beos"}, "os_type"},
		"import no size": {&SnapshotImportRequest{Name: "s", Region: "r", URL: "https://x"}, "size"},
		"clone no name":  {&SnapshotCloneRequest{Region: "r"}, "name"},
	})
}

// TestSnapshotImportOSTypes: an import takes either operating system kind, and no other.
func TestSnapshotImportOSTypes(t *testing.T) {
	t.Parallel()
	for _, os := range []string{"", OSTypeLinux, OSTypeWindows} {
		req := &SnapshotImportRequest{Name: "img", Region: "r1", Size: 20, URL: "https://x/img.raw", OSType: os}
		assert.NoError(t, req.Validate(), os)
	}
	err := (&SnapshotImportRequest{Name: "img", Region: "r1", Size: 20, URL: "https://x/img.raw", OSType: "macos"}).Validate()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "os_type", ve.Field)
}
