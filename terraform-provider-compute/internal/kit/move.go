package kit

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// OfficialType is the provider type name of the service's own provider (source
// genesiscloud/genesiscloud), whose resources a moved block can hand to this provider.
const OfficialType = "genesiscloud"

// MoveFrom returns the state mover that takes over the state of the official provider's resource of
// the same kind (kind "instance": genesiscloud_instance), for a moved block such as
//
//	moved {
//	  from = genesiscloud_instance.vm
//	  to   = compute_instance.vm
//	}
//
// The two share their attributes' names, types and nesting, so the state is read as it is, with no
// request to the service: an attribute this provider does not have is dropped, one the official
// provider did not have is null until the next refresh reads it, and a write-only attribute (an
// instance's password) is dropped from the state. fix, when set, adjusts what the two providers
// store differently.
func MoveFrom(target schema.Schema, kind string, fix func(context.Context, *tfsdk.State) error) resource.StateMover {
	return resource.StateMover{
		StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
			if req.SourceTypeName != OfficialType+"_"+kind || !official(req.SourceProviderAddress) || req.SourceRawState == nil {
				return // not ours: another mover may take it
			}
			v, err := req.SourceRawState.UnmarshalWithOpts(target.Type().TerraformType(ctx),
				tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
			if err != nil {
				resp.Diagnostics.AddError("Cannot move the state",
					"The state of "+req.SourceTypeName+" does not have the shape this provider reads: "+Safe(err.Error()))
				return
			}
			state := tfsdk.State{Schema: target, Raw: v}
			if fix != nil {
				if err := fix(ctx, &state); err != nil {
					resp.Diagnostics.AddError("Cannot move the state", Safe(err.Error()))
					return
				}
			}
			resp.TargetState = state
		},
	}
}

// official reports whether addr ("registry.terraform.io/genesiscloud/genesiscloud") is the
// official provider's source address, from any registry host or mirror.
func official(addr string) bool {
	return addr == OfficialType || strings.HasSuffix(addr, "/"+OfficialType)
}
