// Package instance is the compute_instance resource: a virtual machine.
package instance

import (
	"context"
	"fmt"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_instance resource.
func New() resource.Resource { return &instanceResource{} }

type instanceResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &instanceResource{}
	_ resource.ResourceWithImportState = &instanceResource{}
	_ resource.ResourceWithModifyPlan  = &instanceResource{}
	_ resource.ResourceWithMoveState   = &instanceResource{}
)

// kind names the resource in messages and in the name checks, and maps the requests' fields to the
// attributes.
var kind = kit.Kind[compute.Instance]{
	Name: "instance",
	Fields: kit.Fields{
		"name": path.Root("name"), "hostname": path.Root("hostname"), "type": path.Root("type"),
		"region": path.Root("region"), "image": path.Root("image"), "placement_option": path.Root("placement_option"),
		"floating_ip": path.Root("floating_ip_id"), "ssh_keys[]": path.Root("ssh_key_ids"), "password": path.Root("password"),
		"volumes[]": path.Root("volume_ids"), "security_groups[]": path.Root("security_group_ids"),
		"disk_size": path.Root("disk_size"), "metadata": path.Root("metadata"), "reservation_id": path.Root("reservation_id"),
	},
	ID: func(i *compute.Instance) string { return i.ID },
}

func (r *instanceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance"
}

// keepImported keeps, without replacing the instance, the first configured value of an attribute
// the service does not show, on an instance read by an import.
func keepImported(ctx context.Context, req planmodifier.StringRequest) bool {
	return kit.Imported(ctx, req.Private)
}

func (r *instanceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	unknownKeep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A virtual machine. A create waits until the instance is `active`; a destroy waits until the service says it is gone. " +
			"A create is sent once: when its response is lost, the provider finds the instance it made by its name instead of making a second one.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The unique ID of the instance.",
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The human-readable name for the instance. Changing it renames the instance in place (its hostname stays). Two instances of one configuration cannot share a name.",
				Required:            true,
			},
			"hostname": schema.StringAttribute{
				MarkdownDescription: "The hostname of your instance. If not provided will be initially set to the `name` attribute. Changing a configured hostname replaces the instance.",
				Optional:            true,
				Computed:            true,
				PlanModifiers: []planmodifier.String{
					kit.ReplaceString("Changing a configured hostname replaces the instance.", func(_ context.Context, req planmodifier.StringRequest) bool {
						return req.ConfigValue.IsNull()
					}),
					stringplanmodifier.UseStateForUnknown(),
				},
			},
			"dns_name": schema.StringAttribute{
				MarkdownDescription: "The DNS name of the instance.",
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "The instance type identifier, such as `vcpu-2_memory-4g` (`compute_instance_types` lists those of a region). Changing it replaces the instance.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the instance.", nil)},
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "The region identifier, such as `NORD-NO-KRS-1`. Regions are added and retired over time, so any identifier is accepted and the service says whether it knows it. Changing it replaces the instance.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the instance.", nil)},
			},
			"image": schema.StringAttribute{
				MarkdownDescription: "The source image ID, image slug or snapshot ID of the instance. The image version can also be given together with the image slug as `<image-slug>:<version>`. Changing it replaces the instance. An imported instance shows its image's ID here until the next apply takes the configured value.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the instance.", keepImported)},
			},
			"image_id": schema.StringAttribute{
				MarkdownDescription: "The resulting image ID of the instance.",
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"disk_size": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("The boot disk size of the instance in GiB, at least %d (the service's default). It can grow in place, never shrink: a smaller value is refused at plan time.", compute.MinDiskSize),
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"metadata": schema.SingleNestedAttribute{
				MarkdownDescription: "Option to provide metadata. Currently supported is `startup_script`.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"startup_script": schema.StringAttribute{
						MarkdownDescription: fmt.Sprintf("A plain text bash script or \"cloud-config\" file that will be executed after the first instance boot, at most 64 KiB (%d bytes): a larger one is refused at plan time. Sensitive. The service does not show it back, so it is kept as configured; changing it replaces the instance.", compute.MaxStartupScriptSize),
						Optional:            true,
						Sensitive:           true,
						PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the instance.", keepImported)},
					},
				},
			},
			"floating_ip_id": schema.StringAttribute{
				MarkdownDescription: "The floating IP attached to the instance. The service attaches a floating IP only when it creates an instance, so changing it replaces the instance.",
				Optional:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the instance.", nil)},
			},
			"password": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("The password to access the instance, at least %d characters. **Please Note**: Only one of `ssh_key_ids` or `password` can be provided. Password is less secure - we recommend you use an SSH key-pair. Write-only: it is sent when the instance is created and never stored in the state (Terraform 1.11 or later), so changing it later changes nothing.", compute.MinPasswordLength),
				Optional:            true,
				Sensitive:           true,
				WriteOnly:           true,
			},
			"placement_option": schema.StringAttribute{
				MarkdownDescription: "The placement option identifier in which instances are physically located relative to each other within a zone, `AUTO` by default. Changing it replaces the instance.",
				Optional:            true,
				Computed:            true,
				PlanModifiers: []planmodifier.String{
					kit.ReplaceString("Changing it replaces the instance.", func(_ context.Context, req planmodifier.StringRequest) bool {
						return req.ConfigValue.IsNull()
					}),
					stringplanmodifier.UseStateForUnknown(),
				},
			},
			"private_ip": schema.StringAttribute{
				MarkdownDescription: "The private IPv4 address.",
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"public_ip": schema.StringAttribute{
				MarkdownDescription: "The public IPv4 address.",
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"security_group_ids": schema.SetAttribute{
				MarkdownDescription: "The security groups of the instance. Changing them attaches and detaches in place; an empty set detaches all. Left unset, the instance keeps those the service gives it.",
				ElementType:         types.StringType,
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
			},
			"ssh_key_ids": schema.SetAttribute{
				MarkdownDescription: "The SSH keys installed on the instance when it is created. Changing them replaces the instance.",
				ElementType:         types.StringType,
				Optional:            true,
				PlanModifiers:       []planmodifier.Set{kit.ReplaceSet("Changing them replaces the instance.")},
			},
			"volume_ids": schema.SetAttribute{
				MarkdownDescription: "The volumes of the instance. Changing them attaches and detaches in place; an empty set detaches all. Left unset, the instance keeps what is attached to it.",
				ElementType:         types.StringType,
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
			},
			"reservation_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the reservation the instance is associated with (billed as reserved). Changing it associates the instance with another reservation in place.",
				Optional:            true,
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The instance status.",
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this instance was created in RFC 3339.",
				Computed:            true,
				PlanModifiers:       unknownKeep,
			},
			"updated_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this instance was last updated in RFC 3339.",
				Computed:            true,
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan checks a create offline (names, password, disk size, startup script size, ssh_key_ids
// or password), refuses a disk that would shrink, and a name another instance of the configuration
// has, all before any request.
func (r *instanceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan model
	var password types.String
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password"), &password)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		if err := plan.request(password, true).Validate(); err != nil {
			kit.AddError(&resp.Diagnostics, "create the instance", err, kind.Fields)
		}
	} else {
		var state model
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !plan.DiskSize.IsUnknown() && !plan.DiskSize.IsNull() && !state.DiskSize.IsNull() && plan.DiskSize.ValueInt64() < state.DiskSize.ValueInt64() {
			resp.Diagnostics.AddAttributeError(path.Root("disk_size"), "Disk cannot shrink",
				fmt.Sprintf("The instance's disk is %d GiB; the service can only grow it, so disk_size must be at least that, got %d.",
					state.DiskSize.ValueInt64(), plan.DiskSize.ValueInt64()))
		}
		if !plan.DiskSize.IsUnknown() && !plan.DiskSize.IsNull() && plan.DiskSize.ValueInt64() < compute.MinDiskSize {
			resp.Diagnostics.AddAttributeError(path.Root("disk_size"), "Invalid disk_size",
				fmt.Sprintf("disk_size must be at least %d GiB, got %d.", compute.MinDiskSize, plan.DiskSize.ValueInt64()))
		}
	}
	r.Meta.CheckName(ctx, kind.Name, req, resp)
}

func (r *instanceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan model
	var password types.String
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password"), &password)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	createReq := plan.request(password, false)
	if resp.Diagnostics.HasError() {
		return
	}
	c := r.Meta.Client.Instances
	// Always waits: a create answers before the instance is active.
	kit.CreateAndWait(ctx, r.Meta, kind, kit.Into(&plan, &resp.State, &resp.Diagnostics),
		func() (*compute.Instance, error) { return c.CreateOnce(ctx, createReq, r.Meta.Once()...) },
		c.WaitForStatus, compute.InstanceStatusActive, nil)
}

func (r *instanceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	kind.Read(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.Instances.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *instanceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	var up compute.InstanceUpdateRequest
	changed := false
	if !plan.Name.Equal(state.Name) {
		up.Name, changed = compute.Ptr(plan.Name.ValueString()), true
	}
	if !plan.DiskSize.IsUnknown() && !plan.DiskSize.IsNull() && !plan.DiskSize.Equal(state.DiskSize) {
		up.DiskSize, changed = compute.Ptr(int(plan.DiskSize.ValueInt64())), true
	}
	if !plan.ReservationID.IsUnknown() && !plan.ReservationID.IsNull() && !plan.ReservationID.Equal(state.ReservationID) {
		up.ReservationID, changed = compute.Ptr(plan.ReservationID.ValueString()), true
	}
	if !plan.SecurityGroupIDs.IsUnknown() && !plan.SecurityGroupIDs.IsNull() && !plan.SecurityGroupIDs.Equal(state.SecurityGroupIDs) {
		up.SecurityGroups, changed = kit.IDs(plan.SecurityGroupIDs, false), true
	}
	if !plan.VolumeIDs.IsUnknown() && !plan.VolumeIDs.IsNull() && !plan.VolumeIDs.Equal(state.VolumeIDs) {
		up.Volumes, changed = kit.IDs(plan.VolumeIDs, false), true
	}
	if resp.Diagnostics.HasError() {
		return
	}
	c := r.Meta.Client.Instances
	var inst *compute.Instance
	var err error
	if changed {
		if inst, err = c.Update(ctx, id, &up); err != nil {
			kit.AddError(&resp.Diagnostics, "update the instance "+kit.Safe(id), err, kind.Fields)
			return
		}
		if inst.Status != compute.InstanceStatusActive {
			inst, err = c.WaitForStatus(ctx, id, compute.InstanceStatusActive, r.Meta.Wait...)
		}
	} else {
		// Only what the service does not show changed (the image as written, after an import).
		inst, err = c.Get(ctx, id)
	}
	if inst != nil {
		plan.Set(inst)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		resp.Diagnostics.Append(kit.ClearImported(ctx, resp.Private)...)
	}
	if err != nil {
		kit.AddError(&resp.Diagnostics, "update the instance "+kit.Safe(id), err, kind.Fields)
	}
}

func (r *instanceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state model
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := kit.Deadline(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	kind.Delete(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.Instances.DeleteAndWait, &resp.Diagnostics)
}

// ImportState takes an instance's ID, or name=<name> for the one instance with that name.
func (r *instanceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if kind.Import(ctx, req.ID, r.Meta.Client.Instances.FindByName, path.Root("id"), resp) {
		resp.Diagnostics.Append(kit.MarkImported(ctx, resp.Private)...)
	}
}

// MoveState takes over the state of the official provider's genesiscloud_instance.
func (r *instanceResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "instance", nil)}
}
