package main

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
)

func filesystemCreated(t *testing.T, c *compute.Client) { mkFilesystem(t, c) }

func TestFilesystemCommands(t *testing.T) {
	t.Parallel()
	runCases(t, filesystemCases(t))
}

func filesystemCases(t *testing.T) []cmdCase {
	const (
		list = "GET /compute/v1/filesystems?page=1&per_page=100"
		get  = "GET /compute/v1/filesystems/fs-000001"
	)
	return []cmdCase{
		{name: "filesystem_list", setup: filesystemCreated, args: []string{"filesystem", "list"},
			reqs: []string{list}, out: new([]compute.Filesystem)},
		{name: "filesystem_get", setup: filesystemCreated, args: []string{"filesystem", "get", "fs-000001"},
			reqs: []string{get}, out: new(compute.Filesystem)},
		{name: "filesystem_create", args: []string{"filesystem", "create", "--name", "shared", "--region", region, "--size", "100",
			"--type", "vast", "--description", "team files"},
			reqs: []string{list, "POST /compute/v1/filesystems"},
			body: `{"name":"shared","description":"team files","region":"NORD-NO-KRS-1","size":100,"type":"vast"}`,
			out:  new(compute.Filesystem)},
		{name: "filesystem_create_wait", args: []string{"filesystem", "create", "--name", "shared", "--region", region, "--size", "100", "--wait"},
			reqs: []string{list, "POST /compute/v1/filesystems", get},
			body: `{"name":"shared","region":"NORD-NO-KRS-1","size":100}`, out: new(compute.Filesystem)},
		{name: "filesystem_update", setup: filesystemCreated, args: []string{"filesystem", "update", "fs-000001", "--size", "200", "--description", "more"},
			reqs: []string{"PATCH /compute/v1/filesystems/fs-000001"}, body: `{"description":"more","size":200}`,
			out: new(compute.Filesystem)},
		{name: "filesystem_delete", setup: filesystemCreated, args: []string{"filesystem", "delete", "fs-000001"},
			reqs: []string{"DELETE /compute/v1/filesystems/fs-000001"}},
		{name: "filesystem_delete_wait", setup: filesystemCreated, args: []string{"filesystem", "delete", "fs-000001", "--wait"},
			reqs: []string{"GET /compute/v1/filesystems/fs-000001", "DELETE /compute/v1/filesystems/fs-000001", get}},
		{name: "filesystem_wait", setup: filesystemCreated, args: []string{"filesystem", "wait", "fs-000001"},
			reqs: []string{get}, out: new(compute.Filesystem)},
	}
}
