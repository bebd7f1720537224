package compute

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGone takes as proof that a resource is gone only its kind's not-found, on a read, an update
// or a delete of that resource.
func TestGone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		call   func(context.Context, *Client) error
		gone   bool
	}{
		{"instance read, its not-found", 404, `{"code":"02008","message":"no such instance"}`, getInstance, true},
		{"instance read, a gateway's page", 404, `<html>404 Not Found</html>`, getInstance, false},
		{"instance read, another kind's not-found", 404, `{"code":"02047","message":"no such key"}`, getInstance, false},
		{"instance read, an invalid route", 404, `{"code":"02001","message":"invalid route"}`, getInstance, false},
		{"instance read, a 503", 503, `{"code":"02044","message":"down"}`, getInstance, false},
		{"instance update, its not-found", 404, `{"code":"02008","message":"no such instance"}`, func(ctx context.Context, c *Client) error {
			_, err := c.Instances.Update(ctx, "ins-1", &InstanceUpdateRequest{Name: Ptr("x")})
			return err
		}, true},
		{"SSH key read, its not-found", 404, `{"code":"02047","message":"no such key"}`, func(ctx context.Context, c *Client) error {
			_, err := c.SSHKeys.Get(ctx, "key-1")
			return err
		}, true},
		{"volume delete, its not-found", 404, `{"code":"02021","message":"no such volume"}`, func(ctx context.Context, c *Client) error {
			return c.Volumes.Delete(ctx, "vol-1")
		}, true},
		{"snapshot read, its not-found", 404, `{"code":"02015","message":"no such snapshot"}`, func(ctx context.Context, c *Client) error {
			_, err := c.Snapshots.Get(ctx, "snap-1")
			return err
		}, true},
		{"the actions of an instance, its not-found", 404, `{"code":"02008","message":"no such instance"}`, func(ctx context.Context, c *Client) error {
			_, err := c.Instances.Actions(ctx, "ins-1")
			return err
		}, false}, // not a call on the instance itself
		{"filesystem read, a gateway's page", 404, `<html>404</html>`, func(ctx context.Context, c *Client) error {
			_, err := c.Filesystems.Get(ctx, "fs-1")
			return err
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := responding(t, tc.status, tc.body)
			err := tc.call(context.Background(), c)
			require.Error(t, err)
			assert.Equal(t, tc.gone, Gone(err), "%v", err)
			assert.Equal(t, tc.gone, Gone(fmt.Errorf("wrapped: %w", err)), "wrapped")
		})
	}
	assert.False(t, Gone(nil))
	assert.False(t, Gone(errors.New("compute: GET /compute/v1/instances/x: 404")))
	assert.False(t, Gone(&APIError{StatusCode: http.StatusNotFound, Code: CodeInstanceNotFound, Method: "GET", Path: "/compute/v1/instances"}))
}

func getInstance(ctx context.Context, c *Client) error {
	_, err := c.Instances.Get(ctx, "ins-1")
	return err
}
