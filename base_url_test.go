package compute

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBaseURLEndingInTheAPIPrefix: a base URL that ends in /compute/v1, as the service's other
// clients write it, reaches the same paths as the host alone; another path is kept as a prefix,
// percent-encoded slashes included.
func TestBaseURLEndingInTheAPIPrefix(t *testing.T) {
	t.Parallel()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.EscapedPath())
		http.Error(w, `{"code":"02008","message":"instance not found"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	for base, want := range map[string]string{
		srv.URL:                    "/compute/v1/instances/ins-1",
		srv.URL + "/":              "/compute/v1/instances/ins-1",
		srv.URL + "/compute/v1":    "/compute/v1/instances/ins-1",
		srv.URL + "/compute/v1/":   "/compute/v1/instances/ins-1",
		srv.URL + "/gw":            "/gw/compute/v1/instances/ins-1",
		srv.URL + "/gw/compute/v1": "/gw/compute/v1/instances/ins-1",
		srv.URL + "/a%2Fb/":        "/a%2Fb/compute/v1/instances/ins-1",
	} {
		got = nil
		c, err := NewClient("tok", WithBaseURL(base), WithoutRateLimit())
		require.NoError(t, err, base)
		_, err = c.Instances.Get(context.Background(), "ins-1")
		require.ErrorIs(t, err, ErrNotFound, base)
		assert.Equal(t, []string{want}, got, base)
	}
}
