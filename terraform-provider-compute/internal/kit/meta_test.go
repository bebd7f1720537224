package kit

import (
	"context"
	"fmt"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

// TestTheCreatesOfOneRunShareTheirLookups: thirty creates one after another, as an apply makes
// them, with the options the provider gives every create (with adopt_existing and without): one
// walk of the list answers the lookups before all of them, instead of a walk each.
func TestTheCreatesOfOneRunShareTheirLookups(t *testing.T) {
	for _, adopt := range []bool{false, true} {
		t.Run(fmt.Sprint("adopt_existing=", adopt), func(t *testing.T) {
			srv := computetest.NewServer()
			defer srv.Close()
			m := NewMeta(srv.Client(compute.WithoutRateLimit()), adopt, nil)
			for i := range 30 {
				_, err := m.Client.Instances.CreateOnce(context.Background(), &compute.InstanceCreateRequest{
					Name: fmt.Sprint("web-", i), Hostname: fmt.Sprint("web-", i), Region: "NORD-NO-KRS-1",
					Image: "ubuntu-24.04", Type: "vcpu-2_memory-4g", SSHKeys: []string{"key-ci"},
				}, m.Once()...)
				if err != nil {
					t.Fatal(err)
				}
			}
			lists := 0
			for _, r := range srv.Requests() {
				if r.Method == "GET" && r.Path == "/compute/v1/instances" {
					lists++
				}
			}
			if lists != 1 {
				t.Fatalf("30 creates read %d list pages, want 1: one walk for all their lookups", lists)
			}
		})
	}
}
