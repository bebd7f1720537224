package instancestatus_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

const addr = "compute_instance_status.test"

func config(srv *computetest.Server, status string) string {
	return acctest.Provider(srv) + fmt.Sprintf(`
resource "compute_instance" "vm" {
  name        = "vm"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu-24.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
  %[2]s
}
resource "compute_instance_status" "test" {
  instance_id = compute_instance.vm.id
  status      = %[1]q
  %[2]s
}
`, status, acctest.Timeouts)
}

// is checks the instance's status in the fake.
func is(t *testing.T, srv *computetest.Server, want compute.InstanceStatus) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id := s.RootModule().Resources["compute_instance.vm"].Primary.ID
		inst, err := acctest.Client(t, srv).Instances.Get(context.Background(), id)
		if err != nil {
			return err
		}
		if inst.Status != want {
			return fmt.Errorf("the instance is %s, want %s", inst.Status, want)
		}
		return nil
	}
}

// TestAccInstanceStatus stops an instance and starts it again, waiting for each transition; it
// imports by the instance's ID and name; a start outside Terraform plans a stop; a gateway's 404
// fails the plan.
func TestAccInstanceStatus(t *testing.T) {
	srv := acctest.Server(t, computetest.WithDurations(computetest.UniformDurations(300*time.Millisecond)))
	var id string
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(srv, "stopped"),
				Check: resource.ComposeTestCheckFunc(is(t, srv, compute.InstanceStatusStopped),
					resource.TestCheckResourceAttrWith(addr, "instance_id", func(v string) error { id = v; return nil })),
			},
			{Config: config(srv, "stopped"), PlanOnly: true},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "instance_id",
				ImportStateVerifyIgnore: []string{"timeouts"}, ImportStateIdFunc: func(*terraform.State) (string, error) { return id, nil }},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIdentifierAttribute: "instance_id",
				ImportStateVerifyIgnore: []string{"timeouts"}, ImportStateId: "name=vm"},
			{
				Config: config(srv, "active"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: is(t, srv, compute.InstanceStatusActive),
			},
			{
				PreConfig: func() {
					c := acctest.Client(t, srv)
					if err := c.Instances.Stop(context.Background(), id); err != nil {
						t.Fatal(err)
					}
				},
				Config:             config(srv, "active"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
			},
			{Config: config(srv, "active"), Check: is(t, srv, compute.InstanceStatusActive)},
			{
				PreConfig:   func() { acctest.GatewayNotFound(srv, "/compute/v1/instances/"+id) },
				Config:      config(srv, "active"),
				ExpectError: regexp.MustCompile(`HTTP 404`),
			},
			{PreConfig: srv.ClearFaults, Config: config(srv, "active"), PlanOnly: true},
			{Config: config(srv, "paused"), ExpectError: regexp.MustCompile(`status must be "active" or "stopped"`)},
		},
	})
}
