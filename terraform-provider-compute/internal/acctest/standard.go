package acctest

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Kind describes a resource type for the acceptance tests every resource passes (Standard).
type Kind struct {
	// Type is the resource type, such as compute_volume; the tests' resource is <Type>.test.
	Type string
	// Config is the configuration of the resource named name (after the provider block): as first
	// created (step "create"), changed in place ("update") and changed so that it is replaced
	// ("replace"). It may hold other resources it needs.
	Config func(name, step string) string
	// CreatePath is the path pattern of the create's POST, such as /compute/v1/volumes.
	CreatePath string
	// GetPath is the path of the read of the resource id.
	GetPath func(id string) string
	// Count is how many resources of the kind named name the account holds.
	Count func(ctx context.Context, c *compute.Client, name string) (int, error)
	// Delete deletes the resource id outside Terraform, and waits until it is gone.
	Delete func(ctx context.Context, c *compute.Client, id string) error
	// ImportIgnore are attributes an import cannot read back (write-once values, the timeouts).
	ImportIgnore []string
	// Options are the fake's options.
	Options []computetest.Option
}

// addr is the tests' resource.
func (k Kind) addr() string { return k.Type + ".test" }

func (k Kind) config(srv *computetest.Server, name, step string) string {
	return Provider(srv) + k.Config(name, step)
}

func (k Kind) exactly(t *testing.T, srv *computetest.Server, name string, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := k.Count(context.Background(), Client(t, srv), name)
		if err != nil {
			return err
		}
		if got != n {
			return fmt.Errorf("%d %s resources named %s, want %d", got, k.Type, name, n)
		}
		return nil
	}
}

// Standard runs the acceptance tests every resource passes, each in parallel: lifecycle (create,
// import by ID and by name with verification, update in place, replace, a plan with no change,
// destroy), then Failures.
func Standard(t *testing.T, k Kind) {
	t.Run("lifecycle", func(t *testing.T) { k.lifecycle(t) })
	Failures(t, k)
}

// Failures runs the acceptance tests of what goes wrong around a resource, each in parallel: drift
// (deleted outside Terraform: the plan creates it again), lostCreate (the create's response lost
// after the service made it: one resource, in the state) and gateway404 (a gateway's 404 on the
// refresh's read: the plan fails, the state keeps the resource, no second one is made). They use
// only k.Config's "create" step: a resource whose lifecycle test is its own runs these alone.
func Failures(t *testing.T, k Kind) {
	t.Run("drift", func(t *testing.T) { k.drift(t) })
	t.Run("lostCreate", func(t *testing.T) { k.lostCreate(t) })
	t.Run("gateway404", func(t *testing.T) { k.gateway404(t) })
}

func (k Kind) lifecycle(t *testing.T) {
	srv := Server(t, k.Options...)
	id := statecheck.CompareValue(compare.ValuesSame())
	name := "life"
	ignore := append([]string{"timeouts"}, k.ImportIgnore...)
	Test(t, resource.TestCase{
		CheckDestroy: k.exactly(t, srv, name, 0),
		Steps: []resource.TestStep{
			{
				Config:            k.config(srv, name, "create"),
				ConfigStateChecks: []statecheck.StateCheck{id.AddStateValue(k.addr(), tfjsonpath.New("id"))},
				Check:             k.exactly(t, srv, name, 1),
			},
			{ResourceName: k.addr(), ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore},
			{ResourceName: k.addr(), ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: ignore, ImportStateId: "name=" + name},
			{
				Config: k.config(srv, name, "update"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(k.addr(), plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{id.AddStateValue(k.addr(), tfjsonpath.New("id"))},
			},
			{
				Config: k.config(srv, name, "replace"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(k.addr(), plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: k.exactly(t, srv, name, 1),
			},
			{Config: k.config(srv, name, "replace"), PlanOnly: true},
		},
	})
}

func (k Kind) drift(t *testing.T) {
	srv := Server(t, k.Options...)
	var id string
	Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: k.config(srv, "drift", "create"),
				Check:  resource.TestCheckResourceAttrWith(k.addr(), "id", func(v string) error { id = v; return nil }),
			},
			{
				PreConfig: func() {
					if err := k.Delete(context.Background(), Client(t, srv), id); err != nil {
						t.Fatal(err)
					}
				},
				Config:             k.config(srv, "drift", "create"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(k.addr(), plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

func (k Kind) lostCreate(t *testing.T) {
	srv := Server(t, k.Options...)
	Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			PreConfig: func() {
				srv.FailNext(1, computetest.Match{Method: "POST", Path: k.CreatePath}, computetest.Fault{DropAfterProcessing: true})
			},
			Config: k.config(srv, "lost", "create"),
			Check:  k.exactly(t, srv, "lost", 1),
		}},
	})
}

func (k Kind) gateway404(t *testing.T) {
	srv := Server(t, k.Options...)
	var id string
	Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: k.config(srv, "gw", "create"),
				Check:  resource.TestCheckResourceAttrWith(k.addr(), "id", func(v string) error { id = v; return nil }),
			},
			{
				PreConfig:   func() { GatewayNotFound(srv, k.GetPath(id)) },
				Config:      k.config(srv, "gw", "create"),
				ExpectError: regexp.MustCompile(`HTTP 404`),
			},
			{PreConfig: srv.ClearFaults, Config: k.config(srv, "gw", "create"), PlanOnly: true},
			{Config: k.config(srv, "gw", "create"), Check: k.exactly(t, srv, "gw", 1)},
		},
	})
}

// GatewayNotFound makes the fake answer the read of the resource at path, and the list its kind's
// shared reads walk, with a gateway's 404 page (HTML, no error code) until srv.ClearFaults: the list
// failing, each read asks for its resource on its own, and gets the page.
func GatewayNotFound(srv *computetest.Server, resourcePath string) {
	page := computetest.Fault{Status: 404, Body: []byte("<html><body>404 Not Found</body></html>")}
	srv.Inject(computetest.Rule{Match: computetest.Match{Method: "GET", Path: resourcePath}, Fault: page})
	srv.Inject(computetest.Rule{Match: computetest.Match{Method: "GET", Path: path.Dir(resourcePath)}, Fault: page})
}

// Timeouts bounds every operation of a resource in the tests, so that one that goes wrong fails in
// a minute instead of waiting for the default 20.
const Timeouts = `timeouts = { create = "1m", read = "1m", update = "1m", delete = "1m" }`

// Counter counts the resources named name with a kind's FindByName.
func Counter[T any](find func(*compute.Client) func(context.Context, string) ([]T, error)) func(context.Context, *compute.Client, string) (int, error) {
	return func(ctx context.Context, c *compute.Client, name string) (int, error) {
		found, err := find(c)(ctx, name)
		return len(found), err
	}
}
