package computetest

import (
	"net/http"
	"strings"

	compute "github.com/compute-sdk/compute-go"
)

type floatingIP struct {
	v    compute.FloatingIP
	next *pending
}

func (f *floatingIP) wire() wireFloatingIP {
	w := wireFloatingIP{FloatingIP: f.v, IPAddress: nullable(f.v.IPAddress),
		CreatedAt: msTime(f.v.CreatedAt), UpdatedAt: msTime(f.v.UpdatedAt)}
	if f.v.Instance != nil {
		ref := *f.v.Instance
		w.Instance = &ref
	}
	return w
}

func (s *Server) createFloatingIP(c *call) (int, any, *apiError) {
	var req compute.FloatingIPCreateRequest
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case !has["name"] || strings.TrimSpace(req.Name) == "":
		return 0, nil, missing("name")
	case !has["region"] || req.Region == "":
		return 0, nil, missing("region")
	case !s.knownRegion(req.Region):
		return 0, nil, badRequest(compute.CodeBadRequest, "unknown region %q", req.Region)
	}
	switch req.Version {
	case "", compute.IPVersionIPv4:
		req.Version = compute.IPVersionIPv4
	case compute.IPVersionIPv6:
		return 0, nil, badRequest(compute.CodeFloatingIPVersionUnavailable, "floating IP version ipv6 is unavailable")
	default:
		return 0, nil, badRequest(compute.CodeBadRequest, "version must be ipv4 or ipv6, got %q", req.Version)
	}
	if m := s.cfg.limits.MaxFloatingIPs; m > 0 && len(s.fips.order) >= m {
		return 0, nil, badRequest(compute.CodeStaticPublicIPQuotaReached, "max static public ip quota reached (%d)", m)
	}
	f := &floatingIP{v: compute.FloatingIP{
		ID: s.newID("fip"), Name: req.Name, Description: req.Description, IsPublic: true,
		Version: req.Version, Region: req.Region, Status: compute.FloatingIPStatusCreating,
		CreatedAt: c.now, UpdatedAt: c.now,
	}}
	f.next = &pending{to: string(compute.FloatingIPStatusCreated), at: c.now.Add(s.cfg.durations.FloatingIPCreate)}
	s.fips.add(f.v.ID, f)
	return http.StatusCreated, map[string]any{"floating_ip": f.wire()}, nil
}

func (s *Server) listFloatingIPs(c *call) (int, any, *apiError) {
	return pageOf(c, "floating_ips", s.fips.all(), (*floatingIP).wire)
}

func (s *Server) floatingIP(id string) (*floatingIP, *apiError) {
	f, ok := s.fips.get(id)
	if !ok {
		return nil, notFound(compute.CodeFloatingIPNotFound, "floating IP %q not found", id)
	}
	return f, nil
}

func (s *Server) getFloatingIP(c *call) (int, any, *apiError) {
	f, err := s.floatingIP(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"floating_ip": f.wire()}, nil
}

func (s *Server) updateFloatingIP(c *call) (int, any, *apiError) {
	f, err := s.floatingIP(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	var req compute.FloatingIPUpdateRequest
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	if !has["name"] && !has["description"] {
		return 0, nil, badRequest(compute.CodeMissingParameters, "name or description is required")
	}
	if req.Name != nil {
		if strings.TrimSpace(*req.Name) == "" {
			return 0, nil, badRequest(compute.CodeBadRequest, "name must not be empty")
		}
		f.v.Name = *req.Name
		for _, in := range s.instances.all() {
			if in.v.FloatingIP != nil && in.v.FloatingIP.ID == f.v.ID {
				in.v.FloatingIP.Name = f.v.Name
			}
		}
	}
	if req.Description != nil {
		f.v.Description = *req.Description
	}
	f.v.UpdatedAt = c.now
	return http.StatusOK, map[string]any{"floating_ip": f.wire()}, nil
}

func (s *Server) deleteFloatingIP(c *call) (int, any, *apiError) {
	f, err := s.floatingIP(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	if f.v.Instance != nil {
		return 0, nil, badRequest(compute.CodeFloatingIPInUse, "floating IP %q is attached to instance %q", f.v.ID, f.v.Instance.ID)
	}
	s.fips.remove(f.v.ID)
	return http.StatusNoContent, nil, nil
}

// refreshPublicIP shows a floating IP's address as its instance's public IP once it has one.
func (s *Server) refreshPublicIP(f *floatingIP) {
	if f.v.Instance == nil || f.v.IPAddress == "" {
		return
	}
	if in, ok := s.instances.get(f.v.Instance.ID); ok && in.v.PrivateIP != "" {
		in.v.PublicIP = f.v.IPAddress
	}
}

func (s *Server) knownRegion(id string) bool {
	for _, r := range s.catalog.Regions {
		if r.ID == id {
			return true
		}
	}
	return false
}
