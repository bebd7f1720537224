package engine

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math/big"
	"net/http"
	"strings"
)

// sshKeyBody is an SSH key as the extended document shows it. It is the only resource whose
// single-object responses are the object itself, not wrapped under a key.
type sshKeyBody struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Value       string `json:"value"`
	Fingerprint string `json:"fingerprint"`
	Type        string `json:"type"`
	Size        int    `json:"size"`
	CreatedAt   stamp  `json:"created_at"`
	UpdatedAt   stamp  `json:"updated_at"`
}

type sshKey struct{ sshKeyBody }

// keySizes are the public key algorithms the fake accepts, with the size it reports for each; RSA's
// size is read from the key's modulus.
var keySizes = map[string]int{
	"ssh-rsa":                            0,
	"ssh-ed25519":                        256,
	"ecdsa-sha2-nistp256":                256,
	"ecdsa-sha2-nistp384":                384,
	"ecdsa-sha2-nistp521":                521,
	"sk-ssh-ed25519@openssh.com":         256,
	"sk-ecdsa-sha2-nistp256@openssh.com": 256,
}

// seedSSHKey is a catalogue key as the API shows it: the catalogue names it only, so its value is a
// fixed ed25519 key commented with the name.
func seedSSHKey(k SSHKey, at stamp) *sshKey {
	value := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGNvbXB1dGV0ZXN0LWNhdGFsb2d1ZS1rZXktMDAwMDAw " + k.Name
	key, _ := readPublicKey(value)
	key.ID, key.Name, key.CreatedAt, key.UpdatedAt = k.ID, k.Name, at, at
	return key
}

// readPublicKey reads an OpenSSH public key line, "<algorithm> <base64 blob> [comment]": a private
// key is 02053, a line of another shape 02048, an algorithm the fake does not know 02005. The value
// is kept byte for byte.
func readPublicKey(value string) (*sshKey, *apiError) {
	if strings.Contains(value, "PRIVATE KEY") {
		return nil, badRequest(codeProvidedPrivateKey, "value is a private key; send the public key")
	}
	fields := strings.Fields(value)
	if len(fields) < 2 {
		return nil, badRequest(codeSSHKeyImproperlyFormatted, "value must be \"<algorithm> <base64 key> [comment]\"")
	}
	size, known := keySizes[fields[0]]
	if !known {
		return nil, badRequest(codeInvalidSSHKey, "invalid ssh key: unknown algorithm %q", fields[0])
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		if blob, err = base64.RawStdEncoding.DecodeString(fields[1]); err != nil {
			return nil, badRequest(codeSSHKeyImproperlyFormatted, "the key of value is not base64")
		}
	}
	if fields[0] == "ssh-rsa" {
		size = rsaBits(blob)
	}
	sum := sha256.Sum256(blob)
	return &sshKey{sshKeyBody{Value: value, Type: fields[0], Size: size,
		Fingerprint: "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])}}, nil
}

// rsaBits is the bit length of an RSA public key's modulus (the blob is string "ssh-rsa", mpint e,
// mpint n), 0 when the blob is not of that shape.
func rsaBits(blob []byte) int {
	var parts [][]byte
	for len(blob) >= 4 && len(parts) < 3 {
		n := binary.BigEndian.Uint32(blob)
		if uint64(n) > uint64(len(blob)-4) {
			return 0
		}
		parts = append(parts, blob[4:4+n])
		blob = blob[4+n:]
	}
	if len(parts) != 3 {
		return 0
	}
	return new(big.Int).SetBytes(parts[2]).BitLen()
}

func (e *Engine) sshKey(id string) (*sshKey, *apiError) {
	k, ok := e.sshKeys.get(id)
	if !ok {
		return nil, notFound(codeSSHKeyNotFound, "ssh key %q not found", id)
	}
	return k, nil
}

func (e *Engine) createSSHKey(c *call) (int, any, *apiError) {
	o, err := parseBody(c.body, "name", "value")
	if err != nil {
		return 0, nil, err
	}
	var name, value string
	if err := firstError(o.str("name", &name), o.str("value", &value)); err != nil {
		return 0, nil, err
	}
	switch {
	case strings.TrimSpace(name) == "":
		return 0, nil, missing("name")
	case strings.TrimSpace(value) == "":
		return 0, nil, missing("value")
	}
	k, err := readPublicKey(value)
	if err != nil {
		return 0, nil, err
	}
	if err := e.quota(quotaSSHKeys); err != nil {
		return 0, nil, err
	}
	k.ID, k.Name, k.CreatedAt, k.UpdatedAt = e.newID("key"), name, stamp(c.now), stamp(c.now)
	e.sshKeys.add(k.ID, k)
	return http.StatusCreated, &k.sshKeyBody, nil
}

func (e *Engine) listSSHKeys(c *call) (int, any, *apiError) {
	return pageOf(c, "ssh_keys", e.sshKeys.all(), func(k *sshKey) *sshKeyBody { return &k.sshKeyBody })
}

func (e *Engine) getSSHKey(c *call) (int, any, *apiError) {
	k, err := e.sshKey(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, &k.sshKeyBody, nil
}

// updateSSHKey renames a key; the instances that show it show the new name. The extended document
// does not say whether an empty body is refused: the fake accepts it and changes nothing.
func (e *Engine) updateSSHKey(c *call) (int, any, *apiError) {
	k, err := e.sshKey(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	name, set, err := readRename(c.body)
	if err != nil {
		return 0, nil, err
	}
	if set {
		k.Name = name
		k.UpdatedAt = stamp(c.now)
		for _, in := range e.instances.all() {
			renameRef(in.SSHKeys, k.ID, name)
		}
	}
	return http.StatusOK, &k.sshKeyBody, nil
}

// deleteSSHKey removes a key. A key only matters when an instance is created, so instances that
// were created with it keep showing it.
func (e *Engine) deleteSSHKey(c *call) (int, any, *apiError) {
	k, err := e.sshKey(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	e.sshKeys.remove(k.ID)
	return http.StatusNoContent, nil, nil
}

// firstError is the first refusal of a list of field reads.
func firstError(errs ...*apiError) *apiError {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
