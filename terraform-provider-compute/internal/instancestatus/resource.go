// Package instancestatus is the compute_instance_status resource: whether an instance runs
// (active) or is stopped.
package instancestatus

import (
	"context"
	"errors"
	"fmt"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_instance_status resource.
func New() resource.Resource { return &statusResource{} }

type statusResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &statusResource{}
	_ resource.ResourceWithImportState = &statusResource{}
	_ resource.ResourceWithModifyPlan  = &statusResource{}
	_ resource.ResourceWithMoveState   = &statusResource{}
)

// model is the state of a compute_instance_status.
type model struct {
	InstanceID types.String   `tfsdk:"instance_id"`
	Status     types.String   `tfsdk:"status"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
}

// Set copies the instance's status as the service shows it into m.
func (m *model) Set(inst *compute.Instance) {
	m.InstanceID = types.StringValue(inst.ID)
	m.Status = types.StringValue(string(inst.Status))
}

// instance is the kind the resource reads and imports.
var instance = kit.Kind[compute.Instance]{Name: "instance", ID: func(i *compute.Instance) string { return i.ID }}

func (r *statusResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_status"
}

func (r *statusResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The power status of an instance: `active` (started) or `stopped`. An apply starts or stops the instance and waits until it has the status, waiting first for a transition in progress (`starting`, `stopping`) to end. A destroy leaves the instance as it is.",
		Attributes: map[string]schema.Attribute{
			"instance_id": schema.StringAttribute{
				MarkdownDescription: "The id of the instance this refers to. Changing it replaces the resource.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the resource.", nil)},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The target instance status: `active` or `stopped`.",
				Required:            true,
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan refuses, before any request, a status the instance cannot be put in.
func (r *statusResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if plan.Status.IsUnknown() {
		return
	}
	switch compute.InstanceStatus(plan.Status.ValueString()) {
	case compute.InstanceStatusActive, compute.InstanceStatusStopped:
	default:
		resp.Diagnostics.AddAttributeError(path.Root("status"), "Invalid status",
			fmt.Sprintf("status must be %q or %q, got %q.", compute.InstanceStatusActive, compute.InstanceStatusStopped, kit.Safe(plan.Status.ValueString())))
	}
}

func (r *statusResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
	if r.reach(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

// reach starts or stops the instance until it has the planned status, and reports whether it does.
// A transition in progress is waited out first; an instance in error is stopped, as the service
// allows; any other status is refused.
func (r *statusResource) reach(ctx context.Context, m *model, diags *diag.Diagnostics) bool {
	c := r.Meta.Client.Instances
	id := m.InstanceID.ValueString()
	target := compute.InstanceStatus(m.Status.ValueString())
	fail := func(what string, err error) bool {
		kit.AddError(diags, what, err, nil)
		return false
	}
	inst, err := c.Get(ctx, id)
	if err != nil {
		return fail("read the instance "+kit.Safe(id), err)
	}
	for range 3 { // at most: wait out a transition, act, wait for the target
		switch s := inst.Status; {
		case s == target:
			return true
		case s == compute.InstanceStatusStopped && target == compute.InstanceStatusActive:
			if err := c.Start(ctx, id); err != nil && !settling(err) {
				return fail("start the instance "+kit.Safe(id), err)
			}
		case (s == compute.InstanceStatusActive || s == compute.InstanceStatusError) && target == compute.InstanceStatusStopped:
			if err := c.Stop(ctx, id); err != nil && !settling(err) {
				return fail("stop the instance "+kit.Safe(id), err)
			}
		case s == compute.InstanceStatusStopping:
			if inst, err = c.WaitForStatus(ctx, id, compute.InstanceStatusStopped, r.Meta.Wait...); err != nil {
				return fail("wait for the instance "+kit.Safe(id)+" to stop", err)
			}
			continue
		case s == compute.InstanceStatusStarting || s == compute.InstanceStatusCreating || s == compute.InstanceStatusResetting:
			if inst, err = c.WaitForStatus(ctx, id, compute.InstanceStatusActive, r.Meta.Wait...); err != nil {
				return fail("wait for the instance "+kit.Safe(id)+" to be active", err)
			}
			continue
		default:
			diags.AddError("Cannot change the instance's status", fmt.Sprintf("The instance %s is %s; it cannot be made %s.", kit.Safe(id), kit.Safe(string(s)), target))
			return false
		}
		if inst, err = c.WaitForStatus(ctx, id, target, r.Meta.Wait...); err != nil {
			return fail(fmt.Sprintf("wait for the instance %s to be %s", kit.Safe(id), target), err)
		}
	}
	return inst.Status == target
}

// settling reports an action's error after which waiting for the target still makes sense: an
// outcome unknown (the action may have been taken), or a refusal because of a status that changed
// meanwhile.
func settling(err error) bool {
	return errors.Is(err, compute.ErrOutcomeUnknown) || errors.Is(err, compute.CodeInstanceAlreadyStarted)
}

func (r *statusResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	instance.Read(ctx, r.Meta, state.InstanceID.ValueString(), r.Meta.Client.Instances.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *statusResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	if r.reach(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

// Delete leaves the instance as it is: the resource only leaves the state.
func (r *statusResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// ImportState takes the instance's ID, or name=<name> for the one instance with that name.
func (r *statusResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	instance.Import(ctx, req.ID, r.Meta.Client.Instances.FindByName, path.Root("instance_id"), resp)
}

// MoveState takes over the state of the official provider's genesiscloud_instance_status.
func (r *statusResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "instance_status", nil)}
}
