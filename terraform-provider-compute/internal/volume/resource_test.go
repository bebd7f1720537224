package volume_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

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

const volumeConfig = `
resource "compute_volume" "test" {
  name   = "attached"
  region = "NORD-NO-KRS-1"
  size   = %d
  type   = "hdd"
  ` + acctest.Timeouts + `
}
`

// TestAccVolume_destroyDetaches destroys a volume that an instance made outside Terraform holds:
// the provider detaches it first, as the service requires, then deletes it; and it refuses at plan
// time a size below the volume's.
func TestAccVolume_destroyDetaches(t *testing.T) {
	srv := acctest.Server(t)
	c := acctest.Client(t, srv)
	ctx := context.Background()
	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "holder", Hostname: "holder", Region: "NORD-NO-KRS-1",
		Image: "ubuntu-24.04", Type: "vcpu-2_memory-4g", SSHKeys: []string{"key-ci"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive); err != nil {
		t.Fatal(err)
	}
	var id string
	acctest.Test(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if _, err := c.Volumes.Get(ctx, id); !compute.Gone(err) {
				return fmt.Errorf("the volume %s is not gone: %v", id, err)
			}
			in, err := c.Instances.Get(ctx, inst.ID)
			if err != nil {
				return err
			}
			if len(in.Volumes) != 0 {
				return fmt.Errorf("the instance still holds %v", in.Volumes)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: acctest.Provider(srv) + fmt.Sprintf(volumeConfig, 20),
				Check: resource.TestCheckResourceAttrWith("compute_volume.test", "id", func(v string) error {
					id = v
					_, err := c.Instances.AttachVolume(ctx, inst.ID, v)
					return err
				}),
			},
			{
				Config:      acctest.Provider(srv) + fmt.Sprintf(volumeConfig, 10),
				ExpectError: regexp.MustCompile(`(?s)Volume cannot shrink.*holds 20 GiB`),
			},
		},
	})
}
