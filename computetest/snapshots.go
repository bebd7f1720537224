package computetest

import (
	"net/http"
	"slices"
	"strings"

	compute "github.com/compute-sdk/compute-go"
)

type snapshot struct {
	v compute.Snapshot
	// regions are where the snapshot can be used as an image: its own and the replicated one.
	regions   []string
	baseImage string
	family    string
}

func (sn *snapshot) wire() wireSnapshot {
	return wireSnapshot{Snapshot: sn.v, CreatedAt: msTime(sn.v.CreatedAt), UpdatedAt: msTime(sn.v.UpdatedAt)}
}

// image is the snapshot as GET /images?type=snapshot shows it.
func (sn *snapshot) image() wireImage {
	return wireImage{
		Image: compute.Image{ID: sn.v.ID, Name: sn.v.Name, Type: compute.ImageTypeSnapshot, Family: sn.family,
			OSType: sn.v.OSType, Versions: []string{}, Regions: slices.Clone(sn.regions)},
		CreatedAt: msTime(sn.v.CreatedAt), UpdatedAt: msTime(sn.v.UpdatedAt),
	}
}

// createSnapshot snapshots an active instance (02037 otherwise). The contract shows only the status
// "created", so a snapshot is complete at once; it outlives its instance and can be used as a
// create's image in its region and its replicated region.
func (s *Server) createSnapshot(c *call) (int, any, *apiError) {
	in, err := s.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	var req compute.SnapshotCreateRequest
	has, err := decode(c.r, &req)
	if err != nil {
		return 0, nil, err
	}
	if !has["name"] || strings.TrimSpace(req.Name) == "" {
		return 0, nil, missing("name")
	}
	if req.ReplicatedRegion != "" && !s.knownRegion(req.ReplicatedRegion) {
		return 0, nil, badRequest(compute.CodeBadRequest, "unknown replicated_region %q", req.ReplicatedRegion)
	}
	if in.v.Status != compute.InstanceStatusActive {
		return 0, nil, badRequest(compute.CodeSnapshotRequiresActive, "only active instances can be snapshotted; %q is %s", in.v.ID, in.v.Status)
	}
	if m := s.cfg.limits.MaxSnapshotsPerInstance; m > 0 && len(s.snapshotsOf(in.v.ID)) >= m {
		return 0, nil, badRequest(compute.CodeSnapshotQuotaReached, "max instance snapshots quota reached (%d)", m)
	}
	family, osType := s.imageFamily(in.baseImage)
	sn := &snapshot{baseImage: in.baseImage, family: family, regions: []string{in.v.Region}, v: compute.Snapshot{
		ID: s.newID("snap"), Name: req.Name, Size: int64(in.v.DiskSize), Region: in.v.Region,
		Status: compute.SnapshotStatusCreated, OSType: osType, SourceInstanceID: in.v.ID, ResourceID: in.v.ID,
		CreatedAt: c.now, UpdatedAt: c.now,
	}}
	if req.ReplicatedRegion != "" && req.ReplicatedRegion != in.v.Region {
		sn.regions = append(sn.regions, req.ReplicatedRegion)
	}
	s.snapshots.add(sn.v.ID, sn)
	return http.StatusCreated, map[string]any{"snapshot": sn.wire()}, nil
}

func (s *Server) snapshotsOf(instanceID string) []*snapshot {
	var out []*snapshot
	for _, sn := range s.snapshots.all() {
		if sn.v.SourceInstanceID == instanceID {
			out = append(out, sn)
		}
	}
	return out
}

func (s *Server) imageFamily(id string) (family, osType string) {
	for _, im := range s.catalog.Images {
		if im.ID == id {
			return im.Family, im.OSType
		}
	}
	return "", ""
}

func (s *Server) listSnapshots(c *call) (int, any, *apiError) {
	in, err := s.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return pageOf(c, "snapshots", s.snapshotsOf(in.v.ID), (*snapshot).wire)
}

// listImages lists the catalogue's images and then the account's snapshots, filtered by type.
func (s *Server) listImages(c *call) (int, any, *apiError) {
	typ := compute.ImageType(c.query.Get("type"))
	switch typ {
	case "", compute.ImageTypeBaseOS, compute.ImageTypeCloudImage, compute.ImageTypePreconfigured, compute.ImageTypeSnapshot:
	default:
		return 0, nil, badRequest(compute.CodeBadRequest, "type must be base-os, cloud-image, preconfigured or snapshot, got %q", typ)
	}
	var out []wireImage
	for _, im := range s.catalog.Images {
		if typ == "" || im.Type == typ {
			im.Versions, im.Regions = slices.Clone(im.Versions), slices.Clone(im.Regions)
			out = append(out, wireImage{Image: im, CreatedAt: msTime(im.CreatedAt), UpdatedAt: msTime(im.UpdatedAt)})
		}
	}
	if typ == "" || typ == compute.ImageTypeSnapshot {
		for _, sn := range s.snapshots.all() {
			out = append(out, sn.image())
		}
	}
	return pageOf(c, "images", out, func(w wireImage) wireImage { return w })
}
