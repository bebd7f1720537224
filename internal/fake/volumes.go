package fake

import "time"

// Volume and filesystem statuses. The service's volume statuses have no "available", the status
// the API's attach condition names: the fake shows "created" and treats a created volume that no
// instance holds as available.
const (
	storageCreating = "creating"
	storageCreated  = "created"
)

var volumeSpec = spec{collection: "volumes", quota: "volumes", code: codeMaxQuotaReached, product: "volume",
	notFound: func(id string) *Error { return notFound(codeVolumeNotFound, "volume %q not found", id) },
	statuses: []string{storageCreating, storageCreated, "deleting", "error", "pending_delete"}, ref: "volume",
	// An instance's delete releases its volumes when it completes.
	inUse: refusal{codeAttachedVolumeNotDeletable, "volume %q is attached to instance %q and cannot be deleted"}}

// volumeTypes are the volume types; a create without type gets ssd.
var volumeTypes = []string{"hdd", "ssd"}

// volume is a volume as the API shows it (view fills in its instances), with the transition it has
// in progress.
type volume struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Size        int    `json:"size"`
	Type        string `json:"type"`
	Region      string `json:"region"`
	Status      string `json:"status"`
	Instances   []Ref  `json:"instances"`
	CreatedAt   stamp  `json:"created_at"`
	UpdatedAt   stamp  `json:"updated_at"`
	lifecycle
	// locked is a catalogue volume that can be neither attached nor detached (02046).
	locked bool
}

func (v *volume) flavor() string { return v.Type }

func (v *volume) arrive(_ *state, status string, at time.Time) {
	v.Status, v.UpdatedAt = status, stamp(at)
}

// catalogVolume is a catalogue volume as the API shows it: created, 10 GiB of ssd.
func catalogVolume(v Volume, at stamp) *volume {
	return &volume{locked: v.Status == VolumeLocked, ID: v.ID, Name: v.Name, Size: 10, Type: "ssd", Region: v.Region,
		Status: storageCreated, CreatedAt: at, UpdatedAt: at}
}

// view is the volume with the instance that holds it.
func (v *volume) view(s *state) any {
	b := *v
	b.Instances = []Ref{}
	for _, in := range referrers(&s.instances, ref("volume", v.ID)) {
		b.Instances = append(b.Instances, Ref{ID: in.ID, Name: in.Name})
	}
	return &b
}

// attachableVolumes checks that each volume exists in the region and is available (created and
// held by no instance), or is already attached to owner (an update that keeps it). A volume still
// creating, or held by another instance, is 02032; a locked one 02046; one listed twice 02056.
func (s *state) attachableVolumes(ids []string, region, owner string) ([]Ref, *Error) {
	out := []Ref{}
	for _, id := range ids {
		v, ok := s.volumes.find(id)
		if !ok {
			return nil, badRequest(codeVolumeNotFound, "volume %q not found", id)
		}
		holder := s.holder("volume", id)
		switch {
		case hasRef(out, id):
			return nil, badRequest(codeVolumeAlreadyAttached, "volume %q is listed twice", id)
		case v.Region != region:
			return nil, badRequest(codeRegionsMismatch, "regions mismatch: volume %q is in %s, not %s", id, v.Region, region)
		case v.locked && (owner == "" || holder != owner):
			return nil, badRequest(codeVolumeLocked, "volume %q is locked, cannot be attached or detached", id)
		case holder != "" && holder != owner:
			return nil, badRequest(codeVolumeAttachFailed, "volume %q cannot be attached: it is attached to instance %q", id, holder)
		case v.Status != storageCreated:
			return nil, badRequest(codeVolumeAttachFailed, "volume %q cannot be attached: its status is %q, not created", id, v.Status)
		}
		out = append(out, Ref{ID: id, Name: v.Name})
	}
	return out, nil
}
