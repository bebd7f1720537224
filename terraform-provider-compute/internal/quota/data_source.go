// Package quota is the compute_quotas data source: the account's quotas and their use.
package quota

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// New returns the compute_quotas data source.
func New() datasource.DataSource { return &quotasDataSource{} }

type quotasDataSource struct{ kit.DataSourceBase }

var _ datasource.DataSourceWithConfigure = &quotasDataSource{}

type model struct {
	Quotas   []quotaModel   `tfsdk:"quotas"`
	ByKey    types.Map      `tfsdk:"by_key"`
	ID       types.String   `tfsdk:"id"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type quotaModel struct {
	Key       types.String  `tfsdk:"key"`
	Capacity  types.Int64   `tfsdk:"capacity"`
	Used      types.Int64   `tfsdk:"used"`
	Available types.Int64   `tfsdk:"available"`
	Flavors   []flavorModel `tfsdk:"flavors"`
}

type flavorModel struct {
	FlavorName  types.String `tfsdk:"flavor_name"`
	ProductName types.String `tfsdk:"product_name"`
	Unit        types.String `tfsdk:"unit"`
	Used        types.Int64  `tfsdk:"used"`
}

func (d *quotasDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_quotas"
}

func (d *quotasDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The account's quotas and how much of each is used (`GET /compute/v1/quotas`), to check room before an apply (a `precondition`, say).",
		Attributes: map[string]schema.Attribute{
			"quotas": schema.ListNestedAttribute{
				MarkdownDescription: "Every quota, in the service's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":       schema.StringAttribute{MarkdownDescription: "Which quota this is, such as `instances`.", Computed: true},
					"capacity":  schema.Int64Attribute{MarkdownDescription: "The limit.", Computed: true},
					"used":      schema.Int64Attribute{MarkdownDescription: "How much of it is in use.", Computed: true},
					"available": schema.Int64Attribute{MarkdownDescription: "The capacity left: capacity less used, never below 0.", Computed: true},
					"flavors": schema.ListNestedAttribute{
						MarkdownDescription: "The use broken down by product flavor.",
						Computed:            true,
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"flavor_name":  schema.StringAttribute{MarkdownDescription: "The flavor's name.", Computed: true},
							"product_name": schema.StringAttribute{MarkdownDescription: "The product's name.", Computed: true},
							"unit":         schema.StringAttribute{MarkdownDescription: "What `used` counts.", Computed: true},
							"used":         schema.Int64Attribute{MarkdownDescription: "How much of this flavor is in use.", Computed: true},
						}},
					},
				}},
			},
			"by_key":   schema.MapAttribute{MarkdownDescription: "The capacity left of each quota, by key.", ElementType: types.Int64Type, Computed: true},
			"id":       schema.StringAttribute{MarkdownDescription: "The ID of the data source itself.", Computed: true},
			"timeouts": kit.DataSourceTimeouts(ctx),
		},
	}
}

func (d *quotasDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
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
	quotas, err := d.Meta.Client.Quotas.List(ctx)
	if err != nil {
		kit.AddError(&resp.Diagnostics, "read the quotas", err, nil)
		return
	}
	data.Quotas = []quotaModel{}
	left := map[string]int64{}
	for _, q := range quotas {
		qm := quotaModel{
			Key: types.StringValue(q.Key), Capacity: types.Int64Value(int64(q.Capacity)), Used: types.Int64Value(int64(q.Used)),
			Available: types.Int64Value(int64(max(0, q.Capacity-q.Used))), Flavors: []flavorModel{},
		}
		for _, f := range q.Flavors {
			qm.Flavors = append(qm.Flavors, flavorModel{
				FlavorName: types.StringValue(f.FlavorName), ProductName: types.StringValue(f.ProductName),
				Unit: types.StringValue(f.Unit), Used: types.Int64Value(int64(f.Used)),
			})
		}
		data.Quotas = append(data.Quotas, qm)
		left[q.Key] = qm.Available.ValueInt64()
	}
	m, diags := types.MapValueFrom(ctx, types.Int64Type, left)
	resp.Diagnostics.Append(diags...)
	data.ByKey = m
	data.ID = types.StringValue("quotas")
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
