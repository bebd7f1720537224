package snapshot

import (
	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// model is the state of a compute_snapshot.
type model struct {
	ID               types.String   `tfsdk:"id"`
	Name             types.String   `tfsdk:"name"`
	SourceInstanceID types.String   `tfsdk:"source_instance_id"`
	SourceSnapshotID types.String   `tfsdk:"source_snapshot_id"`
	Region           types.String   `tfsdk:"region"`
	ReplicatedRegion types.String   `tfsdk:"replicated_region"`
	Size             types.Int64    `tfsdk:"size"`
	Status           types.String   `tfsdk:"status"`
	CreatedAt        types.String   `tfsdk:"created_at"`
	RetainOnDelete   types.Bool     `tfsdk:"retain_on_delete"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

// Set copies the snapshot as the service shows it into m. The sources stay as configured when the
// service does not show them.
func (m *model) Set(s *compute.Snapshot) {
	m.ID = types.StringValue(s.ID)
	m.Name = types.StringValue(s.Name)
	if s.SourceInstanceID != "" {
		m.SourceInstanceID = types.StringValue(s.SourceInstanceID)
	} else if m.SourceInstanceID.IsUnknown() {
		m.SourceInstanceID = types.StringNull()
	}
	if s.SourceSnapshotID != "" {
		m.SourceSnapshotID = types.StringValue(s.SourceSnapshotID)
	} else if m.SourceSnapshotID.IsUnknown() {
		m.SourceSnapshotID = types.StringNull()
	}
	m.Region = types.StringValue(s.Region)
	m.Size = types.Int64Value(s.Size)
	m.Status = types.StringValue(string(s.Status))
	m.CreatedAt = kit.Stamp(s.CreatedAt)
	if m.RetainOnDelete.IsNull() || m.RetainOnDelete.IsUnknown() {
		m.RetainOnDelete = types.BoolValue(false)
	}
}
