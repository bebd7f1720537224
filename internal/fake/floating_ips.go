package fake

import "time"

// Floating IP statuses.
const (
	fipCreating = "creating"
	fipCreated  = "created"
)

var floatingIPSpec = spec{collection: "floating-ips", quota: "floating_ips", code: codeStaticPublicIPQuotaReached,
	notFound: func(id string) *Error { return notFound(codeFloatingIPNotFound, "floating IP %q not found", id) },
	statuses: []string{fipCreating, fipCreated, "deleting", "error"}, ref: "fip",
	inUse: refusal{codeFloatingIPInUse, "floating IP %q is attached to instance %q"}}

// floatingIP is a floating IP as the API shows it (view fills in its instance), with the transition
// it has in progress.
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

// view is the floating IP with the instance that holds it.
func (f *floatingIP) view(s *state) any {
	b := *f
	if holder := referrers(&s.instances, ref("fip", f.ID)); len(holder) > 0 {
		b.Instance = &Ref{ID: holder[0].ID, Name: holder[0].Name}
	}
	return &b
}

// arrive completes a transition: a floating IP that is created for the first time shows the address
// its create took, which its instance, if it has one, shows as its public IP.
func (f *floatingIP) arrive(s *state, status string, at time.Time) {
	f.Status, f.UpdatedAt = status, stamp(at)
	if status == fipCreated && f.IPAddress == "" {
		f.IPAddress = nullString(s.public.take(f.ID))
		for _, in := range referrers(&s.instances, ref("fip", f.ID)) {
			s.refreshPublicIP(in)
		}
	}
}

// refreshPublicIP shows an instance's floating IP's address as its public IP once both have one,
// freeing the address the instance held until then.
func (s *state) refreshPublicIP(in *instance) {
	if in.FloatingIP == nil || in.PrivateIP == "" {
		return
	}
	if f, ok := s.floatingIPs.find(in.FloatingIP.ID); ok && f.IPAddress != "" {
		in.PublicIP = f.IPAddress
		s.public.release(in.ID)
	}
}

// floatingIPRef resolves an instance create's floating IP, nil for none: one of the region that no
// instance holds.
func (s *state) floatingIPRef(id, region string) (*Ref, *Error) {
	f, ok := s.floatingIPs.find(id)
	holder := s.holder("fip", id)
	switch {
	case id == "":
		return nil, nil
	case !ok:
		return nil, badRequest(codeFloatingIPNotFound, "floating IP %q not found", id)
	case f.Region != region:
		return nil, badRequest(codeRegionsMismatch, "regions mismatch: floating IP %q is in %s, not %s", id, f.Region, region)
	case holder != "":
		return nil, badRequest(codeFloatingIPInUse, "floating IP %q is in use by instance %q", id, holder)
	}
	return &Ref{ID: f.ID, Name: f.Name}, nil
}
