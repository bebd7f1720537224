package securitygroup

import (
	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// model is the state of a compute_security_group.
type model struct {
	ID          types.String   `tfsdk:"id"`
	Name        types.String   `tfsdk:"name"`
	Description types.String   `tfsdk:"description"`
	Region      types.String   `tfsdk:"region"`
	Rules       []rule         `tfsdk:"rules"`
	Status      types.String   `tfsdk:"status"`
	CreatedAt   types.String   `tfsdk:"created_at"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

// rule is one firewall rule; null ports mean all ports.
type rule struct {
	Direction    types.String `tfsdk:"direction"`
	Protocol     types.String `tfsdk:"protocol"`
	PortRangeMin types.Int64  `tfsdk:"port_range_min"`
	PortRangeMax types.Int64  `tfsdk:"port_range_max"`
}

// Set copies the group as the service shows it into m.
func (m *model) Set(g *compute.SecurityGroup) {
	m.ID = types.StringValue(g.ID)
	m.Name = types.StringValue(g.Name)
	m.Description = types.StringValue(g.Description)
	m.Region = types.StringValue(g.Region)
	m.Rules = make([]rule, len(g.Rules))
	for i, r := range g.Rules {
		m.Rules[i] = rule{
			Direction:    types.StringValue(string(r.Direction)),
			Protocol:     types.StringValue(string(r.Protocol)),
			PortRangeMin: port(r.PortRangeMin),
			PortRangeMax: port(r.PortRangeMax),
		}
	}
	if len(g.Rules) == 0 && m.Rules == nil {
		m.Rules = []rule{}
	}
	m.Status = types.StringValue(string(g.Status))
	m.CreatedAt = kit.Stamp(g.CreatedAt)
}

func port(p *int) types.Int64 {
	if p == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*p))
}

// rules are m's rules for a request; an unknown value (at plan time) is a placeholder.
func (m *model) rules() []compute.SecurityGroupRule {
	out := make([]compute.SecurityGroupRule, len(m.Rules))
	for i, r := range m.Rules {
		out[i] = compute.SecurityGroupRule{
			Direction:    compute.Direction(orPlaceholder(r.Direction, string(compute.DirectionIngress))),
			Protocol:     compute.Protocol(orPlaceholder(r.Protocol, string(compute.ProtocolTCP))),
			PortRangeMin: portOf(r.PortRangeMin, r.PortRangeMax, 1),
			PortRangeMax: portOf(r.PortRangeMax, r.PortRangeMin, 65535),
		}
	}
	return out
}

func orPlaceholder(v types.String, placeholder string) string {
	if v.IsUnknown() {
		return placeholder
	}
	return v.ValueString()
}

// portOf is the port v: nil for null (all ports); for a value known only after apply, the other
// end of the range when it is known, or else placeholder, so that the rest can be checked.
func portOf(v, other types.Int64, placeholder int) *int {
	switch {
	case v.IsNull():
		return nil
	case !v.IsUnknown():
		return compute.Ptr(int(v.ValueInt64()))
	case !other.IsNull() && !other.IsUnknown():
		return compute.Ptr(int(other.ValueInt64()))
	}
	return compute.Ptr(placeholder)
}
