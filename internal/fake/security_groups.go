package fake

import (
	"strings"
	"time"
)

// Security group statuses.
const (
	groupCreating = "creating"
	groupCreated  = "created"
)

var groupSpec = spec{collection: "security-groups",
	notFound: func(id string) *Error { return notFound(codeSecurityGroupNotFound, "security group %q not found", id) },
	statuses: []string{groupCreating, groupCreated, "deleting", "error"}, ref: "group",
	inUse: refusal{codeSecurityGroupUsedByInstances, "security group %q is used by instance %q"}}

// sgRule is a firewall rule as the API shows it. A port the request left out, or sent as null, is
// null: all ports.
type sgRule struct {
	Protocol     string `json:"protocol"`
	Direction    string `json:"direction"`
	PortRangeMin *int   `json:"port_range_min"`
	PortRangeMax *int   `json:"port_range_max"`
}

// securityGroup is a security group as the API shows it: with status on every body, and with
// is_internal and updated_at, which the service's description adds.
type securityGroup struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Region      string   `json:"region"`
	Status      string   `json:"status"`
	Rules       []sgRule `json:"rules"`
	IsInternal  bool     `json:"is_internal"`
	CreatedAt   stamp    `json:"created_at"`
	UpdatedAt   stamp    `json:"updated_at"`
	lifecycle
}

func (g *securityGroup) view(*state) any { return g }

func (g *securityGroup) arrive(_ *state, status string, _ time.Time) { g.Status = status }

// checkGroupName refuses the reserved names "default" and "standard" (in any case).
func checkGroupName(name string) *Error {
	for _, reserved := range []string{"default", "standard"} {
		if strings.EqualFold(strings.TrimSpace(name), reserved) {
			return badRequest(codeBadRequest, "the name %q is reserved", name)
		}
	}
	return nil
}

// groupRefs resolves an instance's security groups: each must exist (02025) in the instance's
// region (02051). One listed twice counts once.
func (s *state) groupRefs(ids []string, region string) ([]Ref, *Error) {
	out := []Ref{}
	for _, id := range ids {
		g, ok := s.groups.find(id)
		if !ok {
			return nil, badRequest(codeSecurityGroupNotFound, "security group %q not found", id)
		}
		if g.Region != region {
			return nil, badRequest(codeRegionsMismatch, "regions mismatch: security group %q is in %s, not %s", id, g.Region, region)
		}
		if !hasRef(out, id) {
			out = append(out, Ref{ID: id, Name: g.Name})
		}
	}
	return out, nil
}
