// Package availability is the compute_instance_types data source: the instance types a region
// offers and whether each can be created now.
package availability

import (
	"context"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_instance_types data source.
func New() datasource.DataSource { return &typesDataSource{} }

type typesDataSource struct{ kit.DataSourceBase }

var _ datasource.DataSourceWithConfigure = &typesDataSource{}

type model struct {
	Region        types.String   `tfsdk:"region"`
	Placement     types.String   `tfsdk:"placement"`
	InstanceTypes []typeModel    `tfsdk:"instance_types"`
	Available     []string       `tfsdk:"available"`
	ID            types.String   `tfsdk:"id"`
	Timeouts      timeouts.Value `tfsdk:"timeouts"`
}

type typeModel struct {
	Type      types.String  `tfsdk:"type"`
	Available types.Bool    `tfsdk:"available"`
	Count     types.Float64 `tfsdk:"count"`
}

func (d *typesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_types"
}

func (d *typesDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The instance types a region offers and whether each is available now (`GET /compute/v1/availability/{region}/instances`): the `type` of `compute_instance`.",
		Attributes: map[string]schema.Attribute{
			"region":    schema.StringAttribute{MarkdownDescription: "The region identifier, such as `NORD-NO-KRS-1`.", Required: true},
			"placement": schema.StringAttribute{MarkdownDescription: "A placement option to ask about, such as `AUTO`; the service's default when unset.", Optional: true},
			"instance_types": schema.ListNestedAttribute{
				MarkdownDescription: "Every instance type of the region.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type":      schema.StringAttribute{MarkdownDescription: "The instance type identifier.", Computed: true},
					"available": schema.BoolAttribute{MarkdownDescription: "Whether an instance of the type can be created in the region now.", Computed: true},
					"count":     schema.Float64Attribute{MarkdownDescription: "A count the service reports with the type; null when it reports none.", Computed: true},
				}},
			},
			"available": schema.ListAttribute{MarkdownDescription: "The identifiers of the types available now, in the service's order.", ElementType: types.StringType, Computed: true},
			"id":        schema.StringAttribute{MarkdownDescription: "The region, the ID of the data source itself.", Computed: true},
			"timeouts":  timeouts.Attributes(ctx),
		},
	}
}

func (d *typesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data model
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
	a, err := d.Meta.Client.Availability.Instances(ctx, data.Region.ValueString(), &compute.AvailabilityOptions{Placement: data.Placement.ValueString()})
	if err != nil {
		kit.AddError(&resp.Diagnostics, "read the instance types of "+kit.Safe(data.Region.ValueString()), err, nil)
		return
	}
	data.InstanceTypes, data.Available = []typeModel{}, []string{}
	for _, t := range a.InstanceTypes {
		count := types.Float64Null()
		if t.Count != nil {
			count = types.Float64Value(*t.Count)
		}
		data.InstanceTypes = append(data.InstanceTypes, typeModel{Type: types.StringValue(t.Type), Available: types.BoolValue(t.Available), Count: count})
		if t.Available {
			data.Available = append(data.Available, t.Type)
		}
	}
	data.ID = data.Region
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
