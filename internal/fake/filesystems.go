package fake

import (
	"fmt"
	"time"
)

var filesystemSpec = spec{collection: "filesystems", quota: "filesystems", code: codeMaxQuotaReached,
	// The API has no "filesystem not found" code: the fake sends 02004 (bad request) with the 404, a
	// documented code that is not the invalid route's 02001.
	notFound: func(id string) *Error { return notFound(codeBadRequest, "filesystem %q not found", id) },
	statuses: []string{storageCreating, storageCreated, "deleting", "error"}}

// filesystem is a filesystem as the API shows it, with the transition it has in progress. The mount
// fields are null until the filesystem is created.
type filesystem struct {
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
	lifecycle
}

func (fs *filesystem) view(*state) any { return fs }

// arrive completes a transition: a filesystem created for the first time gets its mount path and
// endpoints.
func (fs *filesystem) arrive(s *state, status string, at time.Time) {
	fs.Status, fs.UpdatedAt = status, stamp(at)
	if status == storageCreated && fs.MountBasePath == "" {
		fs.MountBasePath = nullString("/mnt/" + fs.ID)
		n := s.seq["fs-range"] + 1
		s.seq["fs-range"] = n
		fs.MountEndpointRange = []string{fmt.Sprintf("10.200.%d.1", n%250), fmt.Sprintf("10.200.%d.16", n%250)}
	}
}
