package computetest_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// IDs that could change the route if they were not escaped reach the server as one escaped path
// segment, are unescaped back to the ID, and name no instance: 404 with 02008 (never 02001, never
// another resource). The SDK refuses the IDs with "/", "\\", "%", dot segments or control
// characters before sending them, so those are sent raw, escaped, to check the fake alone.
func TestPathIDsAreOneEscapedSegment(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()
	target := activeInstance(t, c) // an instance that a traversal must not reach

	escape := func(id string) string {
		if id == "." || id == ".." {
			return strings.ReplaceAll(id, ".", "%2E")
		}
		return url.PathEscape(id)
	}
	ids := []string{
		"a/b", "..", ".", "../" + target.ID, target.ID + "/..", "a?b", "a?per_page=1", "a#b", "#", "100%",
		"%2F", "%", "a b", " x ", "../../images", target.ID + "/actions", "a;b", "ü/ø",
	}
	sdkSent := 0
	for _, id := range ids {
		srv.ResetRequests()
		_, err := c.Instances.Get(ctx, id)
		var ve *compute.ValidationError
		if errors.As(err, &ve) {
			assert.Equal(t, "instance_id", ve.Field)
			assert.Empty(t, srv.Requests(), "%q was refused before any request", id)
			a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/"+escape(id), nil)
			a.requireError(t, http.StatusNotFound, compute.CodeInstanceNotFound)
			assert.Contains(t, string(a.Body), strings.Trim(strconv.Quote(strconv.Quote(id)), `"`), "the server looked up the unescaped ID")
		} else {
			sdkSent++
			apiErr := requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
			assert.Contains(t, apiErr.Message, strconv.Quote(id), "the server looked up the unescaped ID")
		}

		reqs := srv.Requests()
		require.Len(t, reqs, 1, "%q", id)
		path := reqs[0].Path
		seg, ok := strings.CutPrefix(path, "/compute/v1/instances/")
		require.True(t, ok, "%q went to %s", id, path)
		assert.NotContains(t, seg, "/", "%q is one segment: %s", id, path)
		got, err := url.PathUnescape(seg)
		require.NoError(t, err)
		assert.Equal(t, id, got, "the segment %s unescapes to the ID", seg)
		assert.Empty(t, reqs[0].Query, "%q put nothing in the query", id)
		assert.True(t, reqs[0].Processed)
	}
	assert.Greater(t, sdkSent, 5, "the SDK sent the IDs it can escape")

	// The same holds below the ID and for the other resources.
	srv.ResetRequests()
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/a%2Fb/actions", nil).
		requireError(t, http.StatusNotFound, compute.CodeInstanceNotFound)
	_, err := c.Instances.Actions(ctx, "a b")
	requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
	assert.Equal(t, "/compute/v1/instances/a%20b/actions", srv.Requests()[1].Path)
	requireAPIError(t, c.Instances.Stop(ctx, target.ID+"?x"), http.StatusNotFound, compute.CodeInstanceNotFound)
	_, err = c.Snapshots.ListByInstance(ctx, "x?y", nil)
	requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/security-groups/a%2Fb", nil).
		requireError(t, http.StatusNotFound, compute.CodeSecurityGroupNotFound)
	_, err = c.FloatingIPs.Get(ctx, "a b#c")
	requireAPIError(t, err, http.StatusNotFound, compute.CodeFloatingIPNotFound)
	rawAuthed(t, srv, http.MethodDelete, "/compute/v1/instances/..%2F"+target.ID, nil).
		requireError(t, http.StatusNotFound, compute.CodeInstanceNotFound)
	requireStatus(t, c, target.ID, compute.InstanceStatusActive)

	// The instance is reached by its plain ID.
	srv.ResetRequests()
	requireStatus(t, c, target.ID, compute.InstanceStatusActive)
	assert.Equal(t, "/compute/v1/instances/"+target.ID, srv.Requests()[0].Path)
}

// A raw request with a bad escape or an empty segment matches no route.
func TestPathRawOddities(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()

	for _, p := range []string{
		"/compute/v1/instances/",                // empty ID
		"/compute/v1/instances//actions",        // empty ID below
		"/compute/v1/instances/a/b",             // two segments
		"/compute/v2/instances",                 // another version
		"/compute/v1",                           // the family itself
		"/compute/v1/instances/x/actions/extra", // too deep
	} {
		rawAuthed(t, srv, http.MethodGet, p, nil).requireError(t, http.StatusNotFound, compute.CodeInvalidRoute)
	}
	// Path parameters are unescaped: a needlessly escaped ID names the instance.
	in := activeInstance(t, srv.Client())
	escaped := strings.ReplaceAll(in.ID, "0", "%30")
	require.NotEqual(t, in.ID, escaped)
	a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/"+escaped, nil)
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
	assert.Equal(t, in.ID, a.object(t)["instance"].(map[string]any)["id"])

	// An escaped slash inside a raw path stays inside its segment.
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/a%2Fb", nil).requireError(t, http.StatusNotFound, compute.CodeInstanceNotFound)
	reqs := srv.Requests()
	assert.Equal(t, "/compute/v1/instances/a%2Fb", reqs[len(reqs)-1].Path)
}
