package compute

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSSHKeysGolden(t *testing.T) {
	t.Parallel()
	const id = "9b2e4f6a-1c3d-4e5f-8a7b-0c1d2e3f4a5b"
	const value = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm2b0m6XfL1cJ8g0QkQ5h1rT2yJ8eYk0pS3nV4wX5zA alice@laptop"
	runGoldenCases(t, []goldenCase{
		{
			name: "ssh_key_list", method: "GET", path: "/compute/v1/ssh-keys", query: "page=1&per_page=20",
			status: http.StatusOK, respFile: "ssh_key_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SSHKeys.List(ctx, &ListOptions{Page: 1, PerPage: 20})
			},
			check: checkPage[SSHKey]("ssh_keys", 2, 1, 20),
		},
		{
			// The response is the key itself, not {"ssh_key": {...}}.
			name: "ssh_key_create", method: "POST", path: "/compute/v1/ssh-keys",
			reqFile: "ssh_key_create_request.json", status: http.StatusCreated, respFile: "ssh_key_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SSHKeys.Create(ctx, &SSHKeyCreateRequest{Name: "laptop", Value: value})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkOne[SSHKey]("", true)(t, result, respBody)
				k := result.(*SSHKey)
				assert.Equal(t, value, k.Value, "the key's value comes back byte for byte")
				assert.Equal(t, 256, k.Size)
				assert.Equal(t, time.Date(2025, 5, 6, 9, 0, 0, 0, time.UTC), k.CreatedAt)
			},
		},
		{
			name: "ssh_key_get", method: "GET", path: "/compute/v1/ssh-keys/" + id,
			status: http.StatusOK, respFile: "ssh_key_response.json",
			call:  func(ctx context.Context, c *Client) (any, error) { return c.SSHKeys.Get(ctx, id) },
			check: checkOne[SSHKey]("", true),
		},
		{
			name: "ssh_key_update", method: "PATCH", path: "/compute/v1/ssh-keys/" + id,
			reqFile: "ssh_key_update_request.json", status: http.StatusOK, respFile: "ssh_key_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SSHKeys.Update(ctx, id, &SSHKeyUpdateRequest{Name: "laptop-2025"})
			},
			check: checkOne[SSHKey]("", true),
		},
		{
			name: "ssh_key_delete", method: "DELETE", path: "/compute/v1/ssh-keys/" + id, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.SSHKeys.Delete(ctx, id) },
		},
	})
}

// Validation names the JSON field; a private key is refused as a key's value.
func TestSSHKeyValidation(t *testing.T) {
	t.Parallel()
	requireValidationFields(t, map[string]validationCase{
		"ssh key private": {&SSHKeyCreateRequest{Name: "k", Value: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl"}, "value"},
		"ssh key no name": {&SSHKeyCreateRequest{Value: "ssh-ed25519 AAAA"}, "name"},
	})
}
