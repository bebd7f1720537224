package compute

import (
	"context"
	"encoding/json"
	"strings"
)

// attachRequest is the instance update in its single-item forms: {"volumes": {"attach": id}},
// {"volumes": {"detach": id}} and the same under "security_groups", one key alone in the body.
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

// attach sends one attach or detach form of the instance update, {key: {verb: id}}, after checking
// id, named as it is sent ("volumes.attach"). It is a PATCH of /compute/v1/instances/{instance_id},
// declared apart in the operation table because it changes the instance relative to its current
// state: it is never re-sent after it may have been processed.
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

// AttachVolume attaches one volume to an instance without reading the current list first:
// PATCH /compute/v1/instances/{instance_id} with {"volumes": {"attach": volume_id}}. The volume
// must be free and in the instance's region (status created, see [Volume.Available]); the service
// refuses it otherwise with [CodeVolumeAttachFailed] (02032), [CodeVolumeLocked] (02046) or
// [CodeVolumeAlreadyAttached] (02056). It is never re-sent once it may have been processed: see
// [ErrOutcomeUnknown].
func (s *InstancesService) AttachVolume(ctx context.Context, instanceID, volumeID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "volumes", "attach", volumeID)
}

// DetachVolume detaches one volume from an instance without reading the current list first:
// PATCH /compute/v1/instances/{instance_id} with {"volumes": {"detach": volume_id}}. A refusal is
// [CodeVolumeDetachFailed] (02033) or [CodeVolumeLocked] (02046). It is never re-sent once it may
// have been processed: see [ErrOutcomeUnknown].
func (s *InstancesService) DetachVolume(ctx context.Context, instanceID, volumeID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "volumes", "detach", volumeID)
}

// AttachSecurityGroup attaches one security group to an instance without reading the current list
// first: PATCH /compute/v1/instances/{instance_id} with {"security_groups": {"attach":
// security_group_id}}. A refusal is [CodeSecurityGroupAttachFailed] (02030). It is never re-sent
// once it may have been processed: see [ErrOutcomeUnknown].
func (s *InstancesService) AttachSecurityGroup(ctx context.Context, instanceID, securityGroupID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "security_groups", "attach", securityGroupID)
}

// DetachSecurityGroup detaches one security group from an instance without reading the current
// list first: PATCH /compute/v1/instances/{instance_id} with {"security_groups": {"detach":
// security_group_id}}. A refusal is [CodeSecurityGroupDetachFailed] (02031). It is never re-sent
// once it may have been processed: see [ErrOutcomeUnknown].
func (s *InstancesService) DetachSecurityGroup(ctx context.Context, instanceID, securityGroupID string) (*Instance, error) {
	return s.attach(ctx, instanceID, "security_groups", "detach", securityGroupID)
}

// UserMetadata is an instance's user metadata, the response of
// GET /compute/v1/instances/{instance_id}/user-metadata: a free-form JSON object whose keys and values the
// contract does not describe. Each value is kept as the exact JSON the service sent; decode it
// with json.Unmarshal into the type you expect.
type UserMetadata map[string]json.RawMessage

// The user metadata response is the object itself, unwrapped: UserMetadata is its own envelope.
func (m *UserMetadata) resource() *UserMetadata { return m }

// UserMetadata reads an instance's user metadata:
// GET /compute/v1/instances/{instance_id}/user-metadata. It is read-only: the contract has no
// operation that writes it; it is set at creation through [InstanceCreateRequest.Metadata]. A
// missing instance is an error with code 02008 ([CodeInstanceNotFound]).
func (s *InstancesService) UserMetadata(ctx context.Context, id string) (UserMetadata, error) {
	m, err := fetch(ctx, s.c, request{op: opGetUserMetadata, ids: []string{id}}, &UserMetadata{})
	if err != nil {
		return nil, err
	}
	return *m, nil
}
