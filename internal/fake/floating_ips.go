package fake

import "time"

// Floating IP statuses.
const (
	fipCreating = "creating"
	fipCreated  = "created"
)

var floatingIPSpec = spec{collection: "floating-ips", quota: "floating_ips", code: codeStaticPublicIPQuotaReached,
	notFound: func(id string) *Error { return notFound(codeFloatingIPNotFound, "floating IP %q not found", id) },
	statuses: []string{fipCreating, fipCreated, "deleting", "error"}}

// floatingIP is a floating IP as the API shows it, with the transition it has in progress.
type floatingIP struct {
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
	lifecycle
}

func (f *floatingIP) view(*state) any { return f }

// arrive completes a transition: a floating IP that is created for the first time gets its address,
// which its instance, if it has one, shows as its public IP.
func (f *floatingIP) arrive(s *state, status string, at time.Time) {
	f.Status, f.UpdatedAt = status, stamp(at)
	if status == fipCreated && f.IPAddress == "" {
		f.IPAddress = nullString(s.newAddress("100.64.", f.Version))
		s.refreshPublicIP(f)
	}
}

// refreshPublicIP shows a floating IP's address as its instance's public IP once both have one.
func (s *state) refreshPublicIP(f *floatingIP) {
	if f.Instance == nil || f.IPAddress == "" {
		return
	}
	if in, ok := s.instances.find(f.Instance.ID); ok && in.PrivateIP != "" {
		in.PublicIP = f.IPAddress
	}
}

// attachableFloatingIP is an instance create's floating IP: one of the region that no instance holds.
func (s *state) attachableFloatingIP(id, region string) (*floatingIP, *Error) {
	f, ok := s.floatingIPs.find(id)
	switch {
	case !ok:
		return nil, badRequest(codeFloatingIPNotFound, "floating IP %q not found", id)
	case f.Region != region:
		return nil, badRequest(codeRegionsMismatch, "regions mismatch: floating IP %q is in %s, not %s", id, f.Region, region)
	case f.Instance != nil:
		return nil, badRequest(codeFloatingIPInUse, "floating IP %q is in use by instance %q", id, f.Instance.ID)
	}
	return f, nil
}
