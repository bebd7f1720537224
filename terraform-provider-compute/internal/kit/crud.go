package kit

import (
	"context"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Read reads the resource id of kind with get for a refresh. A resource the service proves gone
// ([compute.Gone]) leaves the state, so that the plan creates it again; any other failure (a
// gateway's 404, a 5xx, a timeout) is an error and the state keeps it. ok reports a resource read.
func Read[T any](ctx context.Context, kind, id string, get func(context.Context, string) (*T, error), resp *resource.ReadResponse) (v *T, ok bool) {
	v, err := get(ctx, id)
	if compute.Gone(err) {
		resp.State.RemoveResource(ctx)
		return nil, false
	}
	if err != nil {
		AddError(&resp.Diagnostics, "read the "+kind+" "+Safe(id), err, nil)
		return nil, false
	}
	return v, true
}

// Delete deletes the resource id of kind with its DeleteAndWait: as soon as the service lets it,
// and until the service says it is gone.
func (m *Meta) Delete(ctx context.Context, kind, id string, del func(context.Context, string, ...compute.DeleteOption) error, diags *diag.Diagnostics) {
	if err := del(ctx, id, m.DeleteOptions()...); err != nil {
		AddError(diags, "delete the "+kind+" "+Safe(id), err, nil)
	}
}
