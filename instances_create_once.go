package compute

import (
	"context"
	"errors"
	"fmt"
)

// CreateOnce creates an instance and makes the request's name its idempotency key, so that a create
// whose response was lost never leads to a second instance:
//
//   - Before sending anything it looks for an instance with req.Name (GET /compute/v1/instances,
//     every page). If there is one, it returns it without creating anything: a retried call, or a
//     run after a crash, adopts what the earlier one made. Two or more are an error matching
//     [ErrConflict]: it cannot tell which one is meant.
//   - Otherwise it sends the create (POST /compute/v1/instances), never more than once.
//   - When the outcome is unknown ([ErrOutcomeUnknown]: the create may have been processed, but no
//     response says so), it looks the name up again and returns the instance it finds. When none is
//     there, it returns an error that still matches [ErrOutcomeUnknown]: calling CreateOnce again
//     is then safe, and is what the caller should do.
//
// Limits: the service does not make names unique. CreateOnce adopts any instance with the name,
// including one made by someone else or with other settings, so give each instance a name that
// only this caller uses (a run or request ID in it, for example). Two CreateOnce calls racing with
// the same name may both create. The lookups cost one list walk each.
func (s *InstancesService) CreateOnce(ctx context.Context, req *InstanceCreateRequest) (*Instance, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if inst, err := s.byName(ctx, req.Name); inst != nil || err != nil {
		return inst, err
	}
	inst, err := s.Create(ctx, req)
	if !errors.Is(err, ErrOutcomeUnknown) {
		return inst, err
	}
	found, lookupErr := s.byName(ctx, req.Name)
	switch {
	case found != nil:
		return found, nil
	case lookupErr != nil:
		return nil, fmt.Errorf("%w; looking the name up again failed too: %w", err, lookupErr)
	}
	return nil, fmt.Errorf("%w; no instance named %q exists, so calling CreateOnce again is safe", err, req.Name)
}

// byName returns the one instance named name, nil when there is none, and an error matching
// ErrConflict when there are several.
func (s *InstancesService) byName(ctx context.Context, name string) (*Instance, error) {
	var found []Instance
	for inst, err := range s.All(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if inst.Name == name {
			found = append(found, inst)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return &found[0], nil
	}
	return nil, fmt.Errorf("compute: %d instances are named %q, so CreateOnce cannot tell which one is meant: %w",
		len(found), name, ErrConflict)
}
