package securitygroup_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

func config(name, region, rules string) string {
	return fmt.Sprintf(`
resource "compute_security_group" "test" {
  name   = %q
  region = %q
  rules  = [%s]
  %s
}
`, name, region, rules, acctest.Timeouts)
}

const https = `{ direction = "ingress", protocol = "tcp", port_range_min = 443, port_range_max = 443 }`

// TestAccSecurityGroup runs the standard tests: lifecycle (new rules in place, a new region
// replaces), drift, a lost create, a gateway's 404.
func TestAccSecurityGroup(t *testing.T) {
	acctest.Standard(t, acctest.Kind{
		Type: "compute_security_group",
		Config: func(name, step string) string {
			switch step {
			case "update":
				return config(name, "NORD-NO-KRS-1", https+`, { direction = "egress", protocol = "all" }`)
			case "replace":
				return config(name, "EUC-DE-MUC-1", https)
			}
			return config(name, "NORD-NO-KRS-1", https)
		},
		CreatePath: "/compute/v1/security-groups",
		GetPath:    func(id string) string { return "/compute/v1/security-groups/" + id },
		Count: acctest.Counter(func(c *compute.Client) func(context.Context, string) ([]compute.SecurityGroup, error) {
			return c.SecurityGroups.FindByName
		}),
		Delete: func(ctx context.Context, c *compute.Client, id string) error {
			return c.SecurityGroups.DeleteAndWait(ctx, id)
		},
	})
}

// TestAccSecurityGroup_rules keeps null ports (all ports) and an empty rule list as configured, with
// no change planned after the apply, and refuses bad rules and a reserved name at plan time.
func TestAccSecurityGroup_rules(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: acctest.Provider(srv) + config("all", "NORD-NO-KRS-1", `{ direction = "ingress", protocol = "icmp" }, { direction = "egress", protocol = "all" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("compute_security_group.test", tfjsonpath.New("rules").AtSliceIndex(0).AtMapKey("port_range_min"), knownvalue.Null()),
					statecheck.ExpectKnownValue("compute_security_group.test", tfjsonpath.New("description"), knownvalue.StringExact("")),
				},
			},
			{Config: acctest.Provider(srv) + config("all", "NORD-NO-KRS-1", ``)},
			{Config: acctest.Provider(srv) + config("all", "NORD-NO-KRS-1", ``), PlanOnly: true},
			{
				Config:      acctest.Provider(srv) + config("ports", "NORD-NO-KRS-1", `{ direction = "ingress", protocol = "tcp", port_range_min = 80, port_range_max = 70000 }`),
				ExpectError: regexp.MustCompile(`(?s)rules\[0\]\.port_range_max`),
			},
			{
				Config:      acctest.Provider(srv) + config("default", "NORD-NO-KRS-1", https),
				ExpectError: regexp.MustCompile(`(?s)Invalid name.*reserved`),
			},
		},
	})
}
