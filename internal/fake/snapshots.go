package fake

import "time"

// Snapshot statuses.
const (
	snapshotCreating = "creating"
	snapshotCreated  = "created"
)

var snapshotSpec = spec{collection: "snapshots", quota: "snapshots", code: codeMaxQuotaReached,
	notFound: func(id string) *Error { return notFound(codeSnapshotNotFound, "snapshot %q not found", id) },
	statuses: []string{snapshotCreating, snapshotCreated, "deleting", "error", "pending_delete"}, ref: "image",
	inUse: refusal{codeSnapshotInUse, "snapshot %q cannot be deleted while instance %q uses it"}}

// snapshot is a snapshot as the API shows it (size in GiB), with the transition it has in
// progress. A snapshot of an instance carries source_instance_id and resource_id, both the
// instance's ID; a clone carries source_snapshot_id; an import carries none of the three. One store
// serves both the per-instance routes and the top-level collection: a snapshot taken of an instance
// is listed in both, and stays in the collection after its instance is gone.
type snapshot struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Size             int    `json:"size"`
	Region           string `json:"region"`
	Status           string `json:"status"`
	OSType           string `json:"os_type"`
	SourceInstanceID string `json:"source_instance_id,omitempty"`
	SourceSnapshotID string `json:"source_snapshot_id,omitempty"`
	ResourceID       string `json:"resource_id,omitempty"`
	CreatedAt        stamp  `json:"created_at"`
	UpdatedAt        stamp  `json:"updated_at"`
	lifecycle
	// regions are where the snapshot can be used as an image: its own and the replicated one.
	regions   []string
	baseImage string
	family    string
}

func (sn *snapshot) view(*state) any { return sn }

// uses is the instance a snapshot was taken of, which lists it among its snapshots.
func (sn *snapshot) uses() []string {
	if sn.SourceInstanceID == "" {
		return nil
	}
	return []string{ref("instance", sn.SourceInstanceID)}
}

func (sn *snapshot) arrive(_ *state, status string, at time.Time) {
	sn.Status, sn.UpdatedAt = status, stamp(at)
}

// addSnapshot stores a snapshot under the next ID, or refuses it past the snapshots quota. One
// taken of an instance is created at once, the only status the API shows for it; an import or a
// clone is creating until Durations.SnapshotCreate has passed.
func (s *state) addSnapshot(sn *snapshot, now time.Time) (*snapshot, *Error) {
	if err := s.quota(&s.snapshots); err != nil {
		return nil, err
	}
	sn.ID = s.newID("snap")
	s.snapshots.add(sn.ID, sn)
	if sn.SourceInstanceID != "" {
		return sn, nil
	}
	sn.Status = snapshotCreating
	s.snapshots.begin(sn, now, s.durations.SnapshotCreate, snapshotCreated)
	return sn, nil
}

// imageBody is an image as GET /images shows it: the catalogue's form, its timestamps in the API's
// (the outer fields hide the embedded ones, and keep their place in the JSON).
type imageBody struct {
	Image
	CreatedAt stamp `json:"created_at"`
	UpdatedAt stamp `json:"updated_at"`
}

// image is the snapshot as GET /images?type=snapshot shows it.
func (sn *snapshot) image() imageBody {
	return imageBody{Image: Image{ID: sn.ID, Name: sn.Name, Type: "snapshot", Family: sn.family, OSType: sn.OSType,
		Versions: []string{}, Regions: sn.regions}, CreatedAt: sn.CreatedAt, UpdatedAt: sn.UpdatedAt}
}
