package fake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// groupCreate is the body of POST /security-groups.
type groupCreate struct {
	Name        string `json:"name" fake:"required"`
	Description string `json:"description"`
	Region      string `json:"region" fake:"required"`
	Rules       rules  `json:"rules" fake:"required"`
}

func (r *groupCreate) check() *Error { return checkGroupName(r.Name) }

// groupReplace is the body of PUT /security-groups/{id}, the API's update: name and rules
// required, description left out becomes empty, region refused.
type groupReplace struct {
	Name        string     `json:"name" fake:"required"`
	Description string     `json:"description"`
	Rules       rules      `json:"rules" fake:"required"`
	Region      refusedKey `json:"region"`
}

func (r *groupReplace) check() *Error { return checkGroupName(r.Name) }

// groupPatch is the body of PATCH /security-groups/{id}, the update of the service's description
// and own clients: name, description and rules all optional, only those given change, at least
// one given; region refused.
type groupPatch struct {
	Name        *string    `json:"name"`
	Description *string    `json:"description"`
	Rules       rules      `json:"rules"`
	Region      refusedKey `json:"region"`
}

func (r *groupPatch) check() *Error {
	switch {
	case r.Name == nil && r.Description == nil && r.Rules.list == nil:
		return badRequest(codeMissingParameters, "give name, description or rules")
	case r.Name != nil && strings.TrimSpace(*r.Name) == "":
		return missing("name")
	case r.Name != nil:
		return checkGroupName(*r.Name)
	}
	return nil
}

// rules is a request's rules, in the order sent. Every rule needs protocol (icmp, tcp, udp or all)
// and direction (ingress or egress); a tcp, udp or all rule needs both port_range_min and
// port_range_max keys, where null means all ports; only icmp may leave them out. Both ports null,
// or both integers from 0 to 65535 with min <= max; one null and one not is refused. Every refusal
// of a rule, an unknown key in it included, is 02028.
type rules struct{ list []sgRule }

// maxPort is the largest port number.
const maxPort = 65535

func (r *rules) decodeJSON(name string, raw json.RawMessage) *Error {
	if isNull(raw) {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return typeError(name, "array")
	}
	r.list = make([]sgRule, 0, len(items))
	for i, item := range items {
		rule, problem := readRule(item)
		if problem != "" {
			return badRequest(codeInvalidRules, "at least one of the provided rules is invalid: %s[%d]: %s", name, i, problem)
		}
		r.list = append(r.list, rule)
	}
	return nil
}

func readRule(raw json.RawMessage) (sgRule, string) {
	var r sgRule
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return r, "a rule must be a JSON object"
	}
	for k := range m {
		if !slices.Contains([]string{"protocol", "direction", "port_range_min", "port_range_max"}, k) {
			return r, fmt.Sprintf("unknown field %q", k)
		}
	}
	if json.Unmarshal(m["protocol"], &r.Protocol) != nil || !slices.Contains([]string{"icmp", "tcp", "udp", "all"}, r.Protocol) {
		return r, "protocol must be icmp, tcp, udp or all"
	}
	if json.Unmarshal(m["direction"], &r.Direction) != nil || !slices.Contains([]string{"ingress", "egress"}, r.Direction) {
		return r, "direction must be ingress or egress"
	}
	for _, p := range []struct {
		key string
		dst **int
	}{{"port_range_min", &r.PortRangeMin}, {"port_range_max", &r.PortRangeMax}} {
		v, ok := m[p.key]
		switch {
		case !ok && r.Protocol != "icmp":
			return r, fmt.Sprintf("%s is required for protocol %s (null means all ports)", p.key, r.Protocol)
		case !ok || isNull(v):
			continue
		}
		n, ok := parseInteger(v)
		if !ok || n < 0 || n > maxPort {
			return r, fmt.Sprintf("%s must be null or an integer from 0 to %d", p.key, maxPort)
		}
		*p.dst = &n
	}
	switch {
	case (r.PortRangeMin == nil) != (r.PortRangeMax == nil):
		return r, "port_range_min and port_range_max must both be null (all ports) or both be given"
	case r.PortRangeMin != nil && *r.PortRangeMin > *r.PortRangeMax:
		return r, "port_range_min must not be greater than port_range_max"
	}
	return r, ""
}

func createSecurityGroup(s *state, c call, r *groupCreate) (*securityGroup, *Error) {
	if err := s.region("region", r.Region); err != nil {
		return nil, err
	}
	g := &securityGroup{ID: s.newID("sg"), Name: r.Name, Description: r.Description, Region: r.Region, Status: groupCreating,
		Rules: r.Rules.list, CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now)}
	s.groups.add(g.ID, g)
	s.groups.begin(g, c.now, s.durations.SecurityGroupCreate, groupCreated)
	return g, nil
}

// replaceSecurityGroup is the patch of all three: name, description and rules.
func replaceSecurityGroup(s *state, c call, g *securityGroup, r *groupReplace) (*securityGroup, *Error) {
	return patchSecurityGroup(s, c, g, &groupPatch{Name: &r.Name, Description: &r.Description, Rules: r.Rules})
}

// patchSecurityGroup changes what is given (nil: kept); the status is unchanged, and the instances
// that use the group show its new name.
func patchSecurityGroup(s *state, c call, g *securityGroup, r *groupPatch) (*securityGroup, *Error) {
	setGiven(&g.Description, r.Description)
	if r.Rules.list != nil {
		g.Rules = r.Rules.list
	}
	setGiven(&g.Name, r.Name)
	s.renamed("group", g.ID, g.Name)
	g.UpdatedAt = stamp(c.now)
	return g, nil
}
