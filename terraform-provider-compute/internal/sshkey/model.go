package sshkey

import (
	"strings"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// model is the state of a compute_ssh_key.
type model struct {
	ID          types.String   `tfsdk:"id"`
	Name        types.String   `tfsdk:"name"`
	PublicKey   types.String   `tfsdk:"public_key"`
	Fingerprint types.String   `tfsdk:"fingerprint"`
	CreatedAt   types.String   `tfsdk:"created_at"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

// Set copies the key as the service shows it into m. The public key stays as configured when the
// service shows it with other white space around it.
func (m *model) Set(k *compute.SSHKey) {
	m.ID = types.StringValue(k.ID)
	m.Name = types.StringValue(k.Name)
	if strings.TrimSpace(m.PublicKey.ValueString()) != strings.TrimSpace(k.Value) {
		m.PublicKey = types.StringValue(k.Value)
	}
	m.Fingerprint = types.StringValue(k.Fingerprint)
	m.CreatedAt = types.StringValue(k.CreatedAt.Format(time.RFC3339))
}

// request is the create request of m.
func (m *model) request() *compute.SSHKeyCreateRequest {
	return &compute.SSHKeyCreateRequest{Name: m.Name.ValueString(), Value: m.PublicKey.ValueString()}
}
