package compute

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/compute-sdk/compute-go/internal/memnet"
)

// The benchmarks measure the SDK's cost per call (retry machinery, limiter gate, envelope decode)
// against a baseline measured in the same run: the same request done by hand with net/http and
// encoding/json against the same in-memory server. Compare them as a ratio:
//
//	go test -run XXX -bench 'InstanceGet' -benchmem
func benchServer(b *testing.B) (string, *http.Client) {
	body := golden(b, "instance_get_response.json")
	srv, hc, closeAll := memnet.NewServer(serveJSON(body))
	b.Cleanup(closeAll)
	return srv.URL, hc
}

// BenchmarkInstanceGetSDK is c.Instances.Get with the limiter off.
func BenchmarkInstanceGetSDK(b *testing.B) {
	url, hc := benchServer(b)
	c, err := NewClient(testToken, WithBaseURL(url), WithHTTPClient(hc), WithoutRateLimit())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Instances.Get(ctx, "i-1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstanceGetBaseline is the same GET written by hand: the floor the SDK is measured against.
func BenchmarkInstanceGetBaseline(b *testing.B) {
	url, hc := benchServer(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequestWithContext(ctx, "GET", url+"/compute/v1/instances/i-1", nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var out struct {
			Instance *Instance `json:"instance"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err != nil || out.Instance == nil {
			b.Fatal("decode", err)
		}
	}
}
