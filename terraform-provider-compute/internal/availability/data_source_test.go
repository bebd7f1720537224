package availability_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// TestAccInstanceTypes lists the instance types of a region, the GPU type only where it is offered.
func TestAccInstanceTypes(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: acctest.Provider(srv) + `
data "compute_instance_types" "krs" {
  region = "NORD-NO-KRS-1"
}
data "compute_instance_types" "muc" {
  region = "EUC-DE-MUC-1"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.compute_instance_types.krs", tfjsonpath.New("available"), knownvalue.ListSizeExact(3)),
				statecheck.ExpectKnownValue("data.compute_instance_types.muc", tfjsonpath.New("available"), knownvalue.ListSizeExact(4)),
			},
		}},
	})
}
