// Package volume is the compute_volume resource: block storage to attach to instances.
package volume

import (
	"context"
	"errors"
	"fmt"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_volume resource.
func New() resource.Resource { return &volumeResource{} }

type volumeResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &volumeResource{}
	_ resource.ResourceWithImportState = &volumeResource{}
	_ resource.ResourceWithModifyPlan  = &volumeResource{}
	_ resource.ResourceWithMoveState   = &volumeResource{}
)

var kind = kit.Kind[compute.Volume]{
	Name:   "volume",
	Fields: kit.Fields{"name": path.Root("name"), "description": path.Root("description"), "region": path.Root("region"), "size": path.Root("size"), "type": path.Root("type")},
	ID:     func(v *compute.Volume) string { return v.ID },
}

func (r *volumeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

func (r *volumeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A volume: block storage to attach to instances (`volume_ids` of `compute_instance`). A create waits until it is created; a destroy first detaches it from the instances that hold it, as the service requires, then waits until the service says it is gone.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The unique ID of the volume.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The human-readable name for the volume. Changing it renames the volume in place. Two volumes of one configuration cannot share a name.",
				Required:            true,
			},
			"description": schema.StringAttribute{
				MarkdownDescription: "The human-readable description for the volume. Defaults to the empty string.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "The region identifier, such as `NORD-NO-KRS-1`. Changing it replaces the volume.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the volume.", nil)},
			},
			"size": schema.Int64Attribute{
				MarkdownDescription: "The storage size of this volume given in GiB, at least 1. It grows in place and never shrinks: a smaller value is refused at plan time.",
				Required:            true,
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "The storage type of the volume: `hdd` or `ssd`. Changing it replaces the volume.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the volume.", nil)},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The volume status.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this volume was created in RFC 3339.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"retain_on_delete": schema.BoolAttribute{
				MarkdownDescription: "Flag to retain the volume when the resource is deleted: it then only leaves the state. Defaults to `false`.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan checks the volume offline, refuses a size that would shrink, and a name another volume
// of the configuration has, before any request.
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := plan.request().Validate(); err != nil {
		kit.AddError(&resp.Diagnostics, "create the volume", err, kind.Fields)
	}
	if !req.State.Raw.IsNull() {
		var state model
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !plan.Size.IsUnknown() && plan.Size.ValueInt64() < state.Size.ValueInt64() {
			resp.Diagnostics.AddAttributeError(path.Root("size"), "Volume cannot shrink",
				fmt.Sprintf("The volume holds %d GiB; the service can only grow it, so size must be at least that, got %d.", state.Size.ValueInt64(), plan.Size.ValueInt64()))
		}
	}
	r.Meta.CheckName(ctx, kind.Name, req, resp)
}

func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	c := r.Meta.Client.Volumes
	kit.CreateAndWait(ctx, r.Meta, kind, kit.Into(&plan, &resp.State, &resp.Diagnostics),
		func() (*compute.Volume, error) { return c.CreateOnce(ctx, plan.request(), r.Meta.Once()...) },
		c.WaitForStatus, compute.VolumeStatusCreated, func(v *compute.Volume) bool { return v.Status == compute.VolumeStatusCreated })
}

func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	kind.Read(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.Volumes.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	var up compute.VolumeUpdateRequest
	if !plan.Name.Equal(state.Name) {
		up.Name = compute.Ptr(plan.Name.ValueString())
	}
	if !plan.Description.Equal(state.Description) {
		up.Description = compute.Ptr(plan.Description.ValueString())
	}
	if !plan.Size.Equal(state.Size) {
		up.Size = compute.Ptr(int(plan.Size.ValueInt64()))
	}
	if up.Name == nil && up.Description == nil && up.Size == nil {
		state.RetainOnDelete, state.Timeouts = plan.RetainOnDelete, plan.Timeouts // nothing for the service
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	v, err := r.Meta.Client.Volumes.Update(ctx, id, &up)
	if err != nil {
		kit.AddError(&resp.Diagnostics, "update the volume "+kit.Safe(id), err, kind.Fields)
		return
	}
	plan.Set(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete detaches the volume from the instances that hold it, then deletes it and waits until it
// is gone; with retain_on_delete it only leaves the state.
func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	if kind.Retained(id, state.RetainOnDelete, &resp.Diagnostics) {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	v, err := r.Meta.Client.Volumes.Get(ctx, id)
	if compute.Gone(err) {
		return
	}
	if err != nil {
		kit.AddError(&resp.Diagnostics, "read the volume "+kit.Safe(id)+" before deleting it", err, kind.Fields)
		return
	}
	var refused error
	for _, in := range v.Instances {
		// A detach whose outcome is unknown is fine: the delete below waits while the volume is in use.
		if _, err := r.Meta.Client.Instances.DetachVolume(ctx, in.ID, id); err != nil && !errors.Is(err, compute.ErrOutcomeUnknown) {
			refused = fmt.Errorf("detach it from the instance %s: %w", in.ID, err)
		}
	}
	if refused != nil {
		// A detach refused because the volume left the instance meanwhile is no failure.
		v, err := r.Meta.Client.Volumes.Get(ctx, id)
		if compute.Gone(err) {
			return
		}
		if err != nil || len(v.Instances) > 0 {
			kit.AddError(&resp.Diagnostics, "delete the volume "+kit.Safe(id), refused, kind.Fields)
			return
		}
	}
	kind.Delete(ctx, r.Meta, id, r.Meta.Client.Volumes.DeleteAndWait, &resp.Diagnostics)
}

// ImportState takes a volume's ID, or name=<name> for the one volume with that name.
func (r *volumeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kind.Import(ctx, req.ID, r.Meta.Client.Volumes.FindByName, path.Root("id"), resp)
}

// MoveState takes over the state of the official provider's genesiscloud_volume.
func (r *volumeResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "volume", nil)}
}
