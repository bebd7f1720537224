package floatingip

import (
	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// model is the state of a compute_floating_ip.
type model struct {
	ID          types.String   `tfsdk:"id"`
	Name        types.String   `tfsdk:"name"`
	Description types.String   `tfsdk:"description"`
	Region      types.String   `tfsdk:"region"`
	Version     types.String   `tfsdk:"version"`
	IPAddress   types.String   `tfsdk:"ip_address"`
	IsPublic    types.Bool     `tfsdk:"is_public"`
	Status      types.String   `tfsdk:"status"`
	CreatedAt   types.String   `tfsdk:"created_at"`
	UpdatedAt   types.String   `tfsdk:"updated_at"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

// Set copies the floating IP as the service shows it into m.
func (m *model) Set(f *compute.FloatingIP) {
	m.ID = types.StringValue(f.ID)
	m.Name = types.StringValue(f.Name)
	m.Description = types.StringValue(f.Description)
	m.Region = types.StringValue(f.Region)
	m.Version = types.StringValue(string(f.Version))
	m.IPAddress = kit.OrNull(f.IPAddress)
	m.IsPublic = types.BoolValue(f.IsPublic)
	m.Status = types.StringValue(string(f.Status))
	m.CreatedAt = kit.Stamp(f.CreatedAt)
	m.UpdatedAt = kit.Stamp(f.UpdatedAt)
}

// request is the create request of m; values known only after apply are placeholders.
func (m *model) request() *compute.FloatingIPCreateRequest {
	return &compute.FloatingIPCreateRequest{
		Name:        kit.Known(m.Name),
		Description: m.Description.ValueString(),
		Region:      kit.Known(m.Region),
		Version:     compute.IPVersion(m.Version.ValueString()),
	}
}
