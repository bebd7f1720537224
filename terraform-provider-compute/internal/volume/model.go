package volume

import (
	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// model is the state of a compute_volume.
type model struct {
	ID             types.String   `tfsdk:"id"`
	Name           types.String   `tfsdk:"name"`
	Description    types.String   `tfsdk:"description"`
	Region         types.String   `tfsdk:"region"`
	Size           types.Int64    `tfsdk:"size"`
	Type           types.String   `tfsdk:"type"`
	Status         types.String   `tfsdk:"status"`
	CreatedAt      types.String   `tfsdk:"created_at"`
	RetainOnDelete types.Bool     `tfsdk:"retain_on_delete"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

// Set copies the volume as the service shows it into m.
func (m *model) Set(v *compute.Volume) {
	m.ID = types.StringValue(v.ID)
	m.Name = types.StringValue(v.Name)
	m.Description = types.StringValue(v.Description)
	m.Region = types.StringValue(v.Region)
	m.Size = types.Int64Value(int64(v.Size))
	m.Type = types.StringValue(string(v.Type))
	m.Status = types.StringValue(string(v.Status))
	m.CreatedAt = kit.Stamp(v.CreatedAt)
	if m.RetainOnDelete.IsNull() || m.RetainOnDelete.IsUnknown() {
		m.RetainOnDelete = types.BoolValue(false)
	}
}

// request is the create request of m; values known only after apply are placeholders.
func (m *model) request() *compute.VolumeCreateRequest {
	size := 1
	if !m.Size.IsUnknown() {
		size = int(m.Size.ValueInt64())
	}
	return &compute.VolumeCreateRequest{
		Name:        kit.Known(m.Name),
		Description: m.Description.ValueString(),
		Region:      kit.Known(m.Region),
		Size:        size,
		Type:        compute.VolumeType(m.Type.ValueString()),
	}
}
