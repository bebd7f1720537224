package engine

import (
	"fmt"
	"net/http"
	"time"
)

// filesystemBody is a filesystem as the extended document shows it. The mount fields are null until
// the filesystem is created.
type filesystemBody struct {
	ID                 string     `json:"id"`
	Name               string     `json:"name"`
	Description        string     `json:"description"`
	Size               int        `json:"size"`
	Type               string     `json:"type"`
	Region             string     `json:"region"`
	Status             string     `json:"status"`
	MountBasePath      nullString `json:"mount_base_path"`
	MountEndpointRange []string   `json:"mount_endpoint_range"`
	CreatedAt          stamp      `json:"created_at"`
	UpdatedAt          stamp      `json:"updated_at"`
}

type filesystem struct {
	filesystemBody
	next *pending
}

// settle completes the filesystem's create: it gets its mount path and endpoints.
func (e *Engine) settleFilesystem(fs *filesystem, now time.Time) {
	if !fs.next.due(now) {
		return
	}
	fs.Status, fs.UpdatedAt = fs.next.to, stamp(fs.next.at)
	fs.next = nil
	fs.MountBasePath = nullString("/mnt/" + fs.ID)
	n := e.seq["fs-range"] + 1
	e.seq["fs-range"] = n
	fs.MountEndpointRange = []string{fmt.Sprintf("10.200.%d.1", n%250), fmt.Sprintf("10.200.%d.16", n%250)}
}

// filesystemNotFound is the 404 of an unknown filesystem. The contract has no "filesystem not found"
// code; the fake sends 02004 (bad request) with the 404, a documented code that is not the
// invalid-route 02001.
func filesystemNotFound(id string) *apiError {
	return notFound(codeBadRequest, "filesystem %q not found", id)
}

func (e *Engine) filesystem(id string) (*filesystem, *apiError) {
	fs, ok := e.filesystems.get(id)
	if !ok {
		return nil, filesystemNotFound(id)
	}
	return fs, nil
}

// createFilesystem makes a filesystem that is creating and becomes created after
// Durations.FilesystemCreate. The only type is vast, the default.
func (e *Engine) createFilesystem(c *call) (int, any, *apiError) {
	req, err := e.readStorageCreate(c.body)
	if err != nil {
		return 0, nil, err
	}
	if req.typ == "" {
		req.typ = "vast"
	}
	if req.typ != "vast" {
		return 0, nil, badRequest(codeBadRequest, "type must be vast, got %q", req.typ)
	}
	if err := e.quota(quotaFilesystems); err != nil {
		return 0, nil, err
	}
	fs := &filesystem{filesystemBody: filesystemBody{ID: e.newID("fs"), Name: req.name, Description: req.description,
		Size: req.size, Type: req.typ, Region: req.region, Status: storageCreating,
		CreatedAt: stamp(c.now), UpdatedAt: stamp(c.now)}}
	fs.next = &pending{to: storageCreated, at: c.now.Add(e.cfg.Durations.FilesystemCreate)}
	e.filesystems.add(fs.ID, fs)
	return http.StatusCreated, map[string]any{"filesystem": &fs.filesystemBody}, nil
}

func (e *Engine) listFilesystems(c *call) (int, any, *apiError) {
	return pageOf(c, "filesystems", e.filesystems.all(), func(fs *filesystem) *filesystemBody { return &fs.filesystemBody })
}

func (e *Engine) getFilesystem(c *call) (int, any, *apiError) {
	fs, err := e.filesystem(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"filesystem": &fs.filesystemBody}, nil
}

// updateFilesystem renames, describes or grows a filesystem: a smaller size is 02068 (filesystem
// resize invalid).
func (e *Engine) updateFilesystem(c *call) (int, any, *apiError) {
	fs, err := e.filesystem(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	req, err := readStorageUpdate(c.body)
	if err != nil {
		return 0, nil, err
	}
	if req.o.has("size") && req.size < fs.Size {
		return 0, nil, badRequest(codeFilesystemResizeInvalid, "filesystem resize invalid: %d GiB is less than the current %d GiB", req.size, fs.Size)
	}
	req.apply(&fs.Name, &fs.Description, &fs.Size, &fs.UpdatedAt, c.now)
	return http.StatusOK, map[string]any{"filesystem": &fs.filesystemBody}, nil
}

// deleteFilesystem removes a filesystem and responds 204 with no body (the number is not stated;
// the fake uses the seed's for body-less successes).
func (e *Engine) deleteFilesystem(c *call) (int, any, *apiError) {
	fs, err := e.filesystem(c.ids[0])
	if err != nil {
		return 0, nil, err
	}
	e.filesystems.remove(fs.ID)
	return http.StatusNoContent, nil, nil
}
