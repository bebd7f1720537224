package snapshot_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// source is the instance the snapshots are taken of.
func source(name string) string {
	return fmt.Sprintf(`
resource "compute_instance" "src" {
  name        = "src-%s"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu-24.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
  %s
}
`, name, acctest.Timeouts)
}

// TestAccSnapshot runs the standard tests on a snapshot of an instance: lifecycle (a rename in
// place, a replicated_region replaces), drift, a lost create, a gateway's 404.
func TestAccSnapshot(t *testing.T) {
	acctest.Standard(t, acctest.Kind{
		Type: "compute_snapshot",
		Config: func(name, step string) string {
			snapName, extra := name, ""
			switch step {
			case "update":
				snapName = name + "-renamed"
			case "replace":
				extra = `replicated_region = "EUC-DE-MUC-1"`
			}
			return source(name) + fmt.Sprintf(`
resource "compute_snapshot" "test" {
  name               = %q
  source_instance_id = compute_instance.src.id
  %s
  %s
}
`, snapName, extra, acctest.Timeouts)
		},
		CreatePath: "/compute/v1/instances/*/snapshots",
		GetPath:    func(id string) string { return "/compute/v1/snapshots/" + id },
		Count: acctest.Counter(func(c *compute.Client) func(context.Context, string) ([]compute.Snapshot, error) {
			return c.Snapshots.FindByName
		}),
		Delete: func(ctx context.Context, c *compute.Client, id string) error {
			return c.Snapshots.DeleteAndWait(ctx, id)
		},
		ImportIgnore: []string{"replicated_region"},
	})
}

// TestAccSnapshot_copy copies a snapshot to another region (source_snapshot_id with region), and
// refuses at plan time a source that is neither or both, and a copy without its region.
func TestAccSnapshot_copy(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: acctest.Provider(srv) + source("copy") + `
resource "compute_snapshot" "base" {
  name               = "base"
  source_instance_id = compute_instance.src.id
}
resource "compute_snapshot" "test" {
  name               = "copy"
  source_snapshot_id = compute_snapshot.base.id
  region             = "EUC-DE-MUC-1"
}
`,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("compute_snapshot.test", "region", "EUC-DE-MUC-1"),
					resource.TestCheckResourceAttrPair("compute_snapshot.test", "source_snapshot_id", "compute_snapshot.base", "id"),
				),
			},
			{
				Config:      acctest.Provider(srv) + `resource "compute_snapshot" "bad" { name = "neither" }`,
				ExpectError: regexp.MustCompile(`(?s)Give either source_instance_id.*source_snapshot_id`),
			},
			{
				Config: acctest.Provider(srv) + `
resource "compute_snapshot" "bad" {
  name               = "noregion"
  source_snapshot_id = "snap-x"
}
`,
				ExpectError: regexp.MustCompile(`(?s)needs the region`),
			},
		},
	})
}
