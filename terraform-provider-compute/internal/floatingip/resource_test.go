package floatingip_test

import (
	"context"
	"fmt"
	"testing"

	compute "github.com/compute-sdk/compute-go"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// TestAccFloatingIP runs the standard tests: lifecycle (a description in place, a new region
// replaces), drift, a lost create, a gateway's 404.
func TestAccFloatingIP(t *testing.T) {
	acctest.Standard(t, acctest.Kind{
		Type: "compute_floating_ip",
		Config: func(name, step string) string {
			region, extra := "NORD-NO-KRS-1", `version = "ipv4"`
			switch step {
			case "update":
				extra = `description = "the web's address"`
			case "replace":
				region, extra = "EUC-DE-MUC-1", `description = "the web's address"`
			}
			return fmt.Sprintf(`
resource "compute_floating_ip" "test" {
  name   = %q
  region = %q
  %s
  %s
}
`, name, region, extra, acctest.Timeouts)
		},
		CreatePath: "/compute/v1/floating-ips",
		GetPath:    func(id string) string { return "/compute/v1/floating-ips/" + id },
		Count: acctest.Counter(func(c *compute.Client) func(context.Context, string) ([]compute.FloatingIP, error) {
			return c.FloatingIPs.FindByName
		}),
		Delete: func(ctx context.Context, c *compute.Client, id string) error {
			return c.FloatingIPs.DeleteAndWait(ctx, id)
		},
	})
}
