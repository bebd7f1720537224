package compute

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// SnapshotStatus is the state of a snapshot. A value without a constant here decodes and re-encodes
// unchanged.
type SnapshotStatus string

// Snapshot statuses. The contract states no transitions between them.
const (
	SnapshotStatusCreating      SnapshotStatus = "creating"       // being taken, imported or cloned
	SnapshotStatusCreated       SnapshotStatus = "created"        // finished; usable as an image
	SnapshotStatusPendingDelete SnapshotStatus = "pending_delete" // its delete has been accepted
	SnapshotStatusDeleting      SnapshotStatus = "deleting"       // on its way out
	SnapshotStatusError         SnapshotStatus = "error"          // failed; does not recover on its own
)

// Snapshot is a backup of an instance, usable as the image of a new instance.
type Snapshot struct {
	ID               string         `json:"id"`                 // pass as InstanceCreateRequest.Image to build an instance from it
	Name             string         `json:"name"`               // the snapshot's name
	Size             int64          `json:"size"`               // size in GiB
	Region           string         `json:"region"`             // region identifier
	Status           SnapshotStatus `json:"status"`             // the snapshot's state
	OSType           string         `json:"os_type"`            // OSTypeLinux or OSTypeWindows
	SourceInstanceID string         `json:"source_instance_id"` // the instance snapshotted; "" for an import or when omitted
	SourceSnapshotID string         `json:"source_snapshot_id"` // the snapshot it was cloned from, if any
	// ResourceID is the snapshotted resource's ID; only items of an instance's snapshot list may
	// carry it, "" otherwise.
	ResourceID string    `json:"resource_id"`
	CreatedAt  time.Time `json:"created_at"` // when it was taken
	UpdatedAt  time.Time `json:"updated_at"` // when it last changed
}

// The response shapes of a snapshot and of a page of snapshots.
type (
	snapshotBody struct {
		Snapshot *Snapshot `json:"snapshot"`
	}
	snapshotsPage struct {
		Snapshots []Snapshot `json:"snapshots"`
		pageCounts
	}
)

func (b *snapshotBody) resource() *Snapshot                { return b.Snapshot }
func (p *snapshotsPage) parts() (*[]Snapshot, *pageCounts) { return &p.Snapshots, &p.pageCounts }

// SnapshotCreateRequest is the body of a snapshot create.
type SnapshotCreateRequest struct {
	Name             string `json:"name"`                       // required
	ReplicatedRegion string `json:"replicated_region,omitzero"` // a region to copy it to as well
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
// instance can be snapshotted (02037), one at a time (02011). It is never re-sent once it may have
// been processed ([ErrOutcomeUnknown]).
func (s *SnapshotsService) Create(ctx context.Context, instanceID string, req *SnapshotCreateRequest) (*Snapshot, error) {
	return fetch(ctx, s.c, request{op: opCreateSnapshot, ids: []string{instanceID}, body: req}, &snapshotBody{})
}

// ListByInstance returns one page of an instance's snapshots:
// GET /compute/v1/instances/{instance_id}/snapshots. The contract shows no query parameters for
// this list; the SDK sends page and per_page when set, as on every other list.
func (s *SnapshotsService) ListByInstance(ctx context.Context, instanceID string, opts *ListOptions) (*Page[Snapshot], error) {
	p, err := list(ctx, s.c, opListSnapshots, []string{instanceID}, opts, &snapshotsPage{})
	if err != nil {
		return nil, err
	}
	for _, v := range p.Items {
		// A snapshot of another instance in this list is a broken or hostile server's.
		if of := cmp.Or(v.SourceInstanceID, v.ResourceID); of != "" && of != instanceID {
			return nil, fmt.Errorf("compute: %s %s: the page holds snapshot %q of instance %q, not of the one asked for",
				opListSnapshots.method, s.c.transport.cred.shownPath(opListSnapshots, []string{instanceID}),
				s.c.transport.cred.outside(v.ID), s.c.transport.cred.outside(of))
		}
	}
	return p, nil
}

// AllByInstance iterates over every snapshot of an instance, fetching
// GET /compute/v1/instances/{instance_id}/snapshots pages as the loop reaches them.
func (s *SnapshotsService) AllByInstance(ctx context.Context, instanceID string, opts *ListOptions) iter.Seq2[Snapshot, error] {
	return walk(ctx, s.c, opts, func(ctx context.Context, o *ListOptions) (*Page[Snapshot], error) {
		return s.ListByInstance(ctx, instanceID, o)
	}, false)
}

// SnapshotImportRequest is the body of a snapshot import, POST /compute/v1/snapshots: a snapshot
// made from a raw disk image (optionally zstd-compressed) at a URL.
type SnapshotImportRequest struct {
	Name   string `json:"name"`   // required
	Region string `json:"region"` // required
	Size   int    `json:"size"`   // in GiB, at least 1 (required)
	URL    string `json:"url"`    // where the service downloads the raw disk image from (required)
	// OSType is the image's operating system kind, [OSTypeLinux] or [OSTypeWindows]; empty leaves
	// the service's default.
	OSType string `json:"os_type,omitzero"`
}

// Validate checks the request against the contract's rules.
func (r *SnapshotImportRequest) Validate() error {
	if r == nil {
		return invalid("request", "is nil")
	}
	var p problems
	for _, f := range []struct{ name, value string }{{"name", r.Name}, {"region", r.Region}, {"url", r.URL}} {
		if strings.TrimSpace(f.value) == "" {
			p.add(f.name, "is required")
		}
	}
	if r.Size < 1 {
		p.add("size", "must be at least 1 GiB, got %d", r.Size)
	}
	switch r.OSType {
	case "", OSTypeLinux, OSTypeWindows:
	default:
		p.add("os_type", "must be %q or %q, got %q", OSTypeLinux, OSTypeWindows, r.OSType)
	}
	return p.err()
}

// SnapshotCloneRequest is the body of a snapshot clone, POST /compute/v1/snapshots/{snapshot_id}/clone.
type SnapshotCloneRequest struct {
	Name   string `json:"name"`   // the copy's name (required)
	Region string `json:"region"` // the copy's region, which may differ from the source's (required)
}

// Validate checks the required fields before any request is sent.
func (r *SnapshotCloneRequest) Validate() error {
	if r == nil {
		return invalid("request", "is nil")
	}
	var p problems
	if strings.TrimSpace(r.Name) == "" {
		p.add("name", "is required")
	}
	if strings.TrimSpace(r.Region) == "" {
		p.add("region", "is required")
	}
	return p.err()
}

// SnapshotUpdateRequest is the body of a snapshot update.
type SnapshotUpdateRequest struct {
	Name string `json:"name"` // the new name (required)
}

// Validate checks the new name before any request is sent.
func (r *SnapshotUpdateRequest) Validate() error {
	if r == nil {
		return invalid("request", "is nil")
	}
	if strings.TrimSpace(r.Name) == "" {
		return invalid("name", "is required")
	}
	return nil
}

// List reads one page of all the account's snapshots, whatever made them: GET /compute/v1/snapshots.
// For one instance's snapshots use [SnapshotsService.ListByInstance].
func (s *SnapshotsService) List(ctx context.Context, opts *ListOptions) (*Page[Snapshot], error) {
	return list(ctx, s.c, opListAllSnapshots, nil, opts, &snapshotsPage{})
}

// All iterates over all the account's snapshots, fetching GET /compute/v1/snapshots pages as the
// loop reaches them.
func (s *SnapshotsService) All(ctx context.Context, opts *ListOptions) iter.Seq2[Snapshot, error] {
	return walk(ctx, s.c, opts, s.List, false)
}

// Get reads one snapshot: GET /compute/v1/snapshots/{snapshot_id}. A missing snapshot is an error
// with code 02015 ([CodeSnapshotNotFound]).
// With [SharedRead], a walk of the list that many reads share may answer it.
func (s *SnapshotsService) Get(ctx context.Context, id string, opts ...GetOption) (*Snapshot, error) {
	return getWith(ctx, s.polls, request{op: opGetSnapshot, ids: []string{id}}, &snapshotBody{}, opts)
}

// Import makes a snapshot from a raw disk image at a URL: POST /compute/v1/snapshots. It is never
// re-sent once it may have been processed ([ErrOutcomeUnknown]).
func (s *SnapshotsService) Import(ctx context.Context, req *SnapshotImportRequest) (*Snapshot, error) {
	return fetch(ctx, s.c, request{op: opImportSnapshot, body: req}, &snapshotBody{})
}

// Clone copies a snapshot, possibly into another region:
// POST /compute/v1/snapshots/{snapshot_id}/clone. It returns the new snapshot, usually creating,
// and is never re-sent once it may have been processed ([ErrOutcomeUnknown]).
func (s *SnapshotsService) Clone(ctx context.Context, id string, req *SnapshotCloneRequest) (*Snapshot, error) {
	return fetch(ctx, s.c, request{op: opCloneSnapshot, ids: []string{id}, body: req}, &snapshotBody{})
}

// Update renames a snapshot: PATCH /compute/v1/snapshots/{snapshot_id}.
func (s *SnapshotsService) Update(ctx context.Context, id string, req *SnapshotUpdateRequest) (*Snapshot, error) {
	return fetch(ctx, s.c, request{op: opUpdateSnapshot, ids: []string{id}, body: req}, &snapshotBody{})
}

// Delete destroys a snapshot: DELETE /compute/v1/snapshots/{snapshot_id}. A snapshot in use (an
// instance built from it) is refused with [CodeSnapshotInUse] (02016).
func (s *SnapshotsService) Delete(ctx context.Context, id string) error {
	return send(ctx, s.c, request{op: opDeleteSnapshot, ids: []string{id}})
}

// WaitForStatus polls GET /compute/v1/snapshots/{snapshot_id} until the snapshot reaches target, as
// [InstancesService.WaitForStatus] does; error, pending_delete and deleting are failure statuses.
func (s *SnapshotsService) WaitForStatus(ctx context.Context, id string, target SnapshotStatus, opts ...WaitOption) (*Snapshot, error) {
	return s.waiter(id).wait(ctx, target, opts)
}

// CreateOnce snapshots an instance unless a snapshot of it named req.Name exists
// (POST /compute/v1/instances/{instance_id}/snapshots, sent once unless [RetryNotCreated]), as
// [InstancesService.CreateOnce] does. It adopts one that is not being deleted or in error.
func (s *SnapshotsService) CreateOnce(ctx context.Context, instanceID string, req *SnapshotCreateRequest, opts ...OnceOption) (*Snapshot, error) {
	if err := s.c.validate(req); err != nil {
		return nil, err
	}
	if err := checkPathID("instance_id", instanceID); err != nil {
		return nil, err
	}
	return createOnce(ctx, s.c, once[Snapshot]{
		kind: "snapshot",
		name: req.Name,
		list: func(ctx context.Context, o *ListOptions) (*Page[Snapshot], error) {
			return s.ListByInstance(ctx, instanceID, o)
		},
		create: func(ctx context.Context) (*Snapshot, error) { return s.Create(ctx, instanceID, req) },
		mismatch: func(v *Snapshot) string {
			var w why
			w.add(slices.Contains(snapshotFailures, v.Status), "is %s", v.Status)
			return w.String() // ListByInstance refuses another instance's snapshot
		},
	}, opts)
}

// CloneOnce copies a snapshot unless a copy of it named req.Name exists in req's region
// (POST /compute/v1/snapshots/{snapshot_id}/clone, sent once unless [RetryNotCreated]), as
// [InstancesService.CreateOnce] does. It adopts only a copy of the source (source_snapshot_id is
// id), never the source itself, nor a snapshot taken of an instance or imported, nor one whose
// source the service does not say; and not one being deleted or in error.
func (s *SnapshotsService) CloneOnce(ctx context.Context, id string, req *SnapshotCloneRequest, opts ...OnceOption) (*Snapshot, error) {
	if err := s.c.validate(req); err != nil {
		return nil, err
	}
	if err := checkPathID("snapshot_id", id); err != nil {
		return nil, err
	}
	return createOnce(ctx, s.c, once[Snapshot]{
		kind:   "snapshot",
		name:   req.Name,
		list:   s.List,
		finder: s.finds,
		create: func(ctx context.Context) (*Snapshot, error) { return s.Clone(ctx, id, req) },
		mismatch: func(v *Snapshot) string {
			var w why
			w.add(slices.Contains(snapshotFailures, v.Status), "is %s", v.Status)
			w.add(v.ID == id, "is the snapshot to copy")
			w.add(v.Region != req.Region, "is in region %s, not %s", v.Region, req.Region)
			w.add(v.ID != id && v.SourceSnapshotID != id, "is not a copy of %s", id)
			return w.String()
		},
	}, opts)
}

// ImportOnce imports a disk image unless an imported snapshot named req.Name exists in req's region
// (POST /compute/v1/snapshots, sent once unless [RetryNotCreated]), as [InstancesService.CreateOnce]
// does. It adopts only an imported snapshot (one with no source instance or snapshot) of req's size,
// not being deleted or in error; the service does not show the URL it was imported from.
func (s *SnapshotsService) ImportOnce(ctx context.Context, req *SnapshotImportRequest, opts ...OnceOption) (*Snapshot, error) {
	if err := s.c.validate(req); err != nil {
		return nil, err
	}
	return createOnce(ctx, s.c, once[Snapshot]{
		kind:   "snapshot",
		name:   req.Name,
		list:   s.List,
		finder: s.finds,
		create: func(ctx context.Context) (*Snapshot, error) { return s.Import(ctx, req) },
		mismatch: func(v *Snapshot) string {
			var w why
			w.add(slices.Contains(snapshotFailures, v.Status), "is %s", v.Status)
			w.add(v.Region != req.Region, "is in region %s, not %s", v.Region, req.Region)
			w.add(v.Size != int64(req.Size), "holds %d GiB, not %d", v.Size, req.Size)
			w.add(v.SourceInstanceID != "" || v.SourceSnapshotID != "", "was not imported")
			return w.String()
		},
	}, opts)
}

// FindByName returns every snapshot named exactly name, reading GET /compute/v1/snapshots to its end.
// An empty name is refused with a [*ValidationError] before any request.
func (s *SnapshotsService) FindByName(ctx context.Context, name string) ([]Snapshot, error) {
	return findByName(ctx, s.c, "snapshot", s.List, name)
}

// WaitForDeletion polls GET /compute/v1/snapshots/{snapshot_id} after a Delete until the snapshot
// is gone, as [InstancesService.WaitForDeletion] does.
func (s *SnapshotsService) WaitForDeletion(ctx context.Context, id string, opts ...WaitOption) error {
	return s.waiter(id).untilGone(ctx, opts)
}

// DeleteAndWait deletes a snapshot (DELETE /compute/v1/snapshots/{snapshot_id}) and waits until it
// is gone, as [InstancesService.DeleteAndWait] does, retrying while an instance is built from it.
func (s *SnapshotsService) DeleteAndWait(ctx context.Context, id string, opts ...DeleteOption) error {
	return deleteAndWait(ctx, s.waiter(id), nil, opts)
}

// waiter is what a wait on the snapshot id reads.
func (s *SnapshotsService) waiter(id string) waiter[Snapshot, SnapshotStatus] {
	return waiter[Snapshot, SnapshotStatus]{c: s.c, shared: s.polls, resource: "snapshot", id: id, idField: "snapshot_id", del: opDeleteSnapshot,
		failed: failedUnless(snapshotFailures...),
		get:    func(ctx context.Context) (*Snapshot, error) { return s.Get(ctx, id) },
		status: func(v *Snapshot) SnapshotStatus { return v.Status },
	}
}

// snapshotFailures are the failure statuses: a wait ends on one unless it is the target, and
// CreateOnce does not adopt a snapshot in one.
var snapshotFailures = []SnapshotStatus{SnapshotStatusError, SnapshotStatusPendingDelete, SnapshotStatusDeleting}
