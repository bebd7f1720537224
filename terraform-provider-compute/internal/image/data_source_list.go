// Package image holds the data sources of images: compute_images (a list, as the official
// provider's) and compute_image (one, by ID, slug or name).
package image

import (
	"context"
	"slices"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// NewList returns the compute_images data source.
func NewList() datasource.DataSource { return &imagesDataSource{} }

type imagesDataSource struct{ kit.DataSourceBase }

var _ datasource.DataSourceWithConfigure = &imagesDataSource{}

type listModel struct {
	Filter   filterModel    `tfsdk:"filter"`
	Images   []imageModel   `tfsdk:"images"`
	ID       types.String   `tfsdk:"id"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type filterModel struct {
	Type   types.String `tfsdk:"type"`
	Region types.String `tfsdk:"region"`
}

func (d *imagesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_images"
}

// imageAttributes are the attributes of one image.
func imageAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":         schema.StringAttribute{MarkdownDescription: "A unique identifier that can be used to reference the image (`image` of `compute_instance`).", Computed: true},
		"name":       schema.StringAttribute{MarkdownDescription: "The display name that has been given to an image.", Computed: true},
		"type":       schema.StringAttribute{MarkdownDescription: "Describes the kind of image: `base-os`, `cloud-image`, `preconfigured` or `snapshot`.", Computed: true},
		"slug":       schema.StringAttribute{MarkdownDescription: "The image slug, usable as `image` in place of the ID (`<slug>:<version>` for a cloud image).", Computed: true},
		"regions":    schema.SetAttribute{MarkdownDescription: "The list of regions in which this image can be used in.", ElementType: types.StringType, Computed: true},
		"versions":   schema.ListAttribute{MarkdownDescription: "The list of versions if this is a cloud-image otherwise empty.", ElementType: types.StringType, Computed: true},
		"created_at": schema.StringAttribute{MarkdownDescription: "The timestamp when this image was created in RFC 3339.", Computed: true},
	}
}

func (d *imagesDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The images of one type, optionally only those usable in a region.",
		Attributes: map[string]schema.Attribute{
			"filter": schema.SingleNestedAttribute{
				MarkdownDescription: "Which images to list.",
				Required:            true,
				Attributes: map[string]schema.Attribute{
					"type": schema.StringAttribute{
						MarkdownDescription: "Filter by the kind of image: `base-os`, `cloud-image`, `preconfigured` or `snapshot` (the service may add kinds; any value is passed on).",
						Required:            true,
					},
					"region": schema.StringAttribute{
						MarkdownDescription: "Filter by the region identifier.",
						Optional:            true,
					},
				},
			},
			"images": schema.ListNestedAttribute{
				MarkdownDescription: "The images, in the service's order.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: imageAttributes()},
			},
			"id": schema.StringAttribute{
				MarkdownDescription: "The ID of the data source itself.",
				Computed:            true,
			},
			"timeouts": kit.DataSourceTimeouts(ctx),
		},
	}
}

func (d *imagesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data listModel
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
	region := data.Filter.Region.ValueString()
	data.Images = []imageModel{}
	for im, err := range d.Meta.Client.Images.All(ctx, &compute.ImageListOptions{Type: compute.ImageType(data.Filter.Type.ValueString())}) {
		if err != nil {
			kit.AddError(&resp.Diagnostics, "list the images", err, nil)
			return
		}
		if region != "" && !slices.Contains(im.Regions, region) {
			continue
		}
		data.Images = append(data.Images, newImageModel(&im))
	}
	data.ID = types.StringValue("none")
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
