// Package securitygroup is the compute_security_group resource: firewall rules for instances.
package securitygroup

import (
	"context"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_security_group resource.
func New() resource.Resource { return &securityGroupResource{} }

type securityGroupResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &securityGroupResource{}
	_ resource.ResourceWithImportState = &securityGroupResource{}
	_ resource.ResourceWithModifyPlan  = &securityGroupResource{}
	_ resource.ResourceWithMoveState   = &securityGroupResource{}
)

var kind = kit.Kind[compute.SecurityGroup]{
	Name:   "security group",
	Fields: kit.Fields{"name": path.Root("name"), "description": path.Root("description"), "region": path.Root("region"), "rules": path.Root("rules")},
	ID:     func(g *compute.SecurityGroup) string { return g.ID },
}

func (r *securityGroupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_security_group"
}

func (r *securityGroupResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A security group: firewall rules that drop or allow traffic to the ports of the instances it is attached to (`security_group_ids` of `compute_instance`). A destroy waits while instances still use it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The unique ID of the security group.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The human-readable name for the security group; `default` and `standard` are reserved. Changing it renames the group in place. Two groups of one configuration cannot share a name.",
				Required:            true,
			},
			"description": schema.StringAttribute{
				MarkdownDescription: "The human-readable description for the security group. Defaults to the empty string.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(""),
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "The region identifier, such as `NORD-NO-KRS-1`. Any identifier is accepted: the service says whether it knows it. Changing it replaces the security group.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the security group.", nil)},
			},
			"rules": schema.ListNestedAttribute{
				MarkdownDescription: "The firewall rules, the whole list: a change replaces the group's rules in place. An empty list is accepted, as the service accepts it.",
				Required:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"direction": schema.StringAttribute{
							MarkdownDescription: "The direction of the rule: `ingress` or `egress`.",
							Required:            true,
						},
						"protocol": schema.StringAttribute{
							MarkdownDescription: "The protocol of the rule: `icmp`, `tcp`, `udp` or `all`.",
							Required:            true,
						},
						"port_range_min": schema.Int64Attribute{
							MarkdownDescription: "The minimum port number of the rule, 0 to 65535. Unset means all ports; `icmp` has no ports.",
							Optional:            true,
						},
						"port_range_max": schema.Int64Attribute{
							MarkdownDescription: "The maximum port number of the rule, 0 to 65535 and not below `port_range_min`. Unset means all ports.",
							Optional:            true,
						},
					},
				},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The security group status.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this security group was created in RFC 3339.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan checks the group offline (the reserved names, the rules' protocols, directions and
// ports) and refuses a name another group of the configuration has, before any request.
func (r *securityGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name, region := plan.Name.ValueString(), plan.Region.ValueString()
	if plan.Name.IsUnknown() {
		name = kit.Placeholder
	}
	if plan.Region.IsUnknown() {
		region = kit.Placeholder
	}
	check := &compute.SecurityGroupCreateRequest{Name: name, Region: region, Rules: plan.rules()}
	if err := check.Validate(); err != nil {
		kit.AddError(&resp.Diagnostics, "create or update the security group", err, kind.Fields)
	}
	r.Meta.CheckName(ctx, kind.Name, req, resp)
}

func (r *securityGroupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
	c := r.Meta.Client.SecurityGroups
	kit.CreateAndWait(ctx, r.Meta, kind, kit.Into(&plan, &resp.State, &resp.Diagnostics), func() (*compute.SecurityGroup, error) {
		return c.CreateOnce(ctx, &compute.SecurityGroupCreateRequest{
			Name: plan.Name.ValueString(), Description: plan.Description.ValueString(), Region: plan.Region.ValueString(), Rules: plan.rules(),
		}, r.Meta.Once()...)
	}, c.WaitForStatus, compute.SecurityGroupStatusCreated, created)
}

// created reports whether the group is created: a create or an update then needs no wait.
func created(g *compute.SecurityGroup) bool { return g.Status == compute.SecurityGroupStatusCreated }

func (r *securityGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	kind.Read(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.SecurityGroups.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *securityGroupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	c := r.Meta.Client.SecurityGroups
	g, err := c.Update(ctx, id, &compute.SecurityGroupUpdateRequest{
		Name: plan.Name.ValueString(), Description: plan.Description.ValueString(), Rules: plan.rules(),
	})
	if err != nil {
		kit.AddError(&resp.Diagnostics, "update the security group "+kit.Safe(id), err, kind.Fields)
		return
	}
	kit.Settle(ctx, r.Meta, kind, kit.Into(&plan, &resp.State, &resp.Diagnostics), g, c.WaitForStatus, compute.SecurityGroupStatusCreated, created)
}

func (r *securityGroupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	kind.Delete(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.SecurityGroups.DeleteAndWait, &resp.Diagnostics)
}

// ImportState takes a security group's ID, or name=<name> for the one group with that name.
func (r *securityGroupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kind.Import(ctx, req.ID, r.Meta.Client.SecurityGroups.FindByName, path.Root("id"), resp)
}

// MoveState takes over the state of the official provider's genesiscloud_security_group.
func (r *securityGroupResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "security_group", nil)}
}
