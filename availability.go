package compute

import "context"

// Availability reports which instance types a region can create now, the only place the contract
// lists instance types.
type Availability struct {
	// Type is the kind of report, an open string ("instances").
	Type string `json:"type"`
	// Region is the region the report is for.
	Region string `json:"region"`
	// Placement is the placement the report is for, an open string ("NONE").
	Placement string `json:"placement"`
	// InstanceTypes has one entry per instance type.
	InstanceTypes []InstanceTypeAvailability `json:"instance_types"`
}

// InstanceTypeAvailability is one instance type in an [Availability] report.
type InstanceTypeAvailability struct {
	// Type is the instance type identifier, the value of [InstanceCreateRequest.Type].
	Type string `json:"type"`
	// Available reports whether the type can be created in the region.
	Available bool `json:"available"`
	// Count is a number the contract does not describe; nil when omitted.
	Count *float64 `json:"count"`
}

// availabilityBody is the availability response.
type availabilityBody struct {
	Availability *Availability `json:"availability"`
}

func (b *availabilityBody) resource() *Availability { return b.Availability }

// AvailabilityOptions are the optional query of an availability report.
type AvailabilityOptions struct {
	// Placement selects the placement to report on, an open string; empty is not sent.
	Placement string `url:"placement,omitempty"`
}

// Validate accepts any options: placement is an open string.
func (o *AvailabilityOptions) Validate() error { return nil }

// Instances reports which instance types the region can create:
// GET /compute/v1/availability/{region}/instances. A nil opts sends no query.
func (s *AvailabilityService) Instances(ctx context.Context, region string, opts *AvailabilityOptions) (*Availability, error) {
	r := request{op: opGetAvailability, ids: []string{region}}
	if opts != nil {
		r.query = opts
	}
	return fetch(ctx, s.c, r, &availabilityBody{})
}
