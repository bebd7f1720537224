// Package sshkey is the compute_ssh_key resource: an SSH public key stored in the account.
package sshkey

import (
	"context"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_ssh_key resource.
func New() resource.Resource { return &sshKeyResource{} }

type sshKeyResource struct{ kit.ResourceBase }

var (
	_ resource.ResourceWithConfigure   = &sshKeyResource{}
	_ resource.ResourceWithImportState = &sshKeyResource{}
	_ resource.ResourceWithModifyPlan  = &sshKeyResource{}
	_ resource.ResourceWithMoveState   = &sshKeyResource{}
)

// kind names the resource in messages and in the name checks, and maps the request's fields to the
// attributes.
var kind = kit.Kind[compute.SSHKey]{
	Name:   "SSH key",
	Fields: kit.Fields{"name": path.Root("name"), "value": path.Root("public_key")},
	ID:     func(k *compute.SSHKey) string { return k.ID },
}

func (r *sshKeyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ssh_key"
}

func (r *sshKeyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An SSH public key stored in the account, to install on new instances (`ssh_key_ids` of `compute_instance`).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The unique ID of the SSH key.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The human-readable name for the SSH key. Changing it renames the key in place. Two keys of one configuration cannot share a name.",
				Required:            true,
			},
			"public_key": schema.StringAttribute{
				MarkdownDescription: "SSH public key: one OpenSSH public key line, such as the content of `id_ed25519.pub`. A private key is refused before anything is sent. Changing it replaces the key.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{kit.ReplaceString("Changing it replaces the SSH key.", nil)},
			},
			"fingerprint": schema.StringAttribute{
				MarkdownDescription: "The fingerprint of the SSH key.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "The timestamp when this SSH key was created in RFC 3339.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": kit.Timeouts(ctx),
		},
	}
}

// ModifyPlan checks the key offline, before any request, and refuses a name another key of the
// configuration has.
func (r *sshKeyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Name.IsUnknown() && !plan.PublicKey.IsUnknown() {
		if err := plan.request().Validate(); err != nil {
			kit.AddError(&resp.Diagnostics, "create the SSH key", err, kind.Fields)
		}
	}
	r.Meta.CheckName(ctx, kind.Name, req, resp)
}

func (r *sshKeyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
	key, err := r.Meta.Client.SSHKeys.CreateOnce(ctx, plan.request(), r.Meta.Once()...)
	if err != nil {
		kit.AddError(&resp.Diagnostics, "create the SSH key", err, kind.Fields)
		return
	}
	plan.Set(key)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *sshKeyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
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
	kind.Read(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.SSHKeys.Get, kit.Into(&state, &resp.State, &resp.Diagnostics))
}

func (r *sshKeyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	if !plan.Name.Equal(state.Name) {
		key, err := r.Meta.Client.SSHKeys.Update(ctx, state.ID.ValueString(), &compute.SSHKeyUpdateRequest{Name: plan.Name.ValueString()})
		if err != nil {
			kit.AddError(&resp.Diagnostics, "rename the SSH key "+kit.Safe(state.ID.ValueString()), err, kind.Fields)
			return
		}
		plan.Set(key)
	} else {
		plan.ID, plan.Fingerprint, plan.CreatedAt = state.ID, state.Fingerprint, state.CreatedAt
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *sshKeyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
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
	kind.Delete(ctx, r.Meta, state.ID.ValueString(), r.Meta.Client.SSHKeys.DeleteAndWait, &resp.Diagnostics)
}

// ImportState takes an SSH key's ID, or name=<name> for the one key with that name.
func (r *sshKeyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if r.Meta == nil {
		resp.Diagnostics.AddError("Provider not configured", "The provider must be configured to import.")
		return
	}
	kind.Import(ctx, req.ID, r.Meta.Client.SSHKeys.FindByName, path.Root("id"), resp)
}

// MoveState takes over the state of the official provider's genesiscloud_ssh_key.
func (r *sshKeyResource) MoveState(ctx context.Context) []resource.StateMover {
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	return []resource.StateMover{kit.MoveFrom(s.Schema, "ssh_key", nil)}
}
