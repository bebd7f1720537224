package instance

import (
	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// model is the state of a compute_instance, attribute for attribute the official provider's.
type model struct {
	ID               types.String   `tfsdk:"id"`
	Name             types.String   `tfsdk:"name"`
	Hostname         types.String   `tfsdk:"hostname"`
	DNSName          types.String   `tfsdk:"dns_name"`
	Type             types.String   `tfsdk:"type"`
	Region           types.String   `tfsdk:"region"`
	Image            types.String   `tfsdk:"image"`
	ImageID          types.String   `tfsdk:"image_id"`
	DiskSize         types.Int64    `tfsdk:"disk_size"`
	Metadata         *metadata      `tfsdk:"metadata"`
	FloatingIPID     types.String   `tfsdk:"floating_ip_id"`
	Password         types.String   `tfsdk:"password"`
	PlacementOption  types.String   `tfsdk:"placement_option"`
	PrivateIP        types.String   `tfsdk:"private_ip"`
	PublicIP         types.String   `tfsdk:"public_ip"`
	SecurityGroupIDs types.Set      `tfsdk:"security_group_ids"`
	SSHKeyIDs        types.Set      `tfsdk:"ssh_key_ids"`
	VolumeIDs        types.Set      `tfsdk:"volume_ids"`
	ReservationID    types.String   `tfsdk:"reservation_id"`
	Status           types.String   `tfsdk:"status"`
	CreatedAt        types.String   `tfsdk:"created_at"`
	UpdatedAt        types.String   `tfsdk:"updated_at"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

// metadata is what runs at the instance's first boot.
type metadata struct {
	StartupScript types.String `tfsdk:"startup_script"`
}

// Set copies the instance as the service shows it into m. What the service does not show (the
// image as configured, the startup script, the password) stays as it was; the image of an imported
// instance is its image's ID.
func (m *model) Set(in *compute.Instance) {
	m.ID = types.StringValue(in.ID)
	m.Name = types.StringValue(in.Name)
	m.Hostname = types.StringValue(in.Hostname)
	m.DNSName = kit.OrNull(in.DNSName)
	m.Type = types.StringValue(in.Type)
	m.Region = types.StringValue(in.Region)
	if m.Image.IsNull() || m.Image.IsUnknown() {
		m.Image = types.StringValue(in.Image.ID)
	}
	m.ImageID = types.StringValue(in.Image.ID)
	if in.DiskSize > 0 || m.DiskSize.IsUnknown() {
		m.DiskSize = types.Int64Value(int64(in.DiskSize))
	}
	m.FloatingIPID = types.StringNull()
	if in.FloatingIP != nil {
		m.FloatingIPID = types.StringValue(in.FloatingIP.ID)
	}
	m.PlacementOption = kit.OrNull(in.PlacementOption)
	m.PrivateIP = kit.OrNull(in.PrivateIP)
	m.PublicIP = kit.OrNull(in.PublicIP)
	m.SecurityGroupIDs = kit.IDSet(m.SecurityGroupIDs, refIDs(in.SecurityGroups), false)
	m.SSHKeyIDs = kit.IDSet(m.SSHKeyIDs, refIDs(in.SSHKeys), true)
	m.VolumeIDs = kit.IDSet(m.VolumeIDs, refIDs(in.Volumes), false)
	m.ReservationID = kit.OrNull(in.ReservationID)
	m.Status = types.StringValue(string(in.Status))
	m.CreatedAt = kit.Stamp(in.CreatedAt)
	m.UpdatedAt = kit.Stamp(in.UpdatedAt)
	m.Password = types.StringNull() // write-only: never in the state
}

func refIDs(refs []compute.Ref) []string {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	return ids
}

// request is the create request of m, the password from the configuration (it is write-only).
// With plan set, values known only after apply are replaced by placeholders, so that the rest can
// be checked.
func (m *model) request(password types.String, plan bool) *compute.InstanceCreateRequest {
	str := func(v types.String) string {
		if v.IsUnknown() && plan {
			return kit.Placeholder
		}
		return v.ValueString()
	}
	ids := func(v types.Set) []string { return kit.IDs(v, plan) }
	req := &compute.InstanceCreateRequest{
		Name:            str(m.Name),
		Hostname:        str(m.Hostname),
		Type:            str(m.Type),
		Region:          str(m.Region),
		Image:           str(m.Image),
		PlacementOption: str(m.PlacementOption),
		FloatingIP:      str(m.FloatingIPID),
		SSHKeys:         ids(m.SSHKeyIDs),
		Password:        str(password),
		Volumes:         ids(m.VolumeIDs),
		SecurityGroups:  ids(m.SecurityGroupIDs),
		ReservationID:   str(m.ReservationID),
	}
	if req.Hostname == "" {
		req.Hostname = req.Name // the official provider's default
	}
	if req.ReservationID != "" {
		req.BillingType = compute.BillingTypeReserved
	}
	if !m.DiskSize.IsNull() && !m.DiskSize.IsUnknown() {
		req.DiskSize = int(m.DiskSize.ValueInt64())
	}
	if m.Metadata != nil && !m.Metadata.StartupScript.IsNull() {
		req.Metadata = &compute.InstanceMetadata{StartupScript: str(m.Metadata.StartupScript)}
	}
	return req
}
