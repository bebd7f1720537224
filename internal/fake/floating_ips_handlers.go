package fake

// floatingIPCreate is the body of POST /floating-ips.
type floatingIPCreate struct {
	Name        string `json:"name" fake:"required"`
	Description string `json:"description"`
	Region      string `json:"region" fake:"required"`
	Version     string `json:"version"`
}

// check refuses a version other than ipv4 (the default): ipv6 is 02075, as the service cannot
// create one yet, anything else 02004.
func (r *floatingIPCreate) check() *Error {
	switch r.Version {
	case "", "ipv4":
		r.Version = "ipv4"
	case "ipv6":
		return badRequest(codeFloatingIPVersionUnavailable, "floating IP version ipv6 is unavailable")
	default:
		return badRequest(codeBadRequest, "version must be ipv4 or ipv6, got %q", r.Version)
	}
	return nil
}

func createFloatingIP(s *state, c call, r *floatingIPCreate) (*floatingIP, *Error) {
	if err := s.region("region", r.Region); err != nil {
		return nil, err
	}
	if err := s.quota(&s.floatingIPs); err != nil {
		return nil, err
	}
	// The address is taken now, shown once created: a create that finds every one held is refused.
	if s.public.full() {
		return nil, badRequest(codeStaticPublicIPQuotaReached,
			"static public IP quota reached: all %d public addresses are held", s.public.size)
	}
	f := &floatingIP{ID: s.newID("fip"), Name: r.Name, Description: r.Description, IsPublic: true, Version: r.Version,
		Region: r.Region, Status: fipCreating, CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now)}
	s.floatingIPs.add(f.ID, f)
	s.public.take(f.ID)
	s.floatingIPs.begin(f, c.now, s.durations.FloatingIPCreate, fipCreated)
	return f, nil
}

// floatingIPUpdate is the body of PATCH /floating-ips/{id}: name, description or both.
type floatingIPUpdate struct {
	Name        *string `json:"name" fake:"nonblank"`
	Description *string `json:"description"`
}

func (r *floatingIPUpdate) check() *Error {
	if r.Name == nil && r.Description == nil {
		return badRequest(codeMissingParameters, "name or description is required")
	}
	return nil
}

func updateFloatingIP(s *state, c call, f *floatingIP, r *floatingIPUpdate) (any, *Error) {
	if r.Name != nil { // its instance shows the new name
		f.Name = *r.Name
		s.renamed("fip", f.ID, f.Name)
	}
	setGiven(&f.Description, r.Description)
	f.UpdatedAt = stamp(c.now)
	return f.view(s), nil
}
