package compute

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request without a body (a GET, a DELETE) reaches the transport with no Body at all, so that
// net/http sends it as it is instead of probing an empty body first; a request with one carries it
// whole, with its length.
func TestOnlyRequestsWithABodyCarryOne(t *testing.T) {
	t.Parallel()
	type seen struct {
		method string
		body   string
		hasIt  bool
		length int64
	}
	var got []seen
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		s := seen{method: r.Method, hasIt: r.Body != nil && r.Body != http.NoBody, length: r.ContentLength}
		if s.hasIt {
			b, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			s.body = string(b)
		}
		got = append(got, s)
		status, body := http.StatusOK, `{"instance":{"id":"i-1","status":"active"}}`
		if r.Method == http.MethodDelete {
			status, body = http.StatusNoContent, ""
		}
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries())
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Instances.Get(ctx, "i-1")
	require.NoError(t, err)
	require.NoError(t, c.Instances.Delete(ctx, "i-1"))
	_, err = c.Instances.Update(ctx, "i-1", &InstanceUpdateRequest{Name: Ptr("web-2")})
	require.NoError(t, err)

	require.Len(t, got, 3)
	assert.Equal(t, seen{method: "GET"}, got[0])
	assert.Equal(t, seen{method: "DELETE"}, got[1])
	assert.Equal(t, seen{method: "PATCH", body: `{"name":"web-2"}`, hasIt: true, length: 16}, got[2])
}

// expandPath fills each {name} with its ID, escaped, and refuses a template that does not take
// exactly the IDs given (a mistake in the SDK, never sent).
func TestExpandPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tmpl string
		ids  []string
		want string // "" for an error
	}{
		{"/a/{x}/b/{y}", []string{"1", "2"}, "/a/1/b/2"},
		{"/a/{x}", []string{"a b?#"}, "/a/a%20b%3F%23"},
		{"/a", nil, "/a"},
		{"/a/{x}", nil, ""},
		{"/a", []string{"1"}, ""},
		{"/a/{x}/{y}", []string{"1"}, ""},
		{"/a/{x", []string{"1"}, ""},
	} {
		got, err := expandPath(tc.tmpl, tc.ids)
		if tc.want == "" {
			assert.Error(t, err, "%s %q", tc.tmpl, tc.ids)
			continue
		}
		require.NoError(t, err, "%s %q", tc.tmpl, tc.ids)
		assert.Equal(t, tc.want, got)
	}
}
