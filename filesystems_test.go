package compute

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFilesystemsGolden(t *testing.T) {
	t.Parallel()
	const id = "f0e1d2c3-b4a5-4967-8877-665544332211"
	runGoldenCases(t, []goldenCase{
		{
			name: "filesystem_list", method: "GET", path: "/compute/v1/filesystems", query: "page=2&per_page=10",
			status: http.StatusOK, respFile: "filesystem_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Filesystems.List(ctx, &ListOptions{Page: 2, PerPage: 10})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkPage[Filesystem]("filesystems", 1, 2, 10)(t, result, respBody)
				assert.Equal(t, requireFullyMapped[Filesystem](t, envelopeItem(t, respBody, "filesystems")), result.(*Page[Filesystem]).Items[0])
			},
		},
		{
			// The mount fields are null until the filesystem is created.
			name: "filesystem_create", method: "POST", path: "/compute/v1/filesystems",
			reqFile: "filesystem_create_request.json", status: http.StatusCreated, respFile: "filesystem_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Filesystems.Create(ctx, &FilesystemCreateRequest{
					Name: "shared-models", Description: "Model weights for the training nodes", Region: RegionNACAFTS1,
					Size: 1024, Type: FilesystemTypeVast,
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Filesystem]("filesystem", true, "MountBasePath", "MountEndpointRange")(t, result, respBody)
				f := result.(*Filesystem)
				assert.Equal(t, FilesystemStatusCreating, f.Status)
				assert.Empty(t, f.MountBasePath)
				assert.Nil(t, f.MountEndpointRange)
			},
		},
		{
			name: "filesystem_get", method: "GET", path: "/compute/v1/filesystems/" + id,
			status: http.StatusOK, respFile: "filesystem_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Filesystems.Get(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[Filesystem]("filesystem", true)(t, result, respBody)
				f := result.(*Filesystem)
				assert.Equal(t, "/shared-models", f.MountBasePath)
				assert.Equal(t, []string{"10.10.0.10", "10.10.0.25"}, f.MountEndpointRange)
			},
		},
		{
			name: "filesystem_update", method: "PATCH", path: "/compute/v1/filesystems/" + id,
			reqFile: "filesystem_update_request.json", status: http.StatusOK, respFile: "filesystem_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Filesystems.Update(ctx, id, &FilesystemUpdateRequest{Size: Ptr(2048)})
			},
			check: checkOne[Filesystem]("filesystem", true),
		},
		{
			// The contract does not state the status of this delete; 204 and 200 both succeed.
			name: "filesystem_delete", method: "DELETE", path: "/compute/v1/filesystems/" + id, status: http.StatusOK,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Filesystems.Delete(ctx, id) },
		},
		{
			name: "filesystem_delete_204", method: "DELETE", path: "/compute/v1/filesystems/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Filesystems.Delete(ctx, id) },
		},
	})
}

// Validation names the JSON field.
func TestFilesystemValidation(t *testing.T) {
	t.Parallel()
	requireValidationFields(t, map[string]validationCase{
		"filesystem no size": {&FilesystemCreateRequest{Name: "f", Region: "r"}, "size"},
	})
}

// Values the SDK has no constant for decode unchanged.
func TestFilesystemUnknownValuesRoundTrip(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, serveJSON([]byte(`{"filesystem": {"id": "fs-1", "status": "resizing", "type": "lustre"}}`)))
	f, err := c.Filesystems.Get(context.Background(), "fs-1")
	require.NoError(t, err)
	assert.Equal(t, FilesystemStatus("resizing"), f.Status)
	assert.Equal(t, FilesystemType("lustre"), f.Type)
}

// TestFilesystemDeleteAfterALostAttempt: a DELETE retried after a lost attempt takes the
// filesystem's 404 (any code but an invalid route's: the service names no not-found code) as done,
// but not an invalid route's 404 (02001), which says nothing of the filesystem.
func TestFilesystemDeleteAfterALostAttempt(t *testing.T) {
	t.Parallel()
	for code, gone := range map[ErrorCode]bool{"02099": true, CodeInvalidRoute: false} {
		c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusNotFound, map[string]string{"code": string(code), "message": "not found"})
		}, func(w http.ResponseWriter, _ *http.Request) { hangUp(w) }), WithRetry(RetryPolicy{MinWait: time.Millisecond, MaxWait: time.Millisecond}))
		err := c.Filesystems.Delete(context.Background(), "fs-1")
		assert.Equal(t, 2, rec.count())
		if gone {
			assert.NoError(t, err, code)
		} else {
			require.ErrorIs(t, err, ErrOutcomeUnknown, code)
			require.ErrorIs(t, err, CodeInvalidRoute)
		}
	}
}
