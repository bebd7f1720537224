package image

import (
	"slices"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// imageModel is one image, as the official provider's compute_images lists it.
type imageModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Type      types.String `tfsdk:"type"`
	Slug      types.String `tfsdk:"slug"`
	Regions   types.Set    `tfsdk:"regions"`
	Versions  types.List   `tfsdk:"versions"`
	CreatedAt types.String `tfsdk:"created_at"`
}

func newImageModel(im *compute.Image) imageModel {
	return imageModel{
		ID:        types.StringValue(im.ID),
		Name:      types.StringValue(im.Name),
		Type:      types.StringValue(string(im.Type)),
		Slug:      kit.OrNull(im.Slug),
		Regions:   types.SetValueMust(types.StringType, values(im.Regions)),
		Versions:  types.ListValueMust(types.StringType, values(im.Versions)),
		CreatedAt: kit.Stamp(im.CreatedAt),
	}
}

func values(ss []string) []attr.Value {
	out := make([]attr.Value, 0, len(ss))
	for _, s := range slices.Compact(slices.Clone(ss)) {
		out = append(out, types.StringValue(s))
	}
	return out
}
