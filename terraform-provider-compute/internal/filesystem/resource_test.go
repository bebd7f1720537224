package filesystem_test

import (
	"context"
	"fmt"
	"testing"

	compute "github.com/compute-sdk/compute-go"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// TestAccFilesystem runs the standard tests: lifecycle (a growth and a description in place, a new
// region replaces), drift, a lost create, a gateway's 404.
func TestAccFilesystem(t *testing.T) {
	acctest.Standard(t, acctest.Kind{
		Type: "compute_filesystem",
		Config: func(name, step string) string {
			region, size, desc := "NORD-NO-KRS-1", 50, "Example filesystem"
			switch step {
			case "update":
				size, desc = 60, "Shared data"
			case "replace":
				region, size, desc = "EUC-DE-MUC-1", 60, "Shared data"
			}
			return fmt.Sprintf(`
resource "compute_filesystem" "test" {
  name        = %q
  description = %q
  region      = %q
  size        = %d
  type        = "vast"
  %s
}
`, name, desc, region, size, acctest.Timeouts)
		},
		CreatePath: "/compute/v1/filesystems",
		GetPath:    func(id string) string { return "/compute/v1/filesystems/" + id },
		Count: acctest.Counter(func(c *compute.Client) func(context.Context, string) ([]compute.Filesystem, error) {
			return c.Filesystems.FindByName
		}),
		Delete: func(ctx context.Context, c *compute.Client, id string) error {
			return c.Filesystems.DeleteAndWait(ctx, id)
		},
	})
}
