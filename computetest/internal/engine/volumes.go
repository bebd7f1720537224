package engine

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// Volume and filesystem statuses, from the extended document. The seed's attachable status
// "available" is not in the service's enum (difference D11): the fake shows "created" and treats a
// created volume that no instance holds as available.
const (
	storageCreating = "creating"
	storageCreated  = "created"
)

// volumeTypes are the extended document's volume types; a create without type gets ssd.
var volumeTypes = []string{"hdd", "ssd"}

// volumeBody is a volume as the extended document shows it.
type volumeBody struct {
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
}

type volume struct {
	volumeBody
	next *pending
	// locked is a catalogue volume that can be neither attached nor detached (02046).
	locked bool
}

// seedVolume is a catalogue volume as the API shows it: created, 10 GiB of ssd.
func seedVolume(v Volume, at stamp) *volume {
	return &volume{locked: v.Status == VolumeLocked, volumeBody: volumeBody{ID: v.ID, Name: v.Name,
		Size: 10, Type: "ssd", Region: v.Region, Status: storageCreated, CreatedAt: at, UpdatedAt: at}}
}

// volumeView is the volume with the instances that hold it, as a response shows it. The caller holds e.mu.
func (e *Engine) volumeView(v *volume) *volumeBody {
	b := v.volumeBody
	b.Instances = []Ref{}
	for _, in := range e.instances.all() {
		if hasRef(in.Volumes, v.ID) {
			b.Instances = append(b.Instances, Ref{ID: in.ID, Name: in.Name})
		}
	}
	return &b
}

// holder is the instance a volume is attached to, "" when none.
func (e *Engine) holder(volumeID string) string {
	for _, in := range e.instances.all() {
		if hasRef(in.Volumes, volumeID) {
			return in.ID
		}
	}
	return ""
}

func (e *Engine) volume(id string) (*volume, *apiError) {
	v, ok := e.volumes.get(id)
	if !ok {
		return nil, notFound(codeVolumeNotFound, "volume %q not found", id)
	}
	return v, nil
}

// storageCreate is the body of a volume or filesystem create: name, region and size required, size
// at least 1 GiB.
type storageCreate struct {
	name, description, region, typ string
	size                           int
}

func (e *Engine) readStorageCreate(raw []byte) (storageCreate, *apiError) {
	var req storageCreate
	o, err := parseBody(raw, "name", "description", "region", "size", "type")
	if err != nil {
		return req, err
	}
	if err := firstError(o.str("name", &req.name), o.str("description", &req.description),
		o.str("region", &req.region), o.str("type", &req.typ), o.integer("size", &req.size)); err != nil {
		return req, err
	}
	switch {
	case strings.TrimSpace(req.name) == "":
		return req, missing("name")
	case req.region == "":
		return req, missing("region")
	case !o.has("size"):
		return req, missing("size")
	case req.size < 1:
		return req, badRequest(codeBadRequest, "size must be at least 1 GiB, got %d", req.size)
	case !e.knownRegion(req.region):
		return req, badRequest(codeBadRequest, "unknown region %q", req.region)
	}
	return req, nil
}

// storageUpdate is the body of a volume or filesystem update; only the keys present change. The
// extended document does not say whether an empty body is refused: the fake accepts it and changes
// nothing.
type storageUpdate struct {
	o                 object
	name, description string
	size              int
}

func readStorageUpdate(raw []byte) (storageUpdate, *apiError) {
	var req storageUpdate
	o, err := parseBody(raw, "name", "description", "size")
	if err != nil {
		return req, err
	}
	req.o = o
	if err := firstError(o.str("name", &req.name), o.str("description", &req.description), o.integer("size", &req.size)); err != nil {
		return req, err
	}
	if o.has("name") && strings.TrimSpace(req.name) == "" {
		return req, badRequest(codeBadRequest, "name must not be empty")
	}
	return req, nil
}

// apply changes the fields the update carries, once its checks have passed; updated_at moves only
// when the body carries a field.
func (u storageUpdate) apply(name, description *string, size *int, updated *stamp, now time.Time) {
	if !u.o.has("name") && !u.o.has("description") && !u.o.has("size") {
		return
	}
	if u.o.has("name") {
		*name = u.name
	}
	if u.o.has("description") {
		*description = u.description
	}
	if u.o.has("size") {
		*size = u.size
	}
	*updated = stamp(now)
}

// createVolume makes a volume that is creating and becomes created after Durations.VolumeCreate. A
// type other than hdd or ssd is 02054 (volume type unavailable).
func (e *Engine) createVolume(c *call) (int, any, *apiError) {
	req, err := e.readStorageCreate(c.body)
	if err != nil {
		return 0, nil, err
	}
	if req.typ == "" {
		req.typ = "ssd"
	}
	if !slices.Contains(volumeTypes, req.typ) {
		return 0, nil, badRequest(codeVolumeTypeUnavailable, "volume type %q is unavailable; use hdd or ssd", req.typ)
	}
	if err := e.quota(quotaVolumes); err != nil {
		return 0, nil, err
	}
	v := &volume{volumeBody: volumeBody{ID: e.newID("vol"), Name: req.name, Description: req.description,
		Size: req.size, Type: req.typ, Region: req.region, Status: storageCreating,
		CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now)}}
	v.next = &pending{to: storageCreated, at: c.now.Add(e.cfg.Durations.VolumeCreate)}
	e.volumes.add(v.ID, v)
	return http.StatusCreated, map[string]any{"volume": e.volumeView(v)}, nil
}

func (e *Engine) listVolumes(c *call) (int, any, *apiError) {
	return pageOf(c, "volumes", e.volumes.all(), e.volumeView)
}

func (e *Engine) getVolume(c *call) (int, any, *apiError) {
	v, err := e.volume(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"volume": e.volumeView(v)}, nil
}

// updateVolume renames, describes or grows a volume: a smaller size is 02004 (a volume only grows).
func (e *Engine) updateVolume(c *call) (int, any, *apiError) {
	v, err := e.volume(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	req, err := readStorageUpdate(c.body)
	if err != nil {
		return 0, nil, err
	}
	if req.o.has("size") && req.size < v.Size {
		return 0, nil, badRequest(codeBadRequest, "size can only grow: %d GiB is less than the current %d GiB", req.size, v.Size)
	}
	req.apply(&v.Name, &v.Description, &v.Size, &v.UpdatedAt, c.now)
	for _, in := range e.instances.all() {
		renameRef(in.Volumes, v.ID, v.Name)
	}
	return http.StatusOK, map[string]any{"volume": e.volumeView(v)}, nil
}

// deleteVolume removes a volume no instance holds; an attached one is 02022. An instance's delete
// releases its volumes when it completes.
func (e *Engine) deleteVolume(c *call) (int, any, *apiError) {
	v, err := e.volume(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	if owner := e.holder(v.ID); owner != "" {
		return 0, nil, badRequest(codeAttachedVolumeNotDeletable, "volume %q is attached to instance %q and cannot be deleted", v.ID, owner)
	}
	e.volumes.remove(v.ID)
	return http.StatusNoContent, nil, nil
}
