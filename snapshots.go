package compute

import (
	"context"
	"iter"
	"strings"
	"time"
)

// SnapshotStatus is the state of a snapshot. The service has used other values over time
// ("available"), so a value without a constant here still decodes and re-encodes unchanged.
type SnapshotStatus string

// SnapshotStatusCreated is a finished snapshot, the only status the contract shows.
const SnapshotStatusCreated SnapshotStatus = "created"

// Snapshot is a backup of an instance, usable as the image of a new instance.
type Snapshot struct {
	// ID is the snapshot's identifier; pass it as [InstanceCreateRequest.Image] to build an
	// instance from the snapshot.
	ID string `json:"id"`
	// Name is the snapshot's name.
	Name string `json:"name"`
	// Size is the snapshot's size; the contract does not state its unit.
	Size int64 `json:"size"`
	// Region is the region identifier.
	Region string `json:"region"`
	// Status is the snapshot's state.
	Status SnapshotStatus `json:"status"`
	// OSType is the operating system kind.
	OSType string `json:"os_type"`
	// SourceInstanceID is the ID of the instance snapshotted.
	SourceInstanceID string `json:"source_instance_id"`
	// ResourceID is the ID of the snapshotted resource; the contract shows it in list items only.
	ResourceID string `json:"resource_id"`
	// CreatedAt is when the snapshot was taken.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the snapshot last changed; the contract shows it in the create response.
	UpdatedAt time.Time `json:"updated_at"`
}

// The response shapes that carry a snapshot: {"snapshot": {...}} and a page of {"snapshots": [...]}.
type (
	snapshotBody struct {
		Snapshot *Snapshot `json:"snapshot"`
	}
	snapshotsPage struct {
		Snapshots items[Snapshot] `json:"snapshots"`
		pageCounts
	}
)

func (b *snapshotBody) resource() *Snapshot                     { return b.Snapshot }
func (p *snapshotsPage) parts() (*items[Snapshot], *pageCounts) { return &p.Snapshots, &p.pageCounts }

// SnapshotCreateRequest is the body of a snapshot create.
type SnapshotCreateRequest struct {
	// Name is the snapshot's name (required).
	Name string `json:"name"`
	// ReplicatedRegion is a region to copy the snapshot to as well.
	ReplicatedRegion string `json:"replicated_region,omitzero"`
}

// Validate checks the required name before any request is sent.
func (r *SnapshotCreateRequest) Validate() error {
	if r == nil {
		return invalid("request", "is nil")
	}
	if strings.TrimSpace(r.Name) == "" {
		return invalid("name", "is required")
	}
	return nil
}

// Create snapshots an instance: POST /compute/v1/instances/{instance_id}/snapshots. Only an active
// instance can be snapshotted; another status is refused with code 02037
// ([CodeSnapshotRequiresActive]); a snapshot already being created may be refused with 02011.
//
// A create is never re-sent after it may have reached the service: when errors.Is(err,
// [ErrOutcomeUnknown]) holds, the snapshot may exist, so look it up with ListByInstance before
// trying again.
func (s *SnapshotsService) Create(ctx context.Context, instanceID string, req *SnapshotCreateRequest) (*Snapshot, error) {
	return fetch(ctx, s.c, request{op: opCreateSnapshot, ids: []string{instanceID}, body: req}, &snapshotBody{})
}

// ListByInstance returns one page of an instance's snapshots:
// GET /compute/v1/instances/{instance_id}/snapshots. The contract does not show query parameters for
// this list; page and per_page are sent when set, as on every other list.
func (s *SnapshotsService) ListByInstance(ctx context.Context, instanceID string, opts *ListOptions) (*Page[Snapshot], error) {
	return list(ctx, s.c, opListSnapshots, []string{instanceID}, opts, &snapshotsPage{})
}

// AllByInstance walks every snapshot of an instance from the page opts selects on, fetching pages
// lazily with GET /compute/v1/instances/{instance_id}/snapshots. It stops at the first error, which
// it yields once.
func (s *SnapshotsService) AllByInstance(ctx context.Context, instanceID string, opts *ListOptions) iter.Seq2[Snapshot, error] {
	return walk(ctx, opts, func(ctx context.Context, o *ListOptions) (*Page[Snapshot], error) {
		return s.ListByInstance(ctx, instanceID, o)
	})
}
