package compute

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		"ssh key no name": {&SSHKeyCreateRequest{Value: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm2b0m6XfL1cJ8g0QkQ5h1rT2yJ8eYk0pS3nV4wX5zA"}, "name"},
	})
}

// TestSSHKeyValueMustBeAPublicKey: only one OpenSSH public key line is sent; a private key in any
// format (PEM, OpenSSH's own armoured or not, PuTTY's two versions), another public format or a
// key whose type does not match its blob is refused before any request, without being quoted.
func TestSSHKeyValueMustBeAPublicKey(t *testing.T) {
	t.Parallel()
	const ed25519 = "AAAAC3NzaC1lZDI1NTE5AAAAIGm2b0m6XfL1cJ8g0QkQ5h1rT2yJ8eYk0pS3nV4wX5zA"
	for _, ok := range []string{
		"ssh-ed25519 " + ed25519,
		"ssh-ed25519 " + ed25519 + " me@laptop\n",
		"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 ci",
	} {
		require.NoError(t, (&SSHKeyCreateRequest{Name: "k", Value: ok}).Validate(), ok)
	}
	const private = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
	for name, bad := range map[string]string{
		"PEM private key":               "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
		"OpenSSH private key":           "-----BEGIN OPENSSH PRIVATE KEY-----\n" + private + "\n-----END OPENSSH PRIVATE KEY-----",
		"unarmoured OpenSSH key":        private,
		"PuTTY v2":                      "PuTTY-User-Key-File-2: ssh-ed25519\nEncryption: none\nComment: k\nPublic-Lines: 2\n" + ed25519,
		"PuTTY v3":                      "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: k\nPublic-Lines: 2\n" + ed25519,
		"SSH2 public key":               "---- BEGIN SSH2 PUBLIC KEY ----\n" + ed25519 + "\n---- END SSH2 PUBLIC KEY ----",
		"a type that is not the blob's": "ssh-rsa " + ed25519,
		"two keys":                      "ssh-ed25519 " + ed25519 + "\nssh-ed25519 " + ed25519,
		"no key":                        "ssh-ed25519",
		"not base64":                    "ssh-ed25519 AAAA$$$$",
	} {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {})
		_, err := c.SSHKeys.Create(context.Background(), &SSHKeyCreateRequest{Name: "k", Value: bad})
		requireInvalid(t, err, "value", rec)
		assert.NotContains(t, err.Error(), ed25519[20:40], "%s: the value is not quoted", name)
		assert.NotContains(t, err.Error(), private[20:40], name)
	}
}
