package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

// FuzzDecodeVolume decodes arbitrary responses to Volumes.Create, a wrapped resource behind a POST.
func FuzzDecodeVolume(f *testing.F) {
	f.Add(string(golden(f, "volume_create_response.json")))
	f.Add(string(golden(f, "volume_get_response.json")))
	fuzzResource(f, "volume", true, func(c *Client) (*Volume, error) {
		return c.Volumes.Create(context.Background(), &VolumeCreateRequest{Name: "v", Region: "r", Size: 1})
	})
}

// FuzzDecodeSSHKey decodes arbitrary responses to SSHKeys.Get, the one resource that is not
// wrapped. The call returns a key or an error, never both nor neither; a key always has an ID; an
// error is never an *APIError (the status was a success); a decoded key, encoded again, decodes to
// the same JSON.
func FuzzDecodeSSHKey(f *testing.F) {
	f.Add(string(golden(f, "ssh_key_response.json")))
	f.Add(`{"id": "k-1", "value": "ssh-ed25519 AAAA\u00e9"}`)
	f.Add(`{"ssh_key": {"id": "k-1"}}`)
	f.Fuzz(func(t *testing.T, body string) {
		got, err := responding(t, http.StatusOK, body).SSHKeys.Get(context.Background(), "k-1")
		if (got == nil) == (err == nil) {
			t.Fatalf("key %v with error %v", got, err)
		}
		if err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				t.Fatalf("a 200 response gave an *APIError: %v", err)
			}
			return
		}
		if got.ID == "" {
			t.Fatalf("a key without an ID was returned from %q", body)
		}
		first, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("the decoded key does not encode: %v", err)
		}
		back, err := responding(t, http.StatusOK, string(first)).SSHKeys.Get(context.Background(), "k-1")
		if err != nil {
			t.Fatalf("the re-encoded key does not decode: %v\n%s", err, first)
		}
		second, _ := json.Marshal(back)
		if !bytes.Equal(first, second) {
			t.Fatalf("the key changed in a round trip:\n%s\n%s", first, second)
		}
	})
}
