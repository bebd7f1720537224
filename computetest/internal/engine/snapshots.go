package engine

import (
	"net/http"
	"slices"
	"strings"
)

// snapshotBody is a snapshot as the contract shows it (size in GiB, as the extended document says).
// A snapshot of an instance carries source_instance_id and the seed's resource_id, both the
// instance's ID; a clone carries source_snapshot_id; an import carries none of the three.
type snapshotBody struct {
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
}

type snapshot struct {
	snapshotBody
	next *pending
	// regions are where the snapshot can be used as an image: its own and the replicated one.
	regions   []string
	baseImage string
	family    string
}

// imageBody is an image as the contract shows it in GET /images.
type imageBody struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Family    string   `json:"family"`
	Slug      string   `json:"slug"`
	OSType    string   `json:"os_type"`
	Versions  []string `json:"versions"`
	Regions   []string `json:"regions"`
	CreatedAt stamp    `json:"created_at"`
	UpdatedAt stamp    `json:"updated_at"`
}

// image is the snapshot as GET /images?type=snapshot shows it.
func (sn *snapshot) image() imageBody {
	return imageBody{ID: sn.ID, Name: sn.Name, Type: "snapshot", Family: sn.family, OSType: sn.OSType,
		Versions: []string{}, Regions: sn.regions, CreatedAt: sn.CreatedAt, UpdatedAt: sn.UpdatedAt}
}

// createSnapshot snapshots an active instance (02037 otherwise). The contract shows only the status
// "created", so a snapshot is complete at once; it outlives its instance and can be used as a
// create's image in its region and its replicated region.
func (e *Engine) createSnapshot(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	o, err := parseBody(c.body, "name", "replicated_region")
	if err != nil {
		return 0, nil, err
	}
	var name, replicated string
	if err := o.str("name", &name); err != nil {
		return 0, nil, err
	}
	if err := o.str("replicated_region", &replicated); err != nil {
		return 0, nil, err
	}
	if strings.TrimSpace(name) == "" {
		return 0, nil, missing("name")
	}
	if replicated != "" && !e.knownRegion(replicated) {
		return 0, nil, badRequest(codeBadRequest, "unknown replicated_region %q", replicated)
	}
	if in.Status != instanceActive {
		return 0, nil, badRequest(codeSnapshotRequiresActive, "only active instances can be snapshotted; %q is %s", in.ID, in.Status)
	}
	if m := e.cfg.Limits.MaxSnapshotsPerInstance; m > 0 && len(e.snapshotsOf(in.ID)) >= m {
		return 0, nil, badRequest(codeSnapshotQuotaReached, "max instance snapshots quota reached (%d)", m)
	}
	if err := e.quota(quotaSnapshots); err != nil {
		return 0, nil, err
	}
	family := e.imageFamily(in.baseImage)
	sn := &snapshot{baseImage: in.baseImage, family: family, regions: []string{in.Region}, snapshotBody: snapshotBody{
		ID: e.newID("snap"), Name: name, Size: in.DiskSize, Region: in.Region,
		Status: "created", OSType: in.OSType, SourceInstanceID: in.ID, ResourceID: in.ID,
		CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now),
	}}
	if replicated != "" && replicated != in.Region {
		sn.regions = append(sn.regions, replicated)
	}
	e.snapshots.add(sn.ID, sn)
	return http.StatusCreated, map[string]any{"snapshot": &sn.snapshotBody}, nil
}

func (e *Engine) snapshotsOf(instanceID string) []*snapshot {
	var out []*snapshot
	for _, sn := range e.snapshots.all() {
		if sn.SourceInstanceID == instanceID {
			out = append(out, sn)
		}
	}
	return out
}

func (e *Engine) imageFamily(id string) string {
	for _, im := range e.catalog.Images {
		if im.ID == id {
			return im.Family
		}
	}
	return ""
}

func (e *Engine) listSnapshots(c *call) (int, any, *apiError) {
	in, err := e.instance(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return pageOf(c, "snapshots", e.snapshotsOf(in.ID), func(sn *snapshot) *snapshotBody { return &sn.snapshotBody })
}

// listImages lists the catalogue's images and then the account's snapshots, filtered by type.
func (e *Engine) listImages(c *call) (int, any, *apiError) {
	typ := c.query.Get("type")
	if typ != "" && !slices.Contains(ImageTypes, typ) {
		return 0, nil, badRequest(codeBadRequest, "type must be base-os, cloud-image, preconfigured or snapshot, got %q", typ)
	}
	var out []imageBody
	for _, im := range e.catalog.Images {
		if typ == "" || im.Type == typ {
			out = append(out, imageBody{ID: im.ID, Name: im.Name, Type: im.Type, Family: im.Family, Slug: im.Slug,
				OSType: im.OSType, Versions: nonNil(im.Versions), Regions: nonNil(im.Regions),
				CreatedAt: stamp(im.CreatedAt), UpdatedAt: stamp(im.UpdatedAt)})
		}
	}
	if typ == "" || typ == "snapshot" {
		for _, sn := range e.snapshots.all() {
			out = append(out, sn.image())
		}
	}
	return pageOf(c, "images", out, func(w imageBody) imageBody { return w })
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
