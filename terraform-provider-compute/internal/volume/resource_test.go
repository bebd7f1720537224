package volume_test

import (
	"context"
	"fmt"
	"testing"

	compute "github.com/compute-sdk/compute-go"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// TestAccVolume runs the standard tests: lifecycle (a rename and a growth in place, a new type
// replaces), drift, a lost create, a gateway's 404.
func TestAccVolume(t *testing.T) {
	acctest.Standard(t, acctest.Kind{
		Type: "compute_volume",
		Config: func(name, step string) string {
			size, typ := 20, "hdd"
			switch step {
			case "update":
				size = 30
			case "replace":
				size, typ = 30, "ssd"
			}
			return fmt.Sprintf(`
resource "compute_volume" "test" {
  name   = %q
  region = "NORD-NO-KRS-1"
  size   = %d
  type   = %q
  %s
}
`, name, size, typ, acctest.Timeouts)
		},
		CreatePath: "/compute/v1/volumes",
		GetPath:    func(id string) string { return "/compute/v1/volumes/" + id },
		Count: acctest.Counter(func(c *compute.Client) func(context.Context, string) ([]compute.Volume, error) {
			return c.Volumes.FindByName
		}),
		Delete: func(ctx context.Context, c *compute.Client, id string) error {
			return c.Volumes.DeleteAndWait(ctx, id)
		},
	})
}
