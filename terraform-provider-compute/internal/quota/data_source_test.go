package quota_test

import (
	"testing"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// TestAccQuotas reads the account's quotas and what is left of each.
func TestAccQuotas(t *testing.T) {
	srv := acctest.Server(t, computetest.WithLimits(computetest.Limits{MaxInstances: 5}))
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: acctest.Provider(srv) + `
resource "compute_instance" "vm" {
  name        = "vm"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu-24.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
}
data "compute_quotas" "q" {
  depends_on = [compute_instance.vm]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.compute_quotas.q", tfjsonpath.New("by_key").AtMapKey("instances"), knownvalue.Int64Exact(4)),
			},
		}},
	})
}
