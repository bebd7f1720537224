// Package filesystem is the compute_filesystem resource: shared storage reached over the network.
package filesystem

import (
	"context"
	"fmt"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_filesystem resource.
func New() resource.Resource { return &filesystemResource{} }

type filesystemResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &filesystemResource{}
	_ resource.ResourceWithImportState = &filesystemResource{}
	_ resource.ResourceWithModifyPlan  = &filesystemResource{}
	_ resource.ResourceWithMoveState   = &filesystemResource{}
)

var kind = kit.Kind[compute.Filesystem]{
	Name:   "filesystem",
	Fields: kit.Fields{"name": path.Root("name"), "description": path.Root("description"), "region": path.Root("region"), "size": path.Root("size"), "type": path.Root("type")},
	ID:     func(f *compute.Filesystem) string { return f.ID },
}

func (r *filesystemResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_filesystem"
}

func (r *filesystemResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A filesystem: shared storage that instances mount over the network from its mount endpoints. A create waits until it is created (its mount path assigned); a destroy waits until the service says it is gone.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "A unique identifier for each filesystem. This is automatically generated.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The human-readable name for the filesystem. Changing it renames the filesystem in place. Two filesystems of one configuration cannot share a name.",
				Required:            true,
			},
			"description": schema.StringAttribute{
				MarkdownDescription: "The human-readable description for the filesystem. Defaults to the empty string.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "The identifier for the region this filesystem exists in, such as `NORD-NO-KRS-1`. Changing it replaces the filesystem.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the filesystem.", nil)},
			},
			"size": schema.Int64Attribute{
				MarkdownDescription: "The storage size of this filesystem given in GiB, at least 1. It grows in place and never shrinks: a smaller value is refused at plan time.",
				Required:            true,
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "The storage type of the filesystem: `vast`. Changing it replaces the filesystem.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the filesystem.", nil)},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The filesystem status.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"mount_base_path": schema.StringAttribute{
				MarkdownDescription: "The base path on the server under which the mount point can be accessed.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"mount_endpoint_range": schema.ListAttribute{
				MarkdownDescription: "The start and end IP of the mount endpoint range. Expressed as a array with two entries.",
				ElementType:         types.StringType,
				Computed:            true,
				PlanModifiers:       []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this filesystem was created in RFC 3339.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"retain_on_delete": schema.BoolAttribute{
				MarkdownDescription: "Flag to retain the filesystem when the resource is deleted: it then only leaves the state. Defaults to `false`.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan checks the filesystem offline, refuses a size that would shrink, and a name another
// filesystem of the configuration has, before any request.
func (r *filesystemResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := plan.request().Validate(); err != nil {
		kit.AddError(&resp.Diagnostics, "create the filesystem", err, kind.Fields)
	}
	if !req.State.Raw.IsNull() {
		var state model
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !plan.Size.IsUnknown() && plan.Size.ValueInt64() < state.Size.ValueInt64() {
			resp.Diagnostics.AddAttributeError(path.Root("size"), "Filesystem cannot shrink",
				fmt.Sprintf("The filesystem holds %d GiB; the service can only grow it, so size must be at least that, got %d.", state.Size.ValueInt64(), plan.Size.ValueInt64()))
		}
	}
	r.Meta.CheckName(ctx, kind.Name, req, resp)
}

func (r *filesystemResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
	c := r.Meta.Client.Filesystems
	kit.CreateAndWait(ctx, r.Meta, kind, kit.Into(&plan, &resp.State, &resp.Diagnostics),
		func() (*compute.Filesystem, error) { return c.CreateOnce(ctx, plan.request(), r.Meta.Once()...) },
		c.WaitForStatus, compute.FilesystemStatusCreated, func(v *compute.Filesystem) bool { return v.Status == compute.FilesystemStatusCreated })
}

func (r *filesystemResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	kind.Read(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.Filesystems.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *filesystemResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	var up compute.FilesystemUpdateRequest
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
	v, err := r.Meta.Client.Filesystems.Update(ctx, id, &up)
	if err != nil {
		kit.AddError(&resp.Diagnostics, "update the filesystem "+kit.Safe(id), err, kind.Fields)
		return
	}
	plan.Set(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete deletes the filesystem and waits until it is gone; with retain_on_delete it only leaves
// the state.
func (r *filesystemResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
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
	kind.Delete(ctx, r.Meta, id, r.Meta.Client.Filesystems.DeleteAndWait, &resp.Diagnostics)
}

// ImportState takes a filesystem's ID, or name=<name> for the one filesystem with that name.
func (r *filesystemResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kind.Import(ctx, req.ID, r.Meta.Client.Filesystems.FindByName, path.Root("id"), resp)
}

// MoveState takes over the state of the official provider's genesiscloud_filesystem.
func (r *filesystemResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "filesystem", nil)}
}
