package engine

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The top-level snapshots collection of the extended document. It is the same store as the
// per-instance routes: a snapshot taken of an instance is listed in both, and stays in the
// collection after its instance is gone.

const (
	snapshotCreating = "creating"
	snapshotCreated  = "created"
)

func (e *Engine) snapshot(id string) (*snapshot, *apiError) {
	sn, ok := e.snapshots.get(id)
	if !ok {
		return nil, notFound(codeSnapshotNotFound, "snapshot %q not found", id)
	}
	return sn, nil
}

// settleSnapshot completes an import or a clone.
func settleSnapshot(sn *snapshot, now time.Time) {
	if sn.next.due(now) {
		sn.Status, sn.UpdatedAt = sn.next.to, stamp(sn.next.at)
		sn.next = nil
	}
}

func (e *Engine) listAllSnapshots(c *call) (int, any, *apiError) {
	return pageOf(c, "snapshots", e.snapshots.all(), func(sn *snapshot) *snapshotBody { return &sn.snapshotBody })
}

func (e *Engine) getSnapshot(c *call) (int, any, *apiError) {
	sn, err := e.snapshot(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"snapshot": &sn.snapshotBody}, nil
}

// importSnapshot makes a snapshot from a disk image at an http or https URL. It is creating and
// becomes created after Durations.SnapshotCreate; os_type defaults to linux.
func (e *Engine) importSnapshot(c *call) (int, any, *apiError) {
	o, err := parseBody(c.body, "name", "region", "size", "url", "os_type")
	if err != nil {
		return 0, nil, err
	}
	var name, region, source, osType string
	var size int
	if err := firstError(o.str("name", &name), o.str("region", &region), o.str("url", &source),
		o.str("os_type", &osType), o.integer("size", &size)); err != nil {
		return 0, nil, err
	}
	switch {
	case strings.TrimSpace(name) == "":
		return 0, nil, missing("name")
	case region == "":
		return 0, nil, missing("region")
	case !o.has("size"):
		return 0, nil, missing("size")
	case source == "":
		return 0, nil, missing("url")
	case size < 1:
		return 0, nil, badRequest(codeBadRequest, "size must be at least 1 GiB, got %d", size)
	case !e.knownRegion(region):
		return 0, nil, badRequest(codeBadRequest, "unknown region %q", region)
	}
	if u, err := url.Parse(source); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, nil, badRequest(codeBadRequest, "url must be an http or https URL, got %q", source)
	}
	switch osType {
	case "":
		osType = "linux"
	case "linux", "windows":
	default:
		return 0, nil, badRequest(codeBadRequest, "os_type must be linux or windows, got %q", osType)
	}
	if err := e.quota(quotaSnapshots); err != nil {
		return 0, nil, err
	}
	sn := e.addSnapshot(c.now, snapshotBody{Name: name, Size: size, Region: region, OSType: osType}, "", "")
	return http.StatusCreated, map[string]any{"snapshot": &sn.snapshotBody}, nil
}

// cloneSnapshot copies a created snapshot into a region; the copy is creating, then created, and
// carries source_snapshot_id. A source that is not created yet is 02009.
func (e *Engine) cloneSnapshot(c *call) (int, any, *apiError) {
	src, err := e.snapshot(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	o, err := parseBody(c.body, "name", "region")
	if err != nil {
		return 0, nil, err
	}
	var name, region string
	if err := firstError(o.str("name", &name), o.str("region", &region)); err != nil {
		return 0, nil, err
	}
	switch {
	case strings.TrimSpace(name) == "":
		return 0, nil, missing("name")
	case region == "":
		return 0, nil, missing("region")
	case !e.knownRegion(region):
		return 0, nil, badRequest(codeBadRequest, "unknown region %q", region)
	case src.Status != snapshotCreated:
		return 0, nil, badRequest(codeNotAllowed, "snapshot %q is %s; only a created snapshot can be cloned", src.ID, src.Status)
	}
	if err := e.quota(quotaSnapshots); err != nil {
		return 0, nil, err
	}
	sn := e.addSnapshot(c.now, snapshotBody{Name: name, Size: src.Size, Region: region, OSType: src.OSType,
		SourceSnapshotID: src.ID}, src.baseImage, src.family)
	return http.StatusCreated, map[string]any{"snapshot": &sn.snapshotBody}, nil
}

// addSnapshot stores an import or a clone, creating until Durations.SnapshotCreate has passed.
func (e *Engine) addSnapshot(now time.Time, b snapshotBody, baseImage, family string) *snapshot {
	b.ID, b.Status, b.CreatedAt, b.UpdatedAt = e.newID("snap"), snapshotCreating, stamp(now), stamp(now)
	sn := &snapshot{snapshotBody: b, baseImage: baseImage, family: family, regions: []string{b.Region},
		next: &pending{to: snapshotCreated, at: now.Add(e.cfg.Durations.SnapshotCreate)}}
	e.snapshots.add(sn.ID, sn)
	return sn
}

// updateSnapshot renames a snapshot; instances built from it show the new name. An empty body
// changes nothing.
func (e *Engine) updateSnapshot(c *call) (int, any, *apiError) {
	sn, err := e.snapshot(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	name, set, err := readRename(c.body)
	if err != nil {
		return 0, nil, err
	}
	if set {
		sn.Name, sn.UpdatedAt = name, stamp(c.now)
		for _, in := range e.instances.all() {
			if in.Image.ID == sn.ID {
				in.Image.Name = name
			}
		}
	}
	return http.StatusOK, map[string]any{"snapshot": &sn.snapshotBody}, nil
}

// deleteSnapshot removes a snapshot that no instance runs from; one in use is 02016.
func (e *Engine) deleteSnapshot(c *call) (int, any, *apiError) {
	sn, err := e.snapshot(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	for _, in := range e.instances.all() {
		if in.Image.ID == sn.ID {
			return 0, nil, badRequest(codeSnapshotInUse, "snapshot %q cannot be deleted while instance %q uses it", sn.ID, in.ID)
		}
	}
	e.snapshots.remove(sn.ID)
	return http.StatusNoContent, nil, nil
}
