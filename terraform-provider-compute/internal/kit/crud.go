package kit

import (
	"context"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Read reads the resource id of kind with get for a refresh. The reads of one refresh share the
// walks of their kind's list ([compute.SharedRead]), so that a plan over hundreds of resources
// costs a few list pages, not a GET each. A resource the service proves gone ([compute.Gone])
// leaves the state, so that the plan creates it again; any other failure (a gateway's 404, a 5xx,
// a timeout) is an error and the state keeps it. ok reports a resource read.
func Read[T any](ctx context.Context, m *Meta, kind, id string, get func(context.Context, string, ...compute.GetOption) (*T, error), resp *resource.ReadResponse) (v *T, ok bool) {
	v, err := get(ctx, id, compute.SharedRead(m.ReadMaxAge))
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
