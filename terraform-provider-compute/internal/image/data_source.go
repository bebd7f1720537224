package image

import (
	"context"
	"fmt"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_image data source.
func New() datasource.DataSource { return &imageDataSource{} }

type imageDataSource struct{ kit.DataSourceBase }

var _ datasource.DataSourceWithConfigure = &imageDataSource{}

type oneModel struct {
	Lookup    types.String   `tfsdk:"lookup"`
	Region    types.String   `tfsdk:"region"`
	ID        types.String   `tfsdk:"id"`
	Name      types.String   `tfsdk:"name"`
	Type      types.String   `tfsdk:"type"`
	Slug      types.String   `tfsdk:"slug"`
	Regions   types.Set      `tfsdk:"regions"`
	Versions  types.List     `tfsdk:"versions"`
	CreatedAt types.String   `tfsdk:"created_at"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

func (d *imageDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_image"
}

func (d *imageDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := imageAttributes()
	attrs["lookup"] = schema.StringAttribute{
		MarkdownDescription: "The image to find: its ID, its slug (`ubuntu-24.04`, `ubuntu:22.04` with a version) or its name. Exactly one image must match, or the read fails listing the matches.",
		Required:            true,
	}
	attrs["region"] = schema.StringAttribute{
		MarkdownDescription: "Only an image usable in this region matches.",
		Optional:            true,
	}
	attrs["timeouts"] = kit.DataSourceTimeouts(ctx)
	resp.Schema = schema.Schema{
		MarkdownDescription: "One image, found by ID, slug or name among the account's images of every type.",
		Attributes:          attrs,
	}
}

func (d *imageDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data oneModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := data.Timeouts.Read(ctx, kit.DefaultTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	lookup, region := data.Lookup.ValueString(), data.Region.ValueString()
	slug, version, versioned := strings.Cut(lookup, ":")
	var found []compute.Image
	for im, err := range d.Meta.Client.Images.All(ctx, nil) {
		if err != nil {
			kit.AddError(&resp.Diagnostics, "list the images", err, nil)
			return
		}
		if region != "" && !contains(im.Regions, region) {
			continue
		}
		match := im.ID == lookup || im.Name == lookup || im.Slug == lookup && im.Slug != ""
		if versioned && im.Slug == slug && contains(im.Versions, version) {
			match = true
		}
		if match {
			found = append(found, im)
		}
	}
	switch len(found) {
	case 0:
		resp.Diagnostics.AddAttributeError(path.Root("lookup"), "No such image", fmt.Sprintf("No image has the ID, slug or name %q%s.", kit.Safe(lookup), inRegion(region)))
		return
	case 1:
	default:
		ids := make([]string, len(found))
		for i, im := range found {
			ids[i] = kit.Safe(im.ID)
		}
		resp.Diagnostics.AddAttributeError(path.Root("lookup"), "Several images match",
			fmt.Sprintf("%d images match %q%s: %s. Give an ID.", len(found), kit.Safe(lookup), inRegion(region), strings.Join(ids, ", ")))
		return
	}
	im := newImageModel(&found[0])
	data.ID, data.Name, data.Type, data.Slug = im.ID, im.Name, im.Type, im.Slug
	data.Regions, data.Versions, data.CreatedAt = im.Regions, im.Versions, im.CreatedAt
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func inRegion(region string) string {
	if region == "" {
		return ""
	}
	return " in " + kit.Safe(region)
}
