package main

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
)

func sshKeyCreated(t *testing.T, c *compute.Client) { mkSSHKey(t, c) }

func TestSSHKeyCommands(t *testing.T) {
	t.Parallel()
	runCases(t, sshKeyCases(t))
}

func sshKeyCases(t *testing.T) []cmdCase {
	keyFile := writeFile(t, "id_ed25519.pub", publicKey(9)+"\n")
	const (
		list = "GET /compute/v1/ssh-keys?page=1&per_page=100"
		get  = "GET /compute/v1/ssh-keys/key-000001"
	)
	return []cmdCase{
		{name: "ssh_key_list", setup: sshKeyCreated, args: []string{"ssh-key", "list"},
			reqs: []string{list}, out: new([]compute.SSHKey)},
		{name: "ssh_key_get", setup: sshKeyCreated, args: []string{"ssh-key", "get", "key-000001"},
			reqs: []string{get}, out: new(compute.SSHKey)},
		{name: "ssh_key_create", args: []string{"ssh-key", "create", "--name", "laptop-2", "--public-key-file", keyFile},
			reqs: []string{list, "POST /compute/v1/ssh-keys"},
			body: `{"name":"laptop-2","value":"` + publicKey(9) + `"}`, out: new(compute.SSHKey)},
		{name: "ssh_key_update", setup: sshKeyCreated, args: []string{"ssh-key", "update", "key-000001", "--name", "deploy-old"},
			reqs: []string{"PATCH /compute/v1/ssh-keys/key-000001"}, body: `{"name":"deploy-old"}`, out: new(compute.SSHKey)},
		{name: "ssh_key_delete", setup: sshKeyCreated, args: []string{"ssh-key", "delete", "key-000001"},
			reqs: []string{"DELETE /compute/v1/ssh-keys/key-000001"}},
		{name: "ssh_key_delete_wait", setup: sshKeyCreated, args: []string{"ssh-key", "delete", "key-000001", "--wait"},
			reqs: []string{"GET /compute/v1/ssh-keys/key-000001", "DELETE /compute/v1/ssh-keys/key-000001", get}},
	}
}

// A private key given as the public key file is refused before it leaves the machine.
func TestSSHKeyCreateRefusesAPrivateKey(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	private := writeFile(t, "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
	r := h.run("ssh-key", "create", "--name", "oops", "--public-key-file", private)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "invalid --public-key-file")
	assert.NotContains(t, r.stderr, "b3BlbnNzaC1rZXktdjEAAAAA")
	assert.Empty(t, h.requests())
}
