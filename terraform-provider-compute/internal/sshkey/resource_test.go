package sshkey_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

const (
	key1 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn alice@example.com"
	key2 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHn1wM3aWGDqZ8UZfl2pnkqgNFXfWQPSt9uRuBhv3Q2C bob@example.com"
)

const addr = "compute_ssh_key.test"

func config(srv *computetest.Server, name, key string) string {
	return acctest.Provider(srv) + resourceConfig(name, key)
}

// resourceConfig is the compute_ssh_key named name with the public key key.
func resourceConfig(name, key string) string {
	return fmt.Sprintf(`
resource "compute_ssh_key" "test" {
  name       = %q
  public_key = %q
}
`, name, key)
}

// count is how many SSH keys named name the fake holds.
func count(t *testing.T, srv *computetest.Server, name string) int {
	t.Helper()
	keys, err := acctest.Client(t, srv).SSHKeys.FindByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// TestAccSSHKey_lifecycle creates a key, imports it by ID and by name, renames it in place,
// replaces it for a new public key, plans no change, and destroys it.
func TestAccSSHKey_lifecycle(t *testing.T) {
	srv := acctest.Server(t)
	id := statecheck.CompareValue(compare.ValuesSame())
	acctest.Test(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if n := count(t, srv, "alice") + count(t, srv, "alice-2"); n != 0 {
				return fmt.Errorf("%d SSH keys left after destroy", n)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config(srv, "alice", key1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("name"), knownvalue.StringExact("alice")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fingerprint"), knownvalue.NotNull()),
					id.AddStateValue(addr, tfjsonpath.New("id")),
				},
			},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: "name=alice"},
			{
				Config: config(srv, "alice-2", key1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{id.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				Config: config(srv, "alice-2", key2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
			{Config: config(srv, "alice-2", key2), PlanOnly: true},
		},
	})
}

// TestAccSSHKey runs the standard tests of what goes wrong: drift (deleted outside Terraform, the
// plan creates it again), a lost create (one key, in the state) and a gateway's 404 on the refresh
// (the plan fails, the key stays in the state, no second one is made).
func TestAccSSHKey(t *testing.T) {
	acctest.Failures(t, acctest.Kind{
		Type:       "compute_ssh_key",
		Config:     func(name, _ string) string { return resourceConfig(name, key1) },
		CreatePath: "/compute/v1/ssh-keys",
		GetPath:    func(id string) string { return "/compute/v1/ssh-keys/" + id },
		Count: acctest.Counter(func(c *compute.Client) func(context.Context, string) ([]compute.SSHKey, error) {
			return c.SSHKeys.FindByName
		}),
		Delete: func(ctx context.Context, c *compute.Client, id string) error { return c.SSHKeys.Delete(ctx, id) },
	})
}

// TestAccSSHKey_importByName imports the one key with a name, and refuses a name that several keys
// have, listing them, or that none has.
func TestAccSSHKey_importByName(t *testing.T) {
	srv := acctest.Server(t)
	c := acctest.Client(t, srv)
	for _, v := range []string{key1, key2} {
		if _, err := c.SSHKeys.Create(context.Background(), &compute.SSHKeyCreateRequest{Name: "dup", Value: v}); err != nil {
			t.Fatal(err)
		}
	}
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(srv, "other", key1)},
			// An import block, by name.
			{ResourceName: addr, ImportState: true, ImportStateKind: resource.ImportBlockWithID, ImportStateId: "name=other", Config: acctest.Source + config(srv, "other", key1)},
			{
				ResourceName: addr, ImportState: true, ImportStateId: "name=dup",
				ExpectError: regexp.MustCompile(`(?s)2 SSH keys are named "dup": key-000001,\s+key-000002`),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateId: "name=none",
				ExpectError: regexp.MustCompile(`No SSH key is named "none"`),
			},
		},
	})
}
