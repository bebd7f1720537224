package compute

import "context"

// Availability reports which instance types a region can create now, the only place the contract
// lists instance types.
type Availability struct {
	Type          string                     `json:"type"`           // kind of report ("instances")
	Region        string                     `json:"region"`         // the region reported on
	Placement     string                     `json:"placement"`      // placement reported on ("NONE")
	InstanceTypes []InstanceTypeAvailability `json:"instance_types"` // one entry per instance type
}

// InstanceTypeAvailability is one instance type in an [Availability] report.
type InstanceTypeAvailability struct {
	Type      string   `json:"type"`      // the instance type, as in InstanceCreateRequest.Type
	Available bool     `json:"available"` // whether it can be created in the region
	Count     *float64 `json:"count"`     // a number the contract does not describe; nil when omitted
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
