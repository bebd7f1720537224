package fake

import (
	"cmp"
	"net/url"
	"slices"
)

// snapshotTake is the body of POST /instances/{id}/snapshots.
type snapshotTake struct {
	Name             string `json:"name" fake:"required"`
	ReplicatedRegion string `json:"replicated_region"`
}

// takeSnapshot snapshots an active instance (02037 otherwise). A snapshot is complete at once; it
// outlives its instance and can be used as a create's image in its region and its replicated one.
func takeSnapshot(s *state, c call, in *instance, r *snapshotTake) (*snapshot, *Error) {
	if err := s.region("replicated_region", r.ReplicatedRegion); err != nil {
		return nil, err
	}
	switch {
	case in.Status != instanceActive:
		return nil, badRequest(codeSnapshotRequiresActive, "only active instances can be snapshotted; %q is %s", in.ID, in.Status)
	case s.limits.MaxSnapshotsPerInstance > 0 && len(s.refs[ref("instance", in.ID)]) >= s.limits.MaxSnapshotsPerInstance:
		return nil, badRequest(codeSnapshotQuotaReached, "max instance snapshots quota reached (%d)", s.limits.MaxSnapshotsPerInstance)
	}
	sn := &snapshot{Name: r.Name, Size: in.DiskSize, Region: in.Region, Status: snapshotCreated,
		OSType: in.OSType, SourceInstanceID: in.ID, ResourceID: in.ID, CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now),
		baseImage: in.baseImage, regions: []string{in.Region}}
	if i := slices.IndexFunc(s.catalog.Images, func(im Image) bool { return im.ID == in.baseImage }); i >= 0 {
		sn.family = s.catalog.Images[i].Family
	}
	if r.ReplicatedRegion != "" && r.ReplicatedRegion != in.Region {
		sn.regions = append(sn.regions, r.ReplicatedRegion)
	}
	return s.addSnapshot(sn, c.now)
}

func listInstanceSnapshots(s *state, c call, in *instance, _ *none) (page, *Error) {
	taken := referrers(&s.snapshots, ref("instance", in.ID))
	return pageOf(c, len(taken), func(i int) any { return taken[i] })
}

// snapshotImport is the body of POST /snapshots: a snapshot made from a disk image at an http or
// https URL; os_type linux (the default) or windows.
type snapshotImport struct {
	Name   string `json:"name" fake:"required"`
	Region string `json:"region" fake:"required"`
	Size   int    `json:"size" fake:"required"`
	URL    string `json:"url" fake:"required"`
	OSType string `json:"os_type"`
}

func (r *snapshotImport) check() *Error {
	if r.Size < 1 {
		return badRequest(codeBadRequest, "size must be at least 1 GiB, got %d", r.Size)
	}
	if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return badRequest(codeBadRequest, "url must be an http or https URL, got %q", r.URL)
	}
	if r.OSType = cmp.Or(r.OSType, "linux"); r.OSType != "linux" && r.OSType != "windows" {
		return badRequest(codeBadRequest, "os_type must be linux or windows, got %q", r.OSType)
	}
	return nil
}

// importSnapshot makes a snapshot that is creating and becomes created after
// Durations.SnapshotCreate.
func importSnapshot(s *state, c call, r *snapshotImport) (*snapshot, *Error) {
	if err := s.region("region", r.Region); err != nil {
		return nil, err
	}
	return s.addSnapshot(&snapshot{Name: r.Name, Size: r.Size, Region: r.Region, OSType: r.OSType,
		CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now), regions: []string{r.Region}}, c.now)
}

// snapshotClone is the body of POST /snapshots/{id}/clone.
type snapshotClone struct {
	Name   string `json:"name" fake:"required"`
	Region string `json:"region" fake:"required"`
}

// cloneSnapshot copies a created snapshot (02009 otherwise) into a region; the copy is creating,
// then created, and carries source_snapshot_id.
func cloneSnapshot(s *state, c call, src *snapshot, r *snapshotClone) (*snapshot, *Error) {
	if err := s.region("region", r.Region); err != nil {
		return nil, err
	}
	if src.Status != snapshotCreated {
		return nil, badRequest(codeNotAllowed, "snapshot %q is %s; only a created snapshot can be cloned", src.ID, src.Status)
	}
	return s.addSnapshot(&snapshot{Name: r.Name, Size: src.Size, Region: r.Region, OSType: src.OSType,
		SourceSnapshotID: src.ID, CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now), baseImage: src.baseImage,
		family: src.family, regions: []string{r.Region}}, c.now)
}

// rename is the body of an update that can only rename (an SSH key, a snapshot). An empty body
// changes nothing (the service's description does not say whether it is refused).
type rename struct {
	Name *string `json:"name" fake:"nonblank"`
}

func updateSnapshot(s *state, c call, sn *snapshot, r *rename) (*snapshot, *Error) {
	if r.Name != nil { // the instances built from it show the new name
		sn.Name, sn.UpdatedAt = *r.Name, stamp(c.now)
		s.renamed("image", sn.ID, sn.Name)
	}
	return sn, nil
}

// listImages lists the catalogue's images and then the account's snapshots, filtered by type.
func listImages(s *state, c call, _ *none) (page, *Error) {
	typ := c.query.Get("type")
	if typ != "" && !slices.Contains(ImageTypes, typ) {
		return page{}, badRequest(codeBadRequest, "type must be base-os, cloud-image, preconfigured or snapshot, got %q", typ)
	}
	var images []imageBody
	for _, im := range s.catalog.Images {
		if typ == "" || im.Type == typ {
			im.Versions, im.Regions = nonNil(im.Versions), nonNil(im.Regions)
			images = append(images, imageBody{Image: im, CreatedAt: stamp(im.CreatedAt), UpdatedAt: stamp(im.UpdatedAt)})
		}
	}
	taken := 0
	if typ == "" || typ == "snapshot" {
		taken = s.snapshots.len()
	}
	return pageOf(c, len(images)+taken, func(i int) any {
		if i < len(images) {
			return images[i]
		}
		return s.snapshots.at(i - len(images)).image()
	})
}
