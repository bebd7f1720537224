package filesystem

import (
	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// model is the state of a compute_filesystem.
type model struct {
	ID                 types.String   `tfsdk:"id"`
	Name               types.String   `tfsdk:"name"`
	Description        types.String   `tfsdk:"description"`
	Region             types.String   `tfsdk:"region"`
	Size               types.Int64    `tfsdk:"size"`
	Type               types.String   `tfsdk:"type"`
	Status             types.String   `tfsdk:"status"`
	MountBasePath      types.String   `tfsdk:"mount_base_path"`
	MountEndpointRange types.List     `tfsdk:"mount_endpoint_range"`
	CreatedAt          types.String   `tfsdk:"created_at"`
	RetainOnDelete     types.Bool     `tfsdk:"retain_on_delete"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

// Set copies the filesystem as the service shows it into m.
func (m *model) Set(f *compute.Filesystem) {
	m.ID = types.StringValue(f.ID)
	m.Name = types.StringValue(f.Name)
	m.Description = types.StringValue(f.Description)
	m.Region = types.StringValue(f.Region)
	m.Size = types.Int64Value(int64(f.Size))
	m.Type = types.StringValue(string(f.Type))
	m.Status = types.StringValue(string(f.Status))
	m.MountBasePath = kit.OrNull(f.MountBasePath)
	if f.MountEndpointRange == nil {
		m.MountEndpointRange = types.ListNull(types.StringType)
	} else {
		elems := make([]attr.Value, len(f.MountEndpointRange))
		for i, e := range f.MountEndpointRange {
			elems[i] = types.StringValue(e)
		}
		m.MountEndpointRange = types.ListValueMust(types.StringType, elems)
	}
	m.CreatedAt = kit.Stamp(f.CreatedAt)
	if m.RetainOnDelete.IsNull() || m.RetainOnDelete.IsUnknown() {
		m.RetainOnDelete = types.BoolValue(false)
	}
}

// request is the create request of m; values known only after apply are placeholders.
func (m *model) request() *compute.FilesystemCreateRequest {
	size := 1
	if !m.Size.IsUnknown() {
		size = int(m.Size.ValueInt64())
	}
	return &compute.FilesystemCreateRequest{
		Name:        kit.Known(m.Name),
		Description: m.Description.ValueString(),
		Region:      kit.Known(m.Region),
		Size:        size,
		Type:        compute.FilesystemType(m.Type.ValueString()),
	}
}
