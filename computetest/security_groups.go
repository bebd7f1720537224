package computetest

import (
	"net/http"
	"slices"
	"strings"

	compute "github.com/compute-sdk/compute-go"
)

type securityGroup struct {
	v    compute.SecurityGroup
	next *pending
}

// wire shows the group; withStatus is false for get and list, whose examples in the contract omit
// the status.
func (g *securityGroup) wire(withStatus bool) wireSecurityGroup {
	w := wireSecurityGroup{SecurityGroup: g.v, CreatedAt: msTime(g.v.CreatedAt)}
	w.Rules = slices.Clone(g.v.Rules)
	if withStatus {
		w.Status = g.v.Status
	}
	return w
}

func (s *Server) createSecurityGroup(c *call) (int, any, *apiError) {
	var req compute.SecurityGroupCreateRequest
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	if err := checkGroupBody(has, req.Name, req.Rules); err != nil {
		return 0, nil, err
	}
	if !has["region"] || req.Region == "" {
		return 0, nil, missing("region")
	}
	if !s.knownRegion(req.Region) {
		return 0, nil, badRequest(compute.CodeBadRequest, "unknown region %q", req.Region)
	}
	g := &securityGroup{v: compute.SecurityGroup{
		ID: s.newID("sg"), Name: req.Name, Description: req.Description, Region: req.Region,
		Status: compute.SecurityGroupStatusCreating, Rules: nonNil(req.Rules), CreatedAt: c.now,
	}}
	g.next = &pending{to: string(compute.SecurityGroupStatusCreated), at: c.now.Add(s.cfg.durations.SecurityGroupCreate)}
	s.groups.add(g.v.ID, g)
	return http.StatusCreated, map[string]any{"security_group": g.wire(true)}, nil
}

// checkGroupBody applies the rules shared by create and update: name required and not reserved,
// rules required and valid.
func checkGroupBody(has map[string]bool, name string, rules []compute.SecurityGroupRule) *apiError {
	if !has["name"] || strings.TrimSpace(name) == "" {
		return missing("name")
	}
	for _, reserved := range []string{"default", "standard"} {
		if strings.EqualFold(strings.TrimSpace(name), reserved) {
			return badRequest(compute.CodeBadRequest, "the name %q is reserved", name)
		}
	}
	if !has["rules"] {
		return missing("rules")
	}
	// The SDK's validation states the contract's rule constraints; the fake applies the same ones.
	probe := compute.SecurityGroupUpdateRequest{Name: "probe", Rules: rules}
	if err := probe.Validate(); err != nil {
		return badRequest(compute.CodeInvalidRules, "at least one of the provided rules is invalid: %v", err)
	}
	return nil
}

func (s *Server) listSecurityGroups(c *call) (int, any, *apiError) {
	return pageOf(c, "security_groups", s.groups.all(), func(g *securityGroup) wireSecurityGroup { return g.wire(false) })
}

func (s *Server) group(id string) (*securityGroup, *apiError) {
	g, ok := s.groups.get(id)
	if !ok {
		return nil, notFound(compute.CodeSecurityGroupNotFound, "security group %q not found", id)
	}
	return g, nil
}

func (s *Server) getSecurityGroup(c *call) (int, any, *apiError) {
	g, err := s.group(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"security_group": g.wire(false)}, nil
}

func (s *Server) updateSecurityGroup(c *call) (int, any, *apiError) {
	g, err := s.group(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	var req struct {
		compute.SecurityGroupUpdateRequest
		Region any `json:"region"`
	}
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	if has["region"] {
		return 0, nil, badRequest(compute.CodeBadRequest, "region is not accepted in an update")
	}
	if err := checkGroupBody(has, req.Name, req.Rules); err != nil {
		return 0, nil, err
	}
	g.v.Name, g.v.Description, g.v.Rules = req.Name, req.Description, nonNil(req.Rules)
	for _, in := range s.instances.all() {
		renameRef(in.v.SecurityGroups, g.v.ID, g.v.Name)
	}
	return http.StatusOK, map[string]any{"security_group": g.wire(true)}, nil
}

func (s *Server) deleteSecurityGroup(c *call) (int, any, *apiError) {
	g, err := s.group(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	for _, in := range s.instances.all() {
		if hasRef(in.v.SecurityGroups, g.v.ID) {
			return 0, nil, badRequest(compute.CodeSecurityGroupUsedByInstances,
				"security group %q is used by instance %q", g.v.ID, in.v.ID)
		}
	}
	s.groups.remove(g.v.ID)
	return http.StatusNoContent, nil, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func hasRef(refs []compute.Ref, id string) bool {
	return slices.ContainsFunc(refs, func(r compute.Ref) bool { return r.ID == id })
}

func renameRef(refs []compute.Ref, id, name string) {
	for i := range refs {
		if refs[i].ID == id {
			refs[i].Name = name
		}
	}
}
