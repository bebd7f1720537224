package compute

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
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

// TestAFilesystemIsGoneOnlyOnTheServicesOwn404: the service names no "filesystem not found" code,
// so a 404 proves a filesystem gone only when its body is the service's own error shape (a
// five-digit code) and its code says nothing else: neither an invalid route, nor the account or
// the credential, nor another kind's not-found. A proxy's page and a gateway's JSON 404
// ({"code":"NotFound"}) prove nothing: DeleteAndWait polls through them, sees the service's "deleting", and ends only on the
// service's own 404.
func TestAFilesystemIsGoneOnlyOnTheServicesOwn404(t *testing.T) {
	t.Parallel()
	for body, gone := range map[string]bool{
		`{"code":"02004","message":"filesystem not found"}`:   true,
		`{"code":"02099","message":"a code added later"}`:     true,
		`{"code":"NotFound","message":"no route to backend"}`: false,
		`{"code":"404","message":"Not Found"}`:                false,
		`{"code":"RESOURCE_NOT_FOUND"}`:                       false,
		`{"code":"0200a","message":"x"}`:                      false,
		`{"code":"020041","message":"x"}`:                     false,
		`{"message":"Not Found"}`:                             false,
		`{"code":""}`:                                         false,
		`{"code":"02001","message":"Invalid route"}`:          false,
		`{"code":"02008","message":"Instance not found"}`:     false,
		`{"code":"02047","message":"SSH key not found"}`:      false,
		`{"code":"02043","message":"Permission denied"}`:      false,
		`{"code":"01204","message":"Permission denied"}`:      false,
		`{"code":"02040","message":"Account is suspended"}`:   false,
		`{"code":"02044","message":"API disabled"}`:           false,
		`{"code":"02014","message":"no token"}`:               false,
	} {
		e := newAPIError(&http.Response{StatusCode: http.StatusNotFound, Header: http.Header{}}, []byte(body), "GET", "/compute/v1/filesystems/fs-1", 1, nil)
		assert.Equal(t, gone, opDeleteFilesystem.missing(e), body)
		e.StatusCode = http.StatusBadRequest
		assert.False(t, opDeleteFilesystem.missing(e), "a 400 proves nothing: %s", body)
	}

	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int32
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			switch n := gets.Add(1); {
			case n == 1:
				replyRaw(w, http.StatusNotFound, "<html><body>404 Not Found</body></html>") // a proxy's page
			case n <= 3:
				replyJSON(w, http.StatusNotFound, map[string]string{"code": "NotFound", "message": "no healthy upstream"})
			case n == 4:
				replyJSON(w, http.StatusOK, map[string]any{"filesystem": map[string]any{"id": "fs-1", "status": "deleting"}})
			default:
				replyJSON(w, http.StatusNotFound, map[string]string{"code": "02004", "message": "filesystem not found"})
			}
		}, WithoutRateLimit())
		require.NoError(t, c.Filesystems.DeleteAndWait(context.Background(), "fs-1"))
		assert.Equal(t, int32(5), gets.Load(), "polled through the gateway's pages and the service's deleting")
	})
}
