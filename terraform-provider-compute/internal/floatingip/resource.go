// Package floatingip is the compute_floating_ip resource: a static public address.
package floatingip

import (
	"context"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_floating_ip resource.
func New() resource.Resource { return &floatingIPResource{} }

type floatingIPResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &floatingIPResource{}
	_ resource.ResourceWithImportState = &floatingIPResource{}
	_ resource.ResourceWithModifyPlan  = &floatingIPResource{}
	_ resource.ResourceWithMoveState   = &floatingIPResource{}
)

var kind = kit.Kind[compute.FloatingIP]{
	Name:   "floating IP",
	Fields: kit.Fields{"name": path.Root("name"), "description": path.Root("description"), "region": path.Root("region"), "version": path.Root("version")},
	ID:     func(f *compute.FloatingIP) string { return f.ID },
}

func (r *floatingIPResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_floating_ip"
}

func (r *floatingIPResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A floating IP: a public address to attach to a new instance (`floating_ip_id` of `compute_instance`). A create waits until the address is assigned. A destroy waits while an instance still uses it: the service detaches a floating IP only by deleting the instance.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The unique ID of the floating IP.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The human-readable name for the floating IP. Changing it renames it in place. Two floating IPs of one configuration cannot share a name.",
				Required:            true,
			},
			"description": schema.StringAttribute{
				MarkdownDescription: "The human-readable description set for the floating IP. Defaults to the empty string.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "The region identifier, such as `NORD-NO-KRS-1`. Changing it replaces the floating IP.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the floating IP.", nil)},
			},
			"version": schema.StringAttribute{
				MarkdownDescription: "The version of the floating IP: `ipv4`, the only one the service creates today and the default (the official provider requires it; here it may be left out). Changing it replaces the floating IP.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(string(compute.IPVersionIPv4)),
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the floating IP.", nil)},
			},
			"ip_address": schema.StringAttribute{
				MarkdownDescription: "The IP address of the floating IP.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"is_public": schema.BoolAttribute{
				MarkdownDescription: "Whether the floating IP is public or private (all are public today).",
				Computed:            true,
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The floating IP status.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this floating IP was created in RFC 3339.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"updated_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this floating IP was last updated in RFC 3339.",
				Computed:            true,
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan checks the floating IP offline and refuses a name another floating IP of the
// configuration has, before any request.
func (r *floatingIPResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := plan.request().Validate(); err != nil {
		kit.AddError(&resp.Diagnostics, "create the floating IP", err, kind.Fields)
	}
	r.Meta.CheckName(ctx, kind.Name, req, resp)
}

func (r *floatingIPResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
	c := r.Meta.Client.FloatingIPs
	// Settled once created with its address assigned.
	kit.CreateAndWait(ctx, r.Meta, kind, kit.Into(&plan, &resp.State, &resp.Diagnostics),
		func() (*compute.FloatingIP, error) { return c.CreateOnce(ctx, plan.request(), r.Meta.Once()...) },
		c.WaitForStatus, compute.FloatingIPStatusCreated, func(f *compute.FloatingIP) bool {
			return f.Status == compute.FloatingIPStatusCreated && f.IPAddress != ""
		})
}

func (r *floatingIPResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	kind.Read(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.FloatingIPs.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *floatingIPResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	var up compute.FloatingIPUpdateRequest
	if !plan.Name.Equal(state.Name) {
		up.Name = compute.Ptr(plan.Name.ValueString())
	}
	if !plan.Description.Equal(state.Description) {
		up.Description = compute.Ptr(plan.Description.ValueString())
	}
	if up.Name == nil && up.Description == nil {
		state.Timeouts = plan.Timeouts // only the timeouts changed
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	f, err := r.Meta.Client.FloatingIPs.Update(ctx, id, &up)
	if err != nil {
		kit.AddError(&resp.Diagnostics, "update the floating IP "+kit.Safe(id), err, kind.Fields)
		return
	}
	plan.Set(f)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *floatingIPResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	kind.Delete(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.FloatingIPs.DeleteAndWait, &resp.Diagnostics)
}

// ImportState takes a floating IP's ID, or name=<name> for the one floating IP with that name.
func (r *floatingIPResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kind.Import(ctx, req.ID, r.Meta.Client.FloatingIPs.FindByName, path.Root("id"), resp)
}

// MoveState takes over the state of the official provider's genesiscloud_floating_ip.
func (r *floatingIPResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "floating_ip", nil)}
}
