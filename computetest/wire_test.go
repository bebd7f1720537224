package computetest_test

import (
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Raw-wire tests of the operations of the extended document: what a client that is not this SDK
// (the service's own Go client, its Terraform provider) sees on the wire.

// ed25519Key is a public key line with a comment that holds two spaces and a trailing space, so
// that a server that re-formats the value is caught.
const ed25519Key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl deploy  key "

// rsaKey is an ssh-rsa public key line whose modulus has 3072 bits.
func rsaKey() string {
	field := func(b []byte) []byte { return binary.BigEndian.AppendUint32(nil, uint32(len(b))) }
	n := make([]byte, 385) // a leading zero, then 3072 bits with the top one set
	n[1] = 0xc1
	var blob []byte
	for _, part := range [][]byte{[]byte("ssh-rsa"), {1, 0, 1}, n} {
		blob = append(append(blob, field(part)...), part...)
	}
	return "ssh-rsa " + base64.StdEncoding.EncodeToString(blob)
}

// wrapped is the object under key in a raw response, failing the test if it is not there.
func (a rawResponse) wrapped(t *testing.T, key string) map[string]any {
	t.Helper()
	m := a.object(t)
	inner, ok := m[key].(map[string]any)
	require.True(t, ok, "no %q object in %s", key, a.Body)
	require.Len(t, m, 1, "only %q at the top level: %s", key, a.Body)
	return inner
}

func TestSSHKeysWire(t *testing.T) {
	t.Parallel()
	srv, _ := newFake(t)

	created := rawAuthed(t, srv, http.MethodPost, "/compute/v1/ssh-keys", map[string]any{"name": "deploy", "value": ed25519Key})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Body)
	key := created.object(t)
	assert.NotContains(t, key, "ssh_key", "an SSH key is never wrapped")
	id, _ := key["id"].(string)
	require.NotEmpty(t, id)
	assert.Equal(t, "deploy", key["name"])
	assert.Equal(t, ed25519Key, key["value"], "the value comes back byte for byte")
	assert.Regexp(t, `^SHA256:[A-Za-z0-9+/]{43}$`, key["fingerprint"])
	assert.Equal(t, "ssh-ed25519", key["type"])
	assert.Equal(t, float64(256), key["size"])
	for _, f := range []string{"created_at", "updated_at"} {
		_, err := time.Parse(time.RFC3339, key[f].(string))
		assert.NoError(t, err, f)
	}

	got := rawAuthed(t, srv, http.MethodGet, "/compute/v1/ssh-keys/"+id, nil)
	require.Equal(t, http.StatusOK, got.Status)
	assert.JSONEq(t, string(created.Body), string(got.Body))

	rsa := rawAuthed(t, srv, http.MethodPost, "/compute/v1/ssh-keys", map[string]any{"name": "old", "value": rsaKey()}).object(t)
	assert.Equal(t, "ssh-rsa", rsa["type"])
	assert.Equal(t, float64(3072), rsa["size"], "an RSA key's size is its modulus in bits")
	assert.NotEqual(t, key["fingerprint"], rsa["fingerprint"])

	renamed := rawAuthed(t, srv, http.MethodPatch, "/compute/v1/ssh-keys/"+id, map[string]any{"name": "deploy-2"})
	require.Equal(t, http.StatusOK, renamed.Status)
	assert.Equal(t, "deploy-2", renamed.object(t)["name"])
	assert.Equal(t, ed25519Key, renamed.object(t)["value"])
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/ssh-keys/"+id, map[string]any{"name": " "}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)

	// An instance shows its keys as {id, name}, with the key's current name.
	in := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", map[string]any{
		"name": "web", "hostname": "web", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{id},
	})
	require.Equal(t, http.StatusCreated, in.Status, "%s", in.Body)
	assert.Equal(t, []any{map[string]any{"id": id, "name": "deploy-2"}}, in.wrapped(t, "instance")["ssh_keys"])

	list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/ssh-keys?per_page=2&page=2", nil).object(t)
	assert.Equal(t, float64(4), list["total_count"], "two catalogue keys and two created")
	assert.Equal(t, float64(2), list["page"])
	assert.Len(t, list["ssh_keys"], 2)

	for _, tc := range []struct {
		value  string
		status int
		code   compute.ErrorCode
	}{
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", 400, compute.CodePrivateKeyProvided},
		{"not-a-key", 400, compute.CodeSSHKeyMalformed},
		{"ssh-ed25519 !!!not-base64!!!", 400, compute.CodeSSHKeyMalformed},
		{"ssh-dss AAAAB3NzaC1kc3MAAACBAP", 400, compute.CodeInvalidSSHKey},
		{"", 400, compute.CodeMissingParameters},
	} {
		rawAuthed(t, srv, http.MethodPost, "/compute/v1/ssh-keys", map[string]any{"name": "bad", "value": tc.value}).
			requireError(t, tc.status, tc.code)
	}
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/ssh-keys", map[string]any{"name": "bad", "value": ed25519Key, "comment": "x"}).
		requireError(t, http.StatusBadRequest, compute.CodeMalformedRequest)

	del := rawAuthed(t, srv, http.MethodDelete, "/compute/v1/ssh-keys/"+id, nil)
	assert.Equal(t, http.StatusNoContent, del.Status)
	assert.Empty(t, del.Body)
	assert.Empty(t, del.Header.Get("Content-Type"), "a 204 has no body and no content type")
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/ssh-keys/"+id, nil).requireError(t, http.StatusNotFound, compute.CodeSSHKeyNotFound)
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/ssh-keys/"+id, map[string]any{"name": "x"}).requireError(t, http.StatusNotFound, compute.CodeSSHKeyNotFound)
	rawAuthed(t, srv, http.MethodDelete, "/compute/v1/ssh-keys/"+id, nil).requireError(t, http.StatusNotFound, compute.CodeSSHKeyNotFound)

	// A deleted key cannot be given to a new instance.
	refused := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", map[string]any{
		"name": "web-2", "hostname": "web-2", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{id},
	})
	require.Equal(t, http.StatusBadRequest, refused.Status, "%s", refused.Body)
	assert.Equal(t, compute.CodeSSHKeyNotFound, refused.errorCode(t))
}

func TestVolumesWire(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithDurations(computetest.UniformDurations(time.Minute)))
	t.Cleanup(srv.Close)

	created := rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes",
		map[string]any{"name": "data", "description": "logs", "region": "NORD-NO-KRS-1", "size": 20})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Body)
	vol := created.wrapped(t, "volume")
	id := vol["id"].(string)
	assert.Equal(t, "creating", vol["status"])
	assert.Equal(t, "ssd", vol["type"], "the fake's default type")
	assert.Equal(t, float64(20), vol["size"])
	assert.Equal(t, "logs", vol["description"])
	assert.Equal(t, []any{}, vol["instances"], "instances is always an array")

	srv.Advance(time.Minute)
	vol = rawAuthed(t, srv, http.MethodGet, "/compute/v1/volumes/"+id, nil).wrapped(t, "volume")
	assert.Equal(t, "created", vol["status"], "the service's statuses say created where the contract's example says available")

	rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes", map[string]any{"name": "x", "region": "NORD-NO-KRS-1", "size": 1, "type": "nvme"}).
		requireError(t, http.StatusBadRequest, compute.CodeVolumeTypeUnavailable)
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes", map[string]any{"name": "x", "region": "NORD-NO-KRS-1", "size": 0}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)

	// A volume only grows.
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/volumes/"+id, map[string]any{"size": 10}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
	grown := rawAuthed(t, srv, http.MethodPatch, "/compute/v1/volumes/"+id, map[string]any{"size": 30, "name": "data-2"}).wrapped(t, "volume")
	assert.Equal(t, float64(30), grown["size"])
	assert.Equal(t, "data-2", grown["name"])
	assert.Equal(t, "logs", grown["description"], "only supplied fields change")

	// Attach with the one-item form, alone in the update body; both sides show the relation.
	in := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", map[string]any{
		"name": "db", "hostname": "db", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{"key-laptop"},
	}).wrapped(t, "instance")
	inID := in["id"].(string)
	srv.Advance(time.Minute)
	upd := rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+inID, map[string]any{"volumes": map[string]any{"attach": id}})
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Body)
	assert.Equal(t, []any{map[string]any{"id": id, "name": "data-2"}}, upd.wrapped(t, "instance")["volumes"])
	vol = rawAuthed(t, srv, http.MethodGet, "/compute/v1/volumes/"+id, nil).wrapped(t, "volume")
	assert.Equal(t, []any{map[string]any{"id": inID, "name": "db"}}, vol["instances"])
	assert.Equal(t, "created", vol["status"])

	rawAuthed(t, srv, http.MethodDelete, "/compute/v1/volumes/"+id, nil).requireError(t, http.StatusBadRequest, compute.CodeAttachedVolumeNotDeletable)

	upd = rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+inID, map[string]any{"volumes": map[string]any{"detach": id}})
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Body)
	assert.Equal(t, []any{}, upd.wrapped(t, "instance")["volumes"])
	assert.Equal(t, []any{}, rawAuthed(t, srv, http.MethodGet, "/compute/v1/volumes/"+id, nil).wrapped(t, "volume")["instances"])
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+inID, map[string]any{"volumes": map[string]any{"detach": id}}).
		requireError(t, http.StatusBadRequest, compute.CodeVolumeDetachFailed)
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+inID, map[string]any{"volumes": map[string]any{"attach": id, "detach": id}}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)

	// Deleting the instance releases its volumes (the provider deletes the instance, waits for its
	// 404, then deletes the volume).
	require.Equal(t, http.StatusOK, rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+inID,
		map[string]any{"volumes": map[string]any{"attach": id}}).Status)
	require.Equal(t, http.StatusNoContent, rawAuthed(t, srv, http.MethodDelete, "/compute/v1/instances/"+inID, nil).Status)
	srv.Advance(time.Minute)
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/"+inID, nil).requireError(t, http.StatusNotFound, compute.CodeInstanceNotFound)
	assert.Equal(t, []any{}, rawAuthed(t, srv, http.MethodGet, "/compute/v1/volumes/"+id, nil).wrapped(t, "volume")["instances"])

	list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/volumes", nil).object(t)
	assert.Equal(t, float64(6), list["total_count"], "five catalogue volumes and one created")
	assert.Len(t, list["volumes"], 6)

	del := rawAuthed(t, srv, http.MethodDelete, "/compute/v1/volumes/"+id, nil)
	assert.Equal(t, http.StatusNoContent, del.Status)
	assert.Empty(t, del.Body)
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/volumes/"+id, nil).requireError(t, http.StatusNotFound, compute.CodeVolumeNotFound)
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/volumes/"+id, map[string]any{"name": "x"}).requireError(t, http.StatusNotFound, compute.CodeVolumeNotFound)
}

func TestFilesystemsWire(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithDurations(computetest.UniformDurations(time.Minute)))
	t.Cleanup(srv.Close)

	created := rawAuthed(t, srv, http.MethodPost, "/compute/v1/filesystems",
		map[string]any{"name": "shared", "region": "NORD-NO-KRS-1", "size": 100})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Body)
	fs := created.wrapped(t, "filesystem")
	id := fs["id"].(string)
	assert.Equal(t, "creating", fs["status"])
	assert.Equal(t, "vast", fs["type"])
	assert.Equal(t, "", fs["description"])
	require.Contains(t, fs, "mount_base_path", "the mount fields are always present")
	assert.Nil(t, fs["mount_base_path"], "no mount path before the filesystem is created")
	assert.Nil(t, fs["mount_endpoint_range"])

	srv.Advance(time.Minute)
	fs = rawAuthed(t, srv, http.MethodGet, "/compute/v1/filesystems/"+id, nil).wrapped(t, "filesystem")
	assert.Equal(t, "created", fs["status"])
	assert.NotEmpty(t, fs["mount_base_path"], "a created filesystem shows where it is mounted")
	assert.NotEmpty(t, fs["mount_endpoint_range"])

	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/filesystems/"+id, map[string]any{"size": 50}).
		requireError(t, http.StatusBadRequest, compute.CodeFilesystemResizeInvalid)
	upd := rawAuthed(t, srv, http.MethodPatch, "/compute/v1/filesystems/"+id, map[string]any{"description": "team share", "size": 200}).wrapped(t, "filesystem")
	assert.Equal(t, float64(200), upd["size"])
	assert.Equal(t, "team share", upd["description"])
	assert.Equal(t, "shared", upd["name"])

	rawAuthed(t, srv, http.MethodPost, "/compute/v1/filesystems", map[string]any{"name": "x", "region": "NORD-NO-KRS-1", "size": 1, "type": "nfs"}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/filesystems", map[string]any{"name": "x", "region": "MARS-1", "size": 1}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)

	list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/filesystems", nil).object(t)
	assert.Equal(t, float64(1), list["total_count"])

	del := rawAuthed(t, srv, http.MethodDelete, "/compute/v1/filesystems/"+id, nil)
	assert.Equal(t, http.StatusNoContent, del.Status)
	assert.Empty(t, del.Body)
	// The contract has no filesystem-not-found code: the 404 carries 02004.
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/filesystems/"+id, nil).requireError(t, http.StatusNotFound, compute.CodeBadRequest)
	rawAuthed(t, srv, http.MethodDelete, "/compute/v1/filesystems/"+id, nil).requireError(t, http.StatusNotFound, compute.CodeBadRequest)
}

func TestSnapshotCollectionWire(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithDurations(computetest.UniformDurations(time.Minute)))
	t.Cleanup(srv.Close)

	imported := rawAuthed(t, srv, http.MethodPost, "/compute/v1/snapshots",
		map[string]any{"name": "golden", "region": "NORD-NO-KRS-1", "size": 10, "url": "https://images.example.com/golden.raw.zst"})
	require.Equal(t, http.StatusCreated, imported.Status, "%s", imported.Body)
	snap := imported.wrapped(t, "snapshot")
	id := snap["id"].(string)
	assert.Equal(t, "creating", snap["status"])
	assert.Equal(t, "linux", snap["os_type"], "the fake's default os_type")
	assert.NotContains(t, snap, "source_instance_id", "an imported snapshot has no source")
	assert.NotContains(t, snap, "source_snapshot_id")

	// A snapshot that is still being imported cannot be cloned.
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/snapshots/"+id+"/clone", map[string]any{"name": "copy", "region": "EUC-DE-MUC-1"}).
		requireError(t, http.StatusBadRequest, compute.CodeNotAllowed)
	srv.Advance(time.Minute)
	snap = rawAuthed(t, srv, http.MethodGet, "/compute/v1/snapshots/"+id, nil).wrapped(t, "snapshot")
	assert.Equal(t, "created", snap["status"])

	cloned := rawAuthed(t, srv, http.MethodPost, "/compute/v1/snapshots/"+id+"/clone", map[string]any{"name": "copy", "region": "EUC-DE-MUC-1"})
	require.Equal(t, http.StatusCreated, cloned.Status, "%s", cloned.Body)
	clone := cloned.wrapped(t, "snapshot")
	assert.Equal(t, id, clone["source_snapshot_id"])
	assert.Equal(t, "EUC-DE-MUC-1", clone["region"])
	assert.Equal(t, float64(10), clone["size"])

	renamed := rawAuthed(t, srv, http.MethodPatch, "/compute/v1/snapshots/"+id, map[string]any{"name": "golden-v2"}).wrapped(t, "snapshot")
	assert.Equal(t, "golden-v2", renamed["name"])
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/snapshots/"+id, map[string]any{"name": ""}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)

	// An instance booted from the snapshot keeps it in use.
	in := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", map[string]any{
		"name": "from-snap", "hostname": "from-snap", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": id, "ssh_keys": []string{"key-laptop"},
	})
	require.Equal(t, http.StatusCreated, in.Status, "%s", in.Body)
	rawAuthed(t, srv, http.MethodDelete, "/compute/v1/snapshots/"+id, nil).requireError(t, http.StatusBadRequest, compute.CodeSnapshotInUse)

	// The per-instance snapshot shows up in the collection too.
	inID := in.wrapped(t, "instance")["id"].(string)
	srv.Advance(time.Minute)
	taken := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances/"+inID+"/snapshots", map[string]any{"name": "nightly"})
	require.Equal(t, http.StatusCreated, taken.Status, "%s", taken.Body)
	list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/snapshots", nil).object(t)
	assert.Equal(t, float64(3), list["total_count"])

	require.Equal(t, http.StatusNoContent, rawAuthed(t, srv, http.MethodDelete, "/compute/v1/instances/"+inID, nil).Status)
	srv.Advance(time.Minute)
	del := rawAuthed(t, srv, http.MethodDelete, "/compute/v1/snapshots/"+id, nil)
	assert.Equal(t, http.StatusNoContent, del.Status, "%s", del.Body)
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/snapshots/"+id, nil).requireError(t, http.StatusNotFound, compute.CodeSnapshotNotFound)
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/snapshots/"+id+"/clone", map[string]any{"name": "c", "region": "NORD-NO-KRS-1"}).
		requireError(t, http.StatusNotFound, compute.CodeSnapshotNotFound)

	rawAuthed(t, srv, http.MethodPost, "/compute/v1/snapshots",
		map[string]any{"name": "x", "region": "NORD-NO-KRS-1", "size": 10, "url": "ftp://example.com/x.raw"}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/snapshots",
		map[string]any{"name": "x", "region": "NORD-NO-KRS-1", "size": 10, "url": "https://example.com/x.raw", "os_type": "plan9"}).
		requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
}

func TestInstanceExtraFieldsWire(t *testing.T) {
	t.Parallel()
	srv, _ := newFake(t)

	metadata := map[string]any{
		"startup_script": "#!/bin/sh\necho hi\n",
		"user_data":      []any{map[string]any{"type": "cloud-config", "filename": "init.yaml", "content": "packages: [nginx]"}},
	}
	created := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", map[string]any{
		"name": "web", "hostname": "web", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{"key-laptop"},
		"billing_type": "prepaid-monthly", "destroy_on_shutdown": true, "public_ipv6": true,
		"reservation_id": "res-krs-small", "reuse_long_term_subscription": "sub-123", "metadata": metadata,
	})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Body)
	in := created.wrapped(t, "instance")
	id := in["id"].(string)
	assert.Equal(t, "res-krs-small", in["reservation_id"])

	um := rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/"+id+"/user-metadata", nil)
	require.Equal(t, http.StatusOK, um.Status)
	assert.Equal(t, metadata, um.object(t), "user metadata is the metadata object given at create")

	plain := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", map[string]any{
		"name": "plain", "hostname": "plain", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{"key-laptop"},
	}).wrapped(t, "instance")
	assert.Nil(t, plain["reservation_id"])
	assert.Equal(t, map[string]any{}, rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/"+plain["id"].(string)+"/user-metadata", nil).object(t))
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/nope/user-metadata", nil).requireError(t, http.StatusNotFound, compute.CodeInstanceNotFound)

	for _, tc := range []struct {
		field string
		value any
		code  compute.ErrorCode
	}{
		{"billing_type", "weekly", compute.CodeBadRequest},
		{"reservation_id", "res-nope", compute.CodeReservationNotFound},
		{"destroy_on_shutdown", "yes", compute.CodeMalformedRequest},
		{"metadata", map[string]any{"user_data": []any{map[string]any{"type": "x"}}}, compute.CodeMissingParameters},
	} {
		body := map[string]any{
			"name": "bad", "hostname": "bad", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
			"image": "img-ubuntu-2404", "ssh_keys": []string{"key-laptop"}, tc.field: tc.value,
		}
		a := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", body)
		assert.Equal(t, http.StatusBadRequest, a.Status, "%s: %s", tc.field, a.Body)
		assert.Equal(t, tc.code, a.errorCode(t), tc.field)
	}

	// The security group attach and detach forms, each alone in the body.
	sg := rawAuthed(t, srv, http.MethodPost, "/compute/v1/security-groups", map[string]any{"name": "web", "region": "NORD-NO-KRS-1", "rules": []any{}}).
		wrapped(t, "security_group")["id"].(string)
	pid := plain["id"].(string)
	upd := rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+pid, map[string]any{"security_groups": map[string]any{"attach": sg}})
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Body)
	assert.Contains(t, upd.wrapped(t, "instance")["security_groups"], map[string]any{"id": sg, "name": "web"})
	upd = rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+pid, map[string]any{"security_groups": map[string]any{"detach": sg}})
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Body)
	assert.NotContains(t, upd.wrapped(t, "instance")["security_groups"], map[string]any{"id": sg, "name": "web"})
	rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+pid, map[string]any{"security_groups": map[string]any{"detach": sg}}).
		requireError(t, http.StatusBadRequest, compute.CodeSecurityGroupDetachFailed)

	upd = rawAuthed(t, srv, http.MethodPatch, "/compute/v1/instances/"+pid, map[string]any{"reservation_id": "res-krs-small"})
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Body)
	assert.Equal(t, "res-krs-small", upd.wrapped(t, "instance")["reservation_id"])
}

func TestQuotasCountAndRefuseWire(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithLimits(computetest.Limits{MaxVolumes: 6, MaxSSHKeys: 3}))
	t.Cleanup(srv.Close)

	quota := func(key string) map[string]any {
		t.Helper()
		a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/quotas", nil)
		require.Equal(t, http.StatusOK, a.Status)
		m := a.object(t)
		require.Len(t, m, 1, "only quotas at the top level: %s", a.Body)
		for _, q := range m["quotas"].([]any) {
			if q := q.(map[string]any); q["key"] == key {
				return q
			}
		}
		t.Fatalf("no quota %q in %s", key, a.Body)
		return nil
	}
	assert.Equal(t, float64(6), quota("volumes")["capacity"])
	assert.Equal(t, float64(5), quota("volumes")["used"], "the catalogue's five volumes")
	assert.Equal(t, float64(1<<31-1), quota("instances")["capacity"], "no limit shows as the largest int32")
	assert.Equal(t, float64(0), quota("instances")["used"])

	vol := map[string]any{"name": "v", "region": "NORD-NO-KRS-1", "size": 1}
	require.Equal(t, http.StatusCreated, rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes", vol).Status)
	assert.Equal(t, float64(6), quota("volumes")["used"])
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes", vol).requireError(t, http.StatusBadRequest, compute.CodeMaxQuotaReached)

	require.Equal(t, http.StatusCreated, rawAuthed(t, srv, http.MethodPost, "/compute/v1/ssh-keys",
		map[string]any{"name": "k", "value": ed25519Key}).Status)
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/ssh-keys", map[string]any{"name": "k2", "value": ed25519Key}).
		requireError(t, http.StatusBadRequest, compute.CodeMaxQuotaReached)
	assert.Equal(t, float64(3), quota("ssh_keys")["used"])

	in := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", map[string]any{
		"name": "web", "hostname": "web", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{"key-laptop"},
	})
	require.Equal(t, http.StatusCreated, in.Status)
	q := quota("instances")
	assert.Equal(t, float64(1), q["used"])
	assert.Equal(t, []any{map[string]any{"flavor_name": "vcpu-2_memory-4g", "product_name": "instance", "unit": "count", "used": float64(1)}}, q["flavors"])
}

func TestReservationsAndAvailabilityWire(t *testing.T) {
	t.Parallel()
	srv, _ := newFake(t)

	res := rawAuthed(t, srv, http.MethodGet, "/compute/v1/reservations", nil)
	require.Equal(t, http.StatusOK, res.Status)
	assert.JSONEq(t, `{"reservations":[{"id":"res-krs-small","flavor_name":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1",
		"metadata":{"term":"12-month"},"quota":{"capacity":2,"used":0}}]}`, string(res.Body))

	body := map[string]any{
		"name": "r", "hostname": "r", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{"key-laptop"}, "reservation_id": "res-krs-small",
	}
	for range 2 {
		require.Equal(t, http.StatusCreated, rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", body).Status)
	}
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", body).requireError(t, http.StatusBadRequest, compute.CodeMaxQuotaReached)
	body["region"], body["type"] = "EUC-DE-MUC-1", "vcpu-2_memory-4g"
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", body).requireError(t, http.StatusBadRequest, compute.CodeInstanceConfigNotAllowed)
	res = rawAuthed(t, srv, http.MethodGet, "/compute/v1/reservations", nil)
	assert.Contains(t, string(res.Body), `"quota":{"capacity":2,"used":2}`)

	av := rawAuthed(t, srv, http.MethodGet, "/compute/v1/availability/NORD-NO-KRS-1/instances?placement=NONE", nil)
	require.Equal(t, http.StatusOK, av.Status, "%s", av.Body)
	a := av.wrapped(t, "availability")
	assert.Equal(t, "instances", a["type"])
	assert.Equal(t, "NORD-NO-KRS-1", a["region"])
	assert.Equal(t, "NONE", a["placement"])
	types := a["instance_types"].([]any)
	require.NotEmpty(t, types)
	available := map[string]any{}
	for _, it := range types {
		it := it.(map[string]any)
		available[it["type"].(string)] = it["available"]
	}
	assert.Equal(t, true, available["vcpu-2_memory-4g"])
	assert.Equal(t, false, available["vcpu-16_memory-128g_nvidia-h100-1"], "the GPU type runs only in EUC-DE-MUC-1")

	noPlacement := rawAuthed(t, srv, http.MethodGet, "/compute/v1/availability/NORD-NO-KRS-1/instances", nil).wrapped(t, "availability")
	assert.NotContains(t, noPlacement, "placement")
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/availability/MARS-1/instances", nil).requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/availability/NORD-NO-KRS-1/instances?placement=MOON", nil).
		requireError(t, http.StatusBadRequest, compute.CodeInvalidPlacementOption)
}

func TestFaultsAndRateLimitOnFamilyRoutes(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithRateLimit(0.001, 3))
	t.Cleanup(srv.Close)

	srv.FailNext(1, computetest.Match{Method: http.MethodPost, Path: "/compute/v1/volumes"},
		computetest.Fault{Status: http.StatusServiceUnavailable, Code: "09999", Message: "down"})
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes", map[string]any{"name": "v", "region": "NORD-NO-KRS-1", "size": 1}).
		requireError(t, http.StatusServiceUnavailable, "09999")
	list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/volumes", nil).object(t)
	assert.Equal(t, float64(5), list["total_count"], "the failed create created nothing")

	srv.FailNext(1, computetest.Match{Path: "/compute/v1/ssh-keys/*"},
		computetest.Fault{Status: http.StatusBadGateway, Code: "09998", Message: "proxy"})
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/ssh-keys/key-ci", nil).requireError(t, http.StatusBadGateway, "09998")

	// The burst of 3 is spent (a faulted request counts); the next request, to a new route, is refused.
	limited := rawAuthed(t, srv, http.MethodGet, "/compute/v1/quotas", nil)
	assert.Equal(t, http.StatusTooManyRequests, limited.Status, "%s", limited.Body)
	assert.NotEmpty(t, limited.Header.Get("Retry-After"))
}

func TestCatalogShowsTheLiveFamily(t *testing.T) {
	t.Parallel()
	srv, _ := newFake(t)

	key := rawAuthed(t, srv, http.MethodPost, "/compute/v1/ssh-keys", map[string]any{"name": "deploy", "value": ed25519Key}).object(t)
	vol := rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes", map[string]any{"name": "scratch", "region": "EUC-DE-MUC-1", "size": 5}).
		wrapped(t, "volume")
	require.Equal(t, http.StatusNoContent, rawAuthed(t, srv, http.MethodDelete, "/compute/v1/ssh-keys/key-ci", nil).Status)

	cat := srv.Catalog()
	var keys, vols []string
	for _, k := range cat.SSHKeys {
		keys = append(keys, k.ID)
	}
	for _, v := range cat.Volumes {
		vols = append(vols, v.ID)
	}
	assert.Equal(t, []string{"key-laptop", key["id"].(string)}, keys)
	assert.Contains(t, vols, vol["id"].(string))
	assert.Len(t, vols, 6)
}

// An update with an empty body changes nothing and responds 200 (the extended document refuses
// nothing there), unlike a floating IP update, which the contract refuses with 02003.
func TestFamilyEmptyUpdateChangesNothing(t *testing.T) {
	t.Parallel()
	srv, _ := newFake(t)
	vol := rawAuthed(t, srv, http.MethodPost, "/compute/v1/volumes", map[string]any{"name": "v", "region": "NORD-NO-KRS-1", "size": 1}).wrapped(t, "volume")
	fs := rawAuthed(t, srv, http.MethodPost, "/compute/v1/filesystems", map[string]any{"name": "f", "region": "NORD-NO-KRS-1", "size": 1}).wrapped(t, "filesystem")
	snap := rawAuthed(t, srv, http.MethodPost, "/compute/v1/snapshots",
		map[string]any{"name": "s", "region": "NORD-NO-KRS-1", "size": 1, "url": "https://example.com/s.raw"}).wrapped(t, "snapshot")
	for _, path := range []string{
		"/compute/v1/ssh-keys/key-ci", "/compute/v1/volumes/" + vol["id"].(string),
		"/compute/v1/filesystems/" + fs["id"].(string), "/compute/v1/snapshots/" + snap["id"].(string),
	} {
		before := rawAuthed(t, srv, http.MethodGet, path, nil)
		after := rawAuthed(t, srv, http.MethodPatch, path, "{}")
		require.Equal(t, http.StatusOK, after.Status, "%s: %s", path, after.Body)
		assert.JSONEq(t, string(before.Body), string(after.Body), path)
	}
}
