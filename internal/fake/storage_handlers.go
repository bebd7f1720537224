package fake

import (
	"cmp"
	"slices"
)

// storageCreate is the body of a volume or filesystem create: name, region and size required, size
// at least 1 GiB.
type storageCreate struct {
	Name        string `json:"name" fake:"required"`
	Description string `json:"description"`
	Region      string `json:"region" fake:"required"`
	Size        int    `json:"size" fake:"required"`
	Type        string `json:"type"`
}

func (r *storageCreate) check() *Error {
	if r.Size < 1 {
		return badRequest(codeBadRequest, "size must be at least 1 GiB, got %d", r.Size)
	}
	return nil
}

// storageUpdate is the body of a volume or filesystem update; only the fields given change. The
// service's description does not say whether an empty body is refused: the fake accepts it and
// changes nothing.
type storageUpdate struct {
	Name        *string `json:"name" fake:"nonblank"`
	Description *string `json:"description"`
	Size        *int    `json:"size"`
}

// apply changes the fields given; updated_at moves only when there is one.
func (r *storageUpdate) apply(name, description *string, size *int, updated *stamp, c call) {
	setGiven(name, r.Name)
	setGiven(description, r.Description)
	setGiven(size, r.Size)
	if r.Name != nil || r.Description != nil || r.Size != nil {
		*updated = stamp(c.now)
	}
}

// createVolume makes a volume that is creating and becomes created after Durations.VolumeCreate. A
// type other than hdd or ssd is 02054 (volume type unavailable).
func createVolume(s *state, c call, r *storageCreate) (any, *Error) {
	if err := s.region("region", r.Region); err != nil {
		return nil, err
	}
	typ := cmp.Or(r.Type, "ssd")
	if !slices.Contains(volumeTypes, typ) {
		return nil, badRequest(codeVolumeTypeUnavailable, "volume type %q is unavailable; use hdd or ssd", typ)
	}
	if err := s.quota(&s.volumes); err != nil {
		return nil, err
	}
	v := &volume{ID: s.newID("vol"), Name: r.Name, Description: r.Description, Size: r.Size, Type: typ, Region: r.Region,
		Status: storageCreating, CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now)}
	s.volumes.add(v.ID, v)
	s.volumes.begin(v, c.now, s.durations.VolumeCreate, storageCreated)
	return v.view(s), nil
}

// updateVolume renames, describes or grows a volume: a smaller size is 02004 (a volume only grows).
// The instance that holds it shows its new name.
func updateVolume(s *state, c call, v *volume, r *storageUpdate) (any, *Error) {
	if r.Size != nil && *r.Size < v.Size {
		return nil, badRequest(codeBadRequest, "size can only grow: %d GiB is less than the current %d GiB", *r.Size, v.Size)
	}
	r.apply(&v.Name, &v.Description, &v.Size, &v.UpdatedAt, c)
	s.renamed("volume", v.ID, v.Name)
	return v.view(s), nil
}

// createFilesystem makes a filesystem that is creating and becomes created after
// Durations.FilesystemCreate. The only type is vast, the default.
func createFilesystem(s *state, c call, r *storageCreate) (*filesystem, *Error) {
	if err := s.region("region", r.Region); err != nil {
		return nil, err
	}
	typ := cmp.Or(r.Type, "vast")
	if typ != "vast" {
		return nil, badRequest(codeBadRequest, "type must be vast, got %q", typ)
	}
	if err := s.quota(&s.filesystems); err != nil {
		return nil, err
	}
	fs := &filesystem{ID: s.newID("fs"), Name: r.Name, Description: r.Description, Size: r.Size, Type: typ, Region: r.Region,
		Status: storageCreating, CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now)}
	s.filesystems.add(fs.ID, fs)
	s.filesystems.begin(fs, c.now, s.durations.FilesystemCreate, storageCreated)
	return fs, nil
}

// updateFilesystem renames, describes or grows a filesystem: a smaller size is 02068 (filesystem
// resize invalid).
func updateFilesystem(_ *state, c call, fs *filesystem, r *storageUpdate) (*filesystem, *Error) {
	if r.Size != nil && *r.Size < fs.Size {
		return nil, badRequest(codeFilesystemResizeInvalid, "filesystem resize invalid: %d GiB is less than the current %d GiB", *r.Size, fs.Size)
	}
	r.apply(&fs.Name, &fs.Description, &fs.Size, &fs.UpdatedAt, c)
	return fs, nil
}
