package instance_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

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

const addr = "compute_instance.test"

// config is a compute_instance named name with body's extra lines. Every operation is bounded by
// a minute, so that a test that goes wrong fails instead of waiting for the default 20 minutes.
func config(srv *computetest.Server, name, body string) string {
	return acctest.Provider(srv) + resourceConfig(name, body)
}

// resourceConfig is config without the provider block.
func resourceConfig(name, body string) string {
	return fmt.Sprintf(`
resource "compute_instance" "test" {
  name   = %q
  region = "NORD-NO-KRS-1"
  image  = "ubuntu-24.04"
  %s
  timeouts = { create = "1m", read = "1m", update = "1m", delete = "1m" }
}
`, name, body)
}

const minimal = `
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
`

// count is how many instances named name the fake holds.
func count(t *testing.T, srv *computetest.Server, name string) int {
	t.Helper()
	found, err := acctest.Client(t, srv).Instances.FindByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return len(found)
}

func exactly(t *testing.T, srv *computetest.Server, name string, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := count(t, srv, name); got != n {
			return fmt.Errorf("%d instances named %s, want %d", got, name, n)
		}
		return nil
	}
}

// TestAccInstance_lifecycle creates an instance, imports it by ID and by name, updates it in place
// (name, disk, volumes, security groups), replaces it for a new type, plans no change and destroys
// it, waiting for each step to settle.
func TestAccInstance_lifecycle(t *testing.T) {
	srv := acctest.Server(t, computetest.WithDurations(computetest.UniformDurations(200*time.Millisecond)))
	id := statecheck.CompareValue(compare.ValuesSame())
	acctest.Test(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if n := count(t, srv, "web") + count(t, srv, "web-2"); n != 0 {
				return fmt.Errorf("%d instances left after destroy", n)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config(srv, "web", minimal),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("hostname"), knownvalue.StringExact("web")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("disk_size"), knownvalue.Int64Exact(80)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("image_id"), knownvalue.StringExact("img-ubuntu-2404")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("public_ip"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("security_group_ids"), knownvalue.SetSizeExact(0)),
					id.AddStateValue(addr, tfjsonpath.New("id")),
				},
			},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"image", "timeouts"}},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"image", "timeouts"}, ImportStateId: "name=web"},
			{
				Config: config(srv, "web-2", minimal+`
  disk_size  = 100
  volume_ids = ["vol-data-1"]
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					id.AddStateValue(addr, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("disk_size"), knownvalue.Int64Exact(100)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("volume_ids"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("vol-data-1")})),
				},
			},
			{
				Config: config(srv, "web-2", strings.Replace(minimal, "vcpu-2_memory-4g", "vcpu-4_memory-8g", 1)+`
  disk_size  = 100
  volume_ids = []
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
			{Config: config(srv, "web-2", strings.Replace(minimal, "vcpu-2_memory-4g", "vcpu-4_memory-8g", 1)+`
  disk_size  = 100
  volume_ids = []
`), PlanOnly: true},
		},
	})
}

// TestAccInstance_everyOptional sets every optional attribute, then unsets them: each apply is
// followed by a plan with no change.
func TestAccInstance_everyOptional(t *testing.T) {
	srv := acctest.Server(t)
	full := `
  type               = "vcpu-2_memory-4g"
  hostname           = "web-host"
  password           = "Correct-Horse-Battery-9"
  placement_option   = "SPREAD"
  disk_size          = 120
  security_group_ids = []
  volume_ids         = ["vol-data-2"]
  reservation_id     = "res-krs-small"
  metadata = {
    startup_script = "#!/bin/bash\necho hello\n"
  }
`
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(srv, "opt", full),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("password"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("hostname"), knownvalue.StringExact("web-host")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("placement_option"), knownvalue.StringExact("SPREAD")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("reservation_id"), knownvalue.StringExact("res-krs-small")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ssh_key_ids"), knownvalue.Null()),
				},
			},
			{Config: config(srv, "opt", full), PlanOnly: true},
			// Without the attributes that can go in place: the instance keeps what it has.
			{Config: config(srv, "opt", `
  type     = "vcpu-2_memory-4g"
  password = "Correct-Horse-Battery-9"
  hostname = "web-host"
  placement_option = "SPREAD"
  metadata = {
    startup_script = "#!/bin/bash\necho hello\n"
  }
`), PlanOnly: true},
		},
	})
}

// TestAccInstance runs the standard tests of what goes wrong: drift (deleted outside Terraform, the
// plan creates it again), a lost create (exactly one instance with the name, in the state) and a
// gateway's 404 on the refresh (the plan fails, the instance stays in the state, no second one is
// made).
func TestAccInstance(t *testing.T) {
	acctest.Failures(t, acctest.Kind{
		Type:       "compute_instance",
		Config:     func(name, _ string) string { return resourceConfig(name, minimal) },
		CreatePath: "/compute/v1/instances",
		GetPath:    func(id string) string { return "/compute/v1/instances/" + id },
		Count: acctest.Counter(func(c *compute.Client) func(context.Context, string) ([]compute.Instance, error) {
			return c.Instances.FindByName
		}),
		Delete: func(ctx context.Context, c *compute.Client, id string) error {
			return c.Instances.DeleteAndWait(ctx, id)
		},
	})
}

// TestAccInstance_offlineChecks refuses, at plan time and before any request, what the SDK knows
// the service refuses: on the attribute's path.
func TestAccInstance_offlineChecks(t *testing.T) {
	srv := acctest.Server(t)
	big := strings.Repeat("#", 64<<10+1)
	acctest.Test(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			for _, r := range acctest.Writes(srv) {
				if r.Path == "/compute/v1/instances" {
					return fmt.Errorf("a create was sent: %s %s", r.Method, r.Path)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: config(srv, "small", minimal+"disk_size = 50"), ExpectError: regexp.MustCompile(`(?s)disk_size.*at least 80`)},
			{Config: config(srv, "pw", `type = "vcpu-2_memory-4g"
  password = "short"`), ExpectError: regexp.MustCompile(`(?s)password.*at least 16 characters`)},
			{Config: config(srv, "both", `type = "vcpu-2_memory-4g"`), ExpectError: regexp.MustCompile(`(?s)ssh_keys or password`)},
			{Config: config(srv, "script", minimal+fmt.Sprintf(`metadata = { startup_script = %q }`, big)), ExpectError: regexp.MustCompile(`(?s)startup_script.*64 KiB`)},
		},
	})
}

// TestAccInstance_diskShrink refuses at plan time a disk_size below the instance's disk.
func TestAccInstance_diskShrink(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(srv, "shrink", minimal+"disk_size = 120")},
			{Config: config(srv, "shrink", minimal+"disk_size = 100"), ExpectError: regexp.MustCompile(`(?s)Disk cannot shrink`)},
		},
	})
}

// TestAccInstance_sameName refuses two instances of one configuration with one name.
func TestAccInstance_sameName(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: acctest.Provider(srv) + `
resource "compute_instance" "a" {
  name        = "twin"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu-24.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
}
resource "compute_instance" "b" {
  name        = "twin"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu-24.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
}
`,
			ExpectError: regexp.MustCompile(`(?s)Name used twice.*Another instance of this configuration is named "twin"`),
		}},
	})
}

// TestAccInstance_references takes its SSH key from a key created in the same apply, whose ID is
// unknown at plan time.
func TestAccInstance_references(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: acctest.Provider(srv) + `
resource "compute_ssh_key" "k" {
  name       = "ref-key"
  public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn alice@example.com"
}
resource "compute_instance" "test" {
  name        = "ref"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu:22.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = [compute_ssh_key.k.id]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.CompareValuePairs(addr, tfjsonpath.New("ssh_key_ids").AtSliceIndex(0), "compute_ssh_key.k", tfjsonpath.New("id"), compare.ValuesSame()),
			},
		}},
	})
}

// precreate makes an instance named name outside Terraform and returns its ID.
func precreate(t *testing.T, srv *computetest.Server, name string) string {
	t.Helper()
	inst, err := acctest.Client(t, srv).Instances.Create(context.Background(), &compute.InstanceCreateRequest{
		Name: name, Hostname: name, Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", Type: "vcpu-2_memory-4g", SSHKeys: []string{"key-ci"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return inst.ID
}

// TestAccInstance_notAdoptedByDefault leaves alone an instance that had the name before the apply
// (a colleague's): the apply creates its own, and the destroy deletes only that one.
func TestAccInstance_notAdoptedByDefault(t *testing.T) {
	srv := acctest.Server(t)
	other := precreate(t, srv, "shared")
	acctest.Test(t, resource.TestCase{
		CheckDestroy: exactly(t, srv, "shared", 1),
		Steps: []resource.TestStep{{
			Config: config(srv, "shared", minimal),
			Check: resource.ComposeTestCheckFunc(
				exactly(t, srv, "shared", 2),
				resource.TestCheckResourceAttrWith(addr, "id", func(v string) error {
					if v == other {
						return fmt.Errorf("the apply adopted %s, made before it", other)
					}
					return nil
				}),
			),
		}},
	})
}

// TestAccInstance_adoptExisting, with adopt_existing, adopts the matching instance that has the name
// (the one a killed apply made) instead of making a second one.
func TestAccInstance_adoptExisting(t *testing.T) {
	srv := acctest.Server(t)
	made := precreate(t, srv, "rerun")
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: strings.Replace(config(srv, "rerun", minimal), "\n}\n", "\n  adopt_existing = true\n}\n", 1),
			Check: resource.ComposeTestCheckFunc(
				exactly(t, srv, "rerun", 1),
				resource.TestCheckResourceAttr(addr, "id", made),
			),
		}},
	})
}

// TestAccInstance_sharedReads plans over 30 instances: the refresh reads them from shared walks of
// the list, a few pages in all, not a GET each.
func TestAccInstance_sharedReads(t *testing.T) {
	srv := acctest.Server(t)
	fleet := acctest.Provider(srv) + `
resource "compute_instance" "fleet" {
  count       = 30
  name        = "fleet-${count.index}"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu-24.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
}
`
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: fleet},
			{PreConfig: srv.ResetRequests, Config: fleet, PlanOnly: true},
			{
				PreConfig: func() {
					// The plan-only step ran two plans (without and with a refresh).
					gets, lists := 0, 0
					for _, r := range srv.Requests() {
						switch {
						case r.Method == "GET" && r.Path == "/compute/v1/instances":
							lists++
						case r.Method == "GET" && strings.HasPrefix(r.Path, "/compute/v1/instances/"):
							gets++
						}
					}
					t.Logf("a refresh of 30 instances: %d list pages, %d GETs", lists, gets)
					if gets > 0 || lists > 3 {
						t.Errorf("a refresh of 30 instances cost %d list pages and %d GETs, want at most 3 pages and no GET", lists, gets)
					}
				},
				Config:   fleet,
				PlanOnly: true,
			},
		},
	})
}

// TestAccInstance_importBlock imports an instance made outside Terraform with an import block by
// name: the service does not show the image as configured (a slug), so the plan takes the
// configured one in place, without replacing the instance, and then plans no change.
func TestAccInstance_importBlock(t *testing.T) {
	srv := acctest.Server(t)
	made := precreate(t, srv, "adopted")
	cfg := config(srv, "adopted", minimal) + `
import {
  to = compute_instance.test
  id = "name=adopted"
}
`
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "id", made),
					resource.TestCheckResourceAttr(addr, "image", "ubuntu-24.04"),
					exactly(t, srv, "adopted", 1),
				),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}
