package compute

import (
	"context"
	"encoding/json"
	"strings"
)

// attachRequest is the instance update in its single-item forms: {"volumes": {"attach": id}},
// {"security_groups": {"detach": id}} and so on.
type attachRequest struct {
	Volumes        *attachment `json:"volumes,omitzero"`
	SecurityGroups *attachment `json:"security_groups,omitzero"`
}

// attachment is {"attach": id} or {"detach": id}.
type attachment struct {
	Attach string `json:"attach,omitzero"`
	Detach string `json:"detach,omitzero"`
}

// Validate checks that the body holds exactly one key with exactly one ID.
func (r *attachRequest) Validate() error {
	for key, a := range map[string]*attachment{"volumes": r.Volumes, "security_groups": r.SecurityGroups} {
		if a != nil && (a.Attach == "") == (a.Detach == "") {
			return invalid(key, "give one of attach and detach")
		}
	}
	if (r.Volumes == nil) == (r.SecurityGroups == nil) {
		return invalid("request", "give one of volumes and security_groups")
	}
	return nil
}

// attach sends {key: {verb: id}} as an instance update (opAttachInstance, never re-sent).
func (s *InstancesService) attach(ctx context.Context, instanceID, key, verb, id string) (*Instance, error) {
	if strings.TrimSpace(id) == "" {
		return nil, invalid(key+"."+verb, "must not be empty")
	}
	a := &attachment{Attach: id}
	if verb == "detach" {
		a = &attachment{Detach: id}
	}
	body := &attachRequest{Volumes: a}
	if key == "security_groups" {
		body = &attachRequest{SecurityGroups: a}
	}
	return fetch(ctx, s.c, request{op: opAttachInstance, ids: []string{instanceID}, body: body}, &instanceBody{})
}

// AttachVolume attaches one volume to an instance: PATCH /compute/v1/instances/{instance_id} with
// {"volumes": {"attach": volume_id}}. The volume must be free ([Volume.Available]) and in the
// instance's region. Unlike a full update, it is never re-sent once it may have been processed
// ([ErrOutcomeUnknown]).
func (s *InstancesService) AttachVolume(ctx context.Context, instanceID, volumeID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "volumes", "attach", volumeID)
}

// DetachVolume detaches one volume from an instance: PATCH /compute/v1/instances/{instance_id} with
// {"volumes": {"detach": volume_id}}, never re-sent, like [InstancesService.AttachVolume].
func (s *InstancesService) DetachVolume(ctx context.Context, instanceID, volumeID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "volumes", "detach", volumeID)
}

// AttachSecurityGroup attaches one security group to an instance:
// PATCH /compute/v1/instances/{instance_id} with {"security_groups": {"attach": id}}, never
// re-sent, like [InstancesService.AttachVolume].
func (s *InstancesService) AttachSecurityGroup(ctx context.Context, instanceID, securityGroupID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "security_groups", "attach", securityGroupID)
}

// DetachSecurityGroup detaches one security group from an instance:
// PATCH /compute/v1/instances/{instance_id} with {"security_groups": {"detach": id}}, never
// re-sent, like [InstancesService.AttachVolume].
func (s *InstancesService) DetachSecurityGroup(ctx context.Context, instanceID, securityGroupID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "security_groups", "detach", securityGroupID)
}

// UserMetadata is an instance's user metadata, a JSON object the contract does not describe. Each
// value is the exact JSON the service sent; decode it with json.Unmarshal.
type UserMetadata map[string]json.RawMessage

// The user metadata response is not wrapped: UserMetadata is its own envelope.
func (m *UserMetadata) resource() *UserMetadata { return m }

// UserMetadata reads an instance's user metadata:
// GET /compute/v1/instances/{instance_id}/user-metadata. The contract has no operation that writes
// it; it is set at creation ([InstanceCreateRequest.Metadata]).
func (s *InstancesService) UserMetadata(ctx context.Context, id string) (UserMetadata, error) {
	m, err := fetch(ctx, s.c, request{op: opGetUserMetadata, ids: []string{id}}, &UserMetadata{})
	if err != nil {
		return nil, err
	}
	return *m, nil
}
