package fake

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math/big"
	"strings"
	"time"
)

// A key can always be deleted: it only matters when an instance is created, so the instances
// created with it keep showing it.
var sshKeySpec = spec{collection: "ssh-keys", quota: "ssh_keys", code: codeMaxQuotaReached,
	notFound: func(id string) *Error { return notFound(codeSSHKeyNotFound, "ssh key %q not found", id) }}

// sshKey is an SSH key as the API shows it. It is the only resource whose single-object responses
// are the object itself, not wrapped under a key. It has no status: it exists from its create to
// its delete.
type sshKey struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Value       string `json:"value"`
	Fingerprint string `json:"fingerprint"`
	Type        string `json:"type"`
	Size        int    `json:"size"`
	CreatedAt   stamp  `json:"created_at"`
	UpdatedAt   stamp  `json:"updated_at"`
	lifecycle
}

func (k *sshKey) arrive(*state, string, time.Time) {}
func (k *sshKey) view(*state) any                  { return k }

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

// catalogSSHKey is a catalogue key as the API shows it: the catalogue names it only, so its value
// is a fixed ed25519 key commented with the name.
func catalogSSHKey(k SSHKey, at stamp) *sshKey {
	value := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGNvbXB1dGV0ZXN0LWNhdGFsb2d1ZS1rZXktMDAwMDAw " + k.Name
	key, _ := readPublicKey(value)
	key.ID, key.Name, key.CreatedAt, key.UpdatedAt = k.ID, k.Name, at, at
	return key
}

// readPublicKey reads an OpenSSH public key line, "<algorithm> <base64 blob> [comment]": a private
// key is 02053, a line of another shape 02048, an algorithm the fake does not know 02005. The value
// is kept byte for byte.
func readPublicKey(value string) (*sshKey, *Error) {
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
	return &sshKey{Value: value, Type: fields[0], Size: size,
		Fingerprint: "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])}, nil
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

// sshKeyRefs resolves an instance create's ssh_keys: a key that does not exist is 02047; one
// listed twice counts once.
func (s *state) sshKeyRefs(ids []string) ([]Ref, *Error) {
	out := []Ref{}
	for _, id := range ids {
		k, ok := s.sshKeys.find(id)
		if !ok {
			return nil, badRequest(codeSSHKeyNotFound, "ssh key %q not found", id)
		}
		if !hasRef(out, id) {
			out = append(out, Ref{ID: id, Name: k.Name})
		}
	}
	return out, nil
}
