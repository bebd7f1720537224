package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Security group statuses, from the contract.
const (
	groupCreating = "creating"
	groupCreated  = "created"
)

// sgRule is a firewall rule as the contract shows it. A port the request left out, or sent as null,
// is null: all ports.
type sgRule struct {
	Protocol     string `json:"protocol"`
	Direction    string `json:"direction"`
	PortRangeMin *int   `json:"port_range_min"`
	PortRangeMax *int   `json:"port_range_max"`
}

// securityGroupBody is a security group as the contract shows it, with status on every body, plus
// the extended document's is_internal and updated_at.
type securityGroupBody struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Region      string   `json:"region"`
	Status      string   `json:"status"`
	Rules       []sgRule `json:"rules"`
	IsInternal  bool     `json:"is_internal"`
	CreatedAt   stamp    `json:"created_at"`
	UpdatedAt   stamp    `json:"updated_at"`
}

type securityGroup struct {
	securityGroupBody
	next *pending
}

func (e *Engine) createSecurityGroup(c *call) (int, any, *apiError) {
	o, err := parseBody(c.body, "name", "description", "region", "rules")
	if err != nil {
		return 0, nil, err
	}
	var name, description, region string
	for _, err := range []*apiError{o.str("name", &name), o.str("description", &description), o.str("region", &region)} {
		if err != nil {
			return 0, nil, err
		}
	}
	if err := checkGroupName(name); err != nil {
		return 0, nil, err
	}
	if region == "" {
		return 0, nil, missing("region")
	}
	if !o.has("rules") {
		return 0, nil, missing("rules")
	}
	rules, err := readRules(o)
	if err != nil {
		return 0, nil, err
	}
	if !e.knownRegion(region) {
		return 0, nil, badRequest(codeBadRequest, "unknown region %q", region)
	}
	g := &securityGroup{securityGroupBody: securityGroupBody{
		ID: e.newID("sg"), Name: name, Description: description, Region: region,
		Status: groupCreating, Rules: rules, CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now),
	}}
	g.next = &pending{to: groupCreated, at: c.now.Add(e.cfg.Durations.SecurityGroupCreate)}
	e.groups.add(g.ID, g)
	return http.StatusCreated, map[string]any{"security_group": &g.securityGroupBody}, nil
}

// checkGroupName checks a name that must be given: not empty and not reserved.
func checkGroupName(name string) *apiError {
	if strings.TrimSpace(name) == "" {
		return missing("name")
	}
	for _, reserved := range []string{"default", "standard"} {
		if strings.EqualFold(strings.TrimSpace(name), reserved) {
			return badRequest(codeBadRequest, "the name %q is reserved", name)
		}
	}
	return nil
}

// maxPort is the largest port number.
const maxPort = 65535

// readRules reads and checks the rules array, keeping the order sent. Every rule needs protocol
// (icmp, tcp, udp or all) and direction (ingress or egress); a tcp, udp or all rule needs both
// port_range_min and port_range_max keys, where null means all ports; only icmp may leave them out.
// Both ports null, or both integers from 0 to 65535 with min <= max; one null and one not is
// refused. Every refusal is 02028.
func readRules(o object) ([]sgRule, *apiError) {
	items, err := o.array("rules")
	if err != nil {
		return nil, err
	}
	out := make([]sgRule, 0, len(items))
	for i, raw := range items {
		r, msg := readRule(raw)
		if msg != "" {
			return nil, badRequest(codeInvalidRules, "at least one of the provided rules is invalid: rules[%d]: %s", i, msg)
		}
		out = append(out, r)
	}
	return out, nil
}

func readRule(raw json.RawMessage) (sgRule, string) {
	var r sgRule
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return r, "a sgRule must be a JSON object"
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
		if !ok {
			if r.Protocol != "icmp" {
				return r, fmt.Sprintf("%s is required for protocol %s (null means all ports)", p.key, r.Protocol)
			}
			continue
		}
		if strings.TrimSpace(string(v)) == "null" {
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

func (e *Engine) listSecurityGroups(c *call) (int, any, *apiError) {
	return pageOf(c, "security_groups", e.groups.all(), func(g *securityGroup) *securityGroupBody { return &g.securityGroupBody })
}

func (e *Engine) group(id string) (*securityGroup, *apiError) {
	g, ok := e.groups.get(id)
	if !ok {
		return nil, notFound(codeSecurityGroupNotFound, "security group %q not found", id)
	}
	return g, nil
}

func (e *Engine) getSecurityGroup(c *call) (int, any, *apiError) {
	g, err := e.group(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"security_group": &g.securityGroupBody}, nil
}

// replaceSecurityGroup is the contract's PUT: name and rules required, description optional (left
// out, it becomes empty), region refused.
func (e *Engine) replaceSecurityGroup(c *call) (int, any, *apiError) {
	return e.updateSecurityGroup(c, true)
}

// patchSecurityGroup is the published description's PATCH: name, description and rules all
// optional, only the given ones change; at least one must be given; region refused.
func (e *Engine) patchSecurityGroup(c *call) (int, any, *apiError) {
	return e.updateSecurityGroup(c, false)
}

func (e *Engine) updateSecurityGroup(c *call, replace bool) (int, any, *apiError) {
	g, err := e.group(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	o, err := parseBody(c.body, "name", "description", "rules", "region")
	if err != nil {
		return 0, nil, err
	}
	if o.present("region") {
		return 0, nil, badRequest(codeBadRequest, "region is not accepted in an update")
	}
	var name, description string
	if err := o.str("name", &name); err != nil {
		return 0, nil, err
	}
	if err := o.str("description", &description); err != nil {
		return 0, nil, err
	}
	if replace || o.has("name") {
		if err := checkGroupName(name); err != nil {
			return 0, nil, err
		}
	}
	switch {
	case replace && !o.has("rules"):
		return 0, nil, missing("rules")
	case !replace && !o.has("name") && !o.has("description") && !o.has("rules"):
		return 0, nil, badRequest(codeMissingParameters, "give name, description or rules")
	}
	rules := g.Rules
	if o.has("rules") {
		if rules, err = readRules(o); err != nil {
			return 0, nil, err
		}
	}
	if replace || o.has("name") {
		g.Name = name
	}
	if replace || o.has("description") {
		g.Description = description
	}
	g.Rules = rules
	g.UpdatedAt = stamp(c.now)
	for _, in := range e.instances.all() {
		renameRef(in.SecurityGroups, g.ID, g.Name)
	}
	return http.StatusOK, map[string]any{"security_group": &g.securityGroupBody}, nil
}

func (e *Engine) deleteSecurityGroup(c *call) (int, any, *apiError) {
	g, err := e.group(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	for _, in := range e.instances.all() {
		if hasRef(in.SecurityGroups, g.ID) {
			return 0, nil, badRequest(codeSecurityGroupUsedByInstances,
				"security group %q is used by instance %q", g.ID, in.ID)
		}
	}
	e.groups.remove(g.ID)
	return http.StatusNoContent, nil, nil
}

func hasRef(refs []Ref, id string) bool {
	return slices.ContainsFunc(refs, func(r Ref) bool { return r.ID == id })
}

func renameRef(refs []Ref, id, name string) {
	for i := range refs {
		if refs[i].ID == id {
			refs[i].Name = name
		}
	}
}
