package kit

import (
	"context"
	"fmt"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Kind is what the steps every resource takes (create and wait, read, delete, import) need to know
// of its kind: T is the SDK's type of the resource, such as compute.Volume.
type Kind[T any] struct {
	// Name names the kind in diagnostics: "volume", "floating IP".
	Name string
	// Fields maps the fields of the kind's requests to the resource's attributes (see AddError).
	Fields Fields
	// ID is the ID of a resource of the kind.
	ID func(*T) string
}

// Model is a resource's model (a pointer to it), which Set fills from the resource as the service
// shows it.
type Model[T any] interface{ Set(*T) }

// Target is where a step keeps the resource the service answered with: in the model, which
// State then holds, with the step's problems in Diags.
type Target[T any] struct {
	Model Model[T]          // the resource's model, a pointer
	State *tfsdk.State      // the state that holds the model
	Diags *diag.Diagnostics // the step's problems
}

// Into returns the Target of model in state, with diags.
func Into[T any](model Model[T], state *tfsdk.State, diags *diag.Diagnostics) Target[T] {
	return Target[T]{Model: model, State: state, Diags: diags}
}

// Save fills the model from v and saves it in the state.
func (t Target[T]) Save(ctx context.Context, v *T) {
	t.Model.Set(v)
	t.Diags.Append(t.State.Set(ctx, t.Model)...)
}

// CreateAndWait is the create step of a resource that the service finishes after its create
// answers: it creates the resource with create, then settles it (Settle).
func CreateAndWait[T any, S ~string](ctx context.Context, m *Meta, k Kind[T], to Target[T], create func() (*T, error), wait func(context.Context, string, S, ...compute.WaitOption) (*T, error), status S, settled func(*T) bool) {
	v, err := create()
	if err != nil {
		AddError(to.Diags, "create the "+k.Name, err, k.Fields)
		return
	}
	Settle(ctx, m, k, to, v, wait, status, settled)
}

// Settle saves v, what a create or a change of a resource answered, then, unless settled(v)
// (settled nil: never), waits with wait until the resource has status, and saves it again as it
// then is. Saved before the wait, a resource that never gets there is still in the state, so that
// a later destroy deletes it.
func Settle[T any, S ~string](ctx context.Context, m *Meta, k Kind[T], to Target[T], v *T, wait func(context.Context, string, S, ...compute.WaitOption) (*T, error), status S, settled func(*T) bool) {
	to.Save(ctx, v)
	if settled != nil && settled(v) {
		return
	}
	id := k.ID(v)
	v, err := wait(ctx, id, status, m.Wait...)
	if v != nil {
		to.Save(ctx, v)
	}
	if err != nil {
		AddError(to.Diags, "wait for the "+k.Name+" "+Safe(id)+" to be "+string(status), err, k.Fields)
	}
}

// Read is the read step of a refresh: it reads the resource id with get and saves it. The reads of
// one refresh share the walks of their kind's list ([compute.SharedRead]), so that a plan over
// hundreds of resources costs a few list pages, not a GET each. A resource the service proves gone
// ([compute.Gone]) leaves the state, so that the plan creates it again; any other failure (a
// gateway's 404, a 5xx, a timeout) is an error and the state keeps it.
func (k Kind[T]) Read(ctx context.Context, m *Meta, id string, get func(context.Context, string, ...compute.GetOption) (*T, error), to Target[T]) {
	v, err := get(ctx, id, compute.SharedRead(m.ReadMaxAge))
	if compute.Gone(err) {
		to.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		AddError(to.Diags, "read the "+k.Name+" "+Safe(id), err, nil)
		return
	}
	to.Save(ctx, v)
}

// Retained reports whether retain_on_delete keeps the resource id in the account: its delete then
// only takes it out of the state, with a warning that says so.
func (k Kind[T]) Retained(id string, retain types.Bool, diags *diag.Diagnostics) bool {
	if !retain.ValueBool() {
		return false
	}
	diags.AddWarning(strings.ToUpper(k.Name[:1])+k.Name[1:]+" retained",
		fmt.Sprintf("The %s %s left the state; retain_on_delete kept it in the account.", k.Name, Safe(id)))
	return true
}

// Delete is the delete step: it deletes the resource id with its DeleteAndWait, as soon as the
// service lets it, and until the service says it is gone.
func (k Kind[T]) Delete(ctx context.Context, m *Meta, id string, del func(context.Context, string, ...compute.DeleteOption) error, diags *diag.Diagnostics) {
	if err := del(ctx, id, m.DeleteOptions()...); err != nil {
		AddError(diags, "delete the "+k.Name+" "+Safe(id), err, k.Fields)
	}
}

// Import is the import step: it resolves the ID given to the import with ImportID and find (the
// kind's FindByName), and sets the attribute at (path.Root("id"), say) to it. It reports whether
// it did.
func (k Kind[T]) Import(ctx context.Context, raw string, find func(context.Context, string) ([]T, error), at path.Path, resp *resource.ImportStateResponse) bool {
	id, ok := ImportID(ctx, raw, k.Name, find, k.ID, &resp.Diagnostics)
	if !ok {
		return false
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, at, id)...)
	return true
}
