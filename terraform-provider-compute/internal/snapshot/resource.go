// Package snapshot is the compute_snapshot resource: a snapshot of an instance, or a copy of a
// snapshot in another region.
package snapshot

import (
	"context"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_snapshot resource.
func New() resource.Resource { return &snapshotResource{} }

type snapshotResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &snapshotResource{}
	_ resource.ResourceWithImportState = &snapshotResource{}
	_ resource.ResourceWithModifyPlan  = &snapshotResource{}
	_ resource.ResourceWithMoveState   = &snapshotResource{}
)

var kind = kit.Kind[compute.Snapshot]{
	Name:   "snapshot",
	Fields: kit.Fields{"name": path.Root("name"), "replicated_region": path.Root("replicated_region"), "region": path.Root("region")},
	ID:     func(s *compute.Snapshot) string { return s.ID },
}

func (r *snapshotResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshot"
}

func (r *snapshotResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replace := func(what string) []planmodifier.String {
		return []planmodifier.String{kit.ReplaceString("Changing it replaces the "+what+".", nil)}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A snapshot: of an instance (`source_instance_id`), or a copy of a snapshot in a region (`source_snapshot_id` and `region`). A create waits until it is created; a destroy waits until the service says it is gone. Its ID is an image for `compute_instance`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The unique ID of the snapshot.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The human-readable name for the snapshot. Changing it renames the snapshot in place. Two snapshots of one configuration cannot share a name.",
				Required:            true,
			},
			"source_instance_id": schema.StringAttribute{
				MarkdownDescription: "The id of the source instance from which this snapshot was derived. Give it or `source_snapshot_id`. Only an active instance can be snapshotted. Changing it replaces the snapshot.",
				Optional:            true,
				PlanModifiers:       replace("snapshot"),
			},
			"source_snapshot_id": schema.StringAttribute{
				MarkdownDescription: "The id of the source snapshot from which this snapshot was derived: the snapshot is then a copy in `region`. Changing it replaces the snapshot.",
				Optional:            true,
				PlanModifiers:       replace("snapshot"),
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "The region identifier. Should only be explicitly specified when using the `source_snapshot_id` (it is then required); a snapshot of an instance is in the instance's region.",
				Optional:            true,
				Computed:            true,
				PlanModifiers: []planmodifier.String{
					kit.ReplaceString("Changing it replaces the snapshot.", func(_ context.Context, req planmodifier.StringRequest) bool {
						return req.ConfigValue.IsNull()
					}),
					stringplanmodifier.UseStateForUnknown(),
				},
			},
			"replicated_region": schema.StringAttribute{
				MarkdownDescription: "Target region for snapshot replication. When specified, also creates a copy of the snapshot in the given region. If omitted, the snapshot exists only in the current region. The service takes it only when it takes the snapshot, so changing it replaces the snapshot.",
				Optional:            true,
				PlanModifiers:       replace("snapshot"),
			},
			"size": schema.Int64Attribute{
				MarkdownDescription: "The storage size of this snapshot given in GiB.",
				Computed:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The snapshot status.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this snapshot was created in RFC 3339.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"retain_on_delete": schema.BoolAttribute{
				MarkdownDescription: "Flag to retain the snapshot when the resource is deleted: it then only leaves the state. Defaults to `false`.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan checks the sources (one of source_instance_id and source_snapshot_id; region with a
// source snapshot only, replicated_region with a source instance only) and the name, and refuses a
// name another snapshot of the configuration has, before any request.
func (r *snapshotResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var cfg model
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		inst, snap := !cfg.SourceInstanceID.IsNull(), !cfg.SourceSnapshotID.IsNull()
		switch {
		case inst == snap:
			resp.Diagnostics.AddAttributeError(path.Root("source_instance_id"), "Invalid snapshot source",
				"Give either source_instance_id (a snapshot of an instance) or source_snapshot_id (a copy of a snapshot), not both and not neither.")
		case inst && !cfg.Region.IsNull():
			resp.Diagnostics.AddAttributeError(path.Root("region"), "Invalid region",
				"A snapshot of an instance is in the instance's region: leave region out, or use replicated_region for a copy elsewhere.")
		case snap && cfg.Region.IsNull():
			resp.Diagnostics.AddAttributeError(path.Root("region"), "Missing region",
				"A copy of a snapshot (source_snapshot_id) needs the region to copy it to.")
		case snap && !cfg.ReplicatedRegion.IsNull():
			resp.Diagnostics.AddAttributeError(path.Root("replicated_region"), "Invalid replicated_region",
				"replicated_region goes with source_instance_id; a copy of a snapshot is made in region.")
		}
		if err := (&compute.SnapshotCreateRequest{Name: kit.Known(cfg.Name)}).Validate(); err != nil {
			kit.AddError(&resp.Diagnostics, "create the snapshot", err, kind.Fields)
		}
	}
	r.Meta.CheckName(ctx, kind.Name, req, resp)
}

func (r *snapshotResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
	c := r.Meta.Client.Snapshots
	create := func() (*compute.Snapshot, error) {
		if !plan.SourceInstanceID.IsNull() {
			return c.CreateOnce(ctx, plan.SourceInstanceID.ValueString(), &compute.SnapshotCreateRequest{
				Name: plan.Name.ValueString(), ReplicatedRegion: plan.ReplicatedRegion.ValueString(),
			}, r.Meta.Once()...)
		}
		return c.CloneOnce(ctx, plan.SourceSnapshotID.ValueString(), &compute.SnapshotCloneRequest{
			Name: plan.Name.ValueString(), Region: plan.Region.ValueString(),
		}, r.Meta.Once()...)
	}
	kit.CreateAndWait(ctx, r.Meta, kind, kit.Into(&plan, &resp.State, &resp.Diagnostics), create,
		c.WaitForStatus, compute.SnapshotStatusCreated, func(s *compute.Snapshot) bool { return s.Status == compute.SnapshotStatusCreated })
}

func (r *snapshotResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	kind.Read(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.Snapshots.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *snapshotResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	if plan.Name.Equal(state.Name) {
		state.RetainOnDelete, state.Timeouts = plan.RetainOnDelete, plan.Timeouts // nothing for the service
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	s, err := r.Meta.Client.Snapshots.Update(ctx, id, &compute.SnapshotUpdateRequest{Name: plan.Name.ValueString()})
	if err != nil {
		kit.AddError(&resp.Diagnostics, "rename the snapshot "+kit.Safe(id), err, kind.Fields)
		return
	}
	plan.Set(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete deletes the snapshot and waits until it is gone; with retain_on_delete it only leaves the
// state.
func (r *snapshotResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
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
	kind.Delete(ctx, r.Meta, id, r.Meta.Client.Snapshots.DeleteAndWait, &resp.Diagnostics)
}

// ImportState takes a snapshot's ID, or name=<name> for the one snapshot with that name.
func (r *snapshotResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kind.Import(ctx, req.ID, r.Meta.Client.Snapshots.FindByName, path.Root("id"), resp)
}

// MoveState takes over the state of the official provider's genesiscloud_snapshot.
func (r *snapshotResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "snapshot", nil)}
}
