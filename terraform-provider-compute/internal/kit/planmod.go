package kit

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Keys of the provider's private state.
const (
	// replacingKey marks the plan of a resource that is about to be replaced, for ModifyPlan.
	replacingKey = "replacing"
	// importedKey marks a resource read by an import and not applied since: the values the service
	// never returns (an instance's image as configured, its startup script) are then not known, and
	// their first configured value is taken into the state without replacing the resource.
	importedKey = "imported"
)

var marked = []byte(`true`)

// privateFlag is the private state of a plan modifier's request.
type privateFlag interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
	SetKey(context.Context, string, []byte) diag.Diagnostics
}

// Imported reports whether p marks a resource read by an import and not applied since.
func Imported(ctx context.Context, p privateFlag) bool {
	v, _ := p.GetKey(ctx, importedKey)
	return string(v) == string(marked)
}

// MarkImported marks p's resource as read by an import.
func MarkImported(ctx context.Context, p privateFlag) diag.Diagnostics {
	return p.SetKey(ctx, importedKey, marked)
}

// ClearImported forgets the mark of an import, once a plan was applied.
func ClearImported(ctx context.Context, p privateFlag) diag.Diagnostics {
	return p.SetKey(ctx, importedKey, nil)
}

// replacing reports whether the plan of p replaces its resource.
func replacing(ctx context.Context, p privateFlag) bool {
	v, _ := p.GetKey(ctx, replacingKey)
	return string(v) == string(marked)
}

// ReplaceString is a plan modifier that replaces the resource when the attribute changes, unless
// keep says otherwise (nil: always), and marks the plan as a replacement for the name checks.
func ReplaceString(description string, keep func(context.Context, planmodifier.StringRequest) bool) planmodifier.String {
	return replaceString{description: description, keep: keep}
}

type replaceString struct {
	description string
	keep        func(context.Context, planmodifier.StringRequest) bool
}

func (m replaceString) Description(context.Context) string         { return m.description }
func (m replaceString) MarkdownDescription(context.Context) string { return m.description }

func (m replaceString) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || req.PlanValue.Equal(req.StateValue) {
		return
	}
	if m.keep != nil && m.keep(ctx, req) {
		return
	}
	resp.RequiresReplace = true
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, replacingKey, marked)...)
}

// ReplaceSet is ReplaceString for a set attribute.
func ReplaceSet(description string) planmodifier.Set { return replaceSet{description: description} }

type replaceSet struct{ description string }

func (m replaceSet) Description(context.Context) string         { return m.description }
func (m replaceSet) MarkdownDescription(context.Context) string { return m.description }

func (m replaceSet) PlanModifySet(ctx context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || req.PlanValue.Equal(req.StateValue) {
		return
	}
	resp.RequiresReplace = true
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, replacingKey, marked)...)
}

// CheckName refuses, at plan time, a resource of kind whose name another resource of the
// configuration holds (see Meta.ClaimName). Call it from ModifyPlan.
func (m *Meta) CheckName(ctx context.Context, kind string, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if m == nil || req.Plan.Raw.IsNull() {
		return // a destroy, or a validation before the provider is configured
	}
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if name.IsUnknown() || name.IsNull() {
		return
	}
	id := ""
	if !req.State.Raw.IsNull() {
		if replacing(ctx, req.Private) {
			return // the create planned next claims the name
		}
		var v types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &v)...)
		id = v.ValueString()
		if id == "" {
			return
		}
	}
	if !m.ClaimName(kind, name.ValueString(), id) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Name used twice",
			fmt.Sprintf("Another %s of this configuration is named %q. Each needs a name of its own: the provider finds a %s it created by its name (after a lost response, or with adopt_existing), so two with one name would both end up on one %s.",
				kind, Safe(name.ValueString()), kind, kind))
	}
}
