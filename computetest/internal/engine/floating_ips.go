package engine

import (
	"net/http"
	"strings"
)

// Floating IP statuses, from the contract.
const (
	fipCreating = "creating"
	fipCreated  = "created"
)

// floatingIPBody is a floating IP as the contract shows it.
type floatingIPBody struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	IPAddress   nullString `json:"ip_address"`
	IsPublic    bool       `json:"is_public"`
	Version     string     `json:"version"`
	Region      string     `json:"region"`
	Status      string     `json:"status"`
	Instance    *Ref       `json:"instance"`
	CreatedAt   stamp      `json:"created_at"`
	UpdatedAt   stamp      `json:"updated_at"`
}

type floatingIP struct {
	floatingIPBody
	next *pending
}

func (e *Engine) createFloatingIP(c *call) (int, any, *apiError) {
	o, err := parseBody(c.body, "name", "description", "region", "version")
	if err != nil {
		return 0, nil, err
	}
	var name, description, region, version string
	for _, err := range []*apiError{o.str("name", &name), o.str("description", &description),
		o.str("region", &region), o.str("version", &version)} {
		if err != nil {
			return 0, nil, err
		}
	}
	switch {
	case strings.TrimSpace(name) == "":
		return 0, nil, missing("name")
	case region == "":
		return 0, nil, missing("region")
	case !e.knownRegion(region):
		return 0, nil, badRequest(codeBadRequest, "unknown region %q", region)
	}
	switch version {
	case "", "ipv4":
		version = "ipv4"
	case "ipv6":
		return 0, nil, badRequest(codeFloatingIPVersionUnavailable, "floating IP version ipv6 is unavailable")
	default:
		return 0, nil, badRequest(codeBadRequest, "version must be ipv4 or ipv6, got %q", version)
	}
	if m := e.cfg.Limits.MaxFloatingIPs; m > 0 && len(e.fips.order) >= m {
		return 0, nil, badRequest(codeStaticPublicIPQuotaReached, "max static public ip quota reached (%d)", m)
	}
	f := &floatingIP{floatingIPBody: floatingIPBody{
		ID: e.newID("fip"), Name: name, Description: description, IsPublic: true,
		Version: version, Region: region, Status: fipCreating,
		CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now),
	}}
	f.next = &pending{to: fipCreated, at: c.now.Add(e.cfg.Durations.FloatingIPCreate)}
	e.fips.add(f.ID, f)
	return http.StatusCreated, map[string]any{"floating_ip": &f.floatingIPBody}, nil
}

func (e *Engine) listFloatingIPs(c *call) (int, any, *apiError) {
	return pageOf(c, "floating_ips", e.fips.all(), func(f *floatingIP) *floatingIPBody { return &f.floatingIPBody })
}

func (e *Engine) floatingIP(id string) (*floatingIP, *apiError) {
	f, ok := e.fips.get(id)
	if !ok {
		return nil, notFound(codeFloatingIPNotFound, "floating IP %q not found", id)
	}
	return f, nil
}

func (e *Engine) getFloatingIP(c *call) (int, any, *apiError) {
	f, err := e.floatingIP(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"floating_ip": &f.floatingIPBody}, nil
}

func (e *Engine) updateFloatingIP(c *call) (int, any, *apiError) {
	f, err := e.floatingIP(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	o, err := parseBody(c.body, "name", "description")
	if err != nil {
		return 0, nil, err
	}
	var name, description string
	if err := o.str("name", &name); err != nil {
		return 0, nil, err
	}
	if err := o.str("description", &description); err != nil {
		return 0, nil, err
	}
	if !o.has("name") && !o.has("description") {
		return 0, nil, badRequest(codeMissingParameters, "name or description is required")
	}
	if o.has("name") {
		if strings.TrimSpace(name) == "" {
			return 0, nil, badRequest(codeBadRequest, "name must not be empty")
		}
		f.Name = name
		for _, in := range e.instances.all() {
			if in.FloatingIP != nil && in.FloatingIP.ID == f.ID {
				in.FloatingIP.Name = f.Name
			}
		}
	}
	if o.has("description") {
		f.Description = description
	}
	f.UpdatedAt = stamp(c.now)
	return http.StatusOK, map[string]any{"floating_ip": &f.floatingIPBody}, nil
}

func (e *Engine) deleteFloatingIP(c *call) (int, any, *apiError) {
	f, err := e.floatingIP(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	if f.Instance != nil {
		return 0, nil, badRequest(codeFloatingIPInUse, "floating IP %q is attached to instance %q", f.ID, f.Instance.ID)
	}
	e.fips.remove(f.ID)
	return http.StatusNoContent, nil, nil
}

// refreshPublicIP shows a floating IP's address as its instance's public IP once it has one.
func (e *Engine) refreshPublicIP(f *floatingIP) {
	if f.Instance == nil || f.IPAddress == "" {
		return
	}
	if in, ok := e.instances.get(f.Instance.ID); ok && in.PrivateIP != "" {
		in.PublicIP = f.IPAddress
	}
}

func (e *Engine) knownRegion(id string) bool {
	for _, r := range e.catalog.Regions {
		if r.ID == id {
			return true
		}
	}
	return false
}
