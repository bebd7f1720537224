package main

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
)

func volumeCreated(t *testing.T, c *compute.Client) { mkVolume(t, c) }

func TestVolumeCommands(t *testing.T) {
	t.Parallel()
	runCases(t, volumeCases(t))
}

func volumeCases(t *testing.T) []cmdCase {
	const (
		list = "GET /compute/v1/volumes?page=1&per_page=100"
		get  = "GET /compute/v1/volumes/vol-000001"
	)
	return []cmdCase{
		{name: "volume_list", setup: volumeCreated, args: []string{"volume", "list"},
			reqs: []string{list}, out: new([]compute.Volume)},
		{name: "volume_get", setup: volumeCreated, args: []string{"volume", "get", "vol-000001"},
			reqs: []string{get}, out: new(compute.Volume)},
		{name: "volume_create", args: []string{"volume", "create", "--name", "data", "--region", region, "--size", "50",
			"--type", "hdd", "--description", "logs"},
			reqs: []string{list, "POST /compute/v1/volumes"},
			body: `{"name":"data","description":"logs","region":"NORD-NO-KRS-1","size":50,"type":"hdd"}`,
			out:  new(compute.Volume)},
		{name: "volume_create_wait", args: []string{"volume", "create", "--name", "data", "--region", region, "--size", "50", "--wait"},
			reqs: []string{list, "POST /compute/v1/volumes", get},
			body: `{"name":"data","region":"NORD-NO-KRS-1","size":50}`, out: new(compute.Volume)},
		{name: "volume_update", setup: volumeCreated, args: []string{"volume", "update", "vol-000001", "--name", "data-2", "--size", "60"},
			reqs: []string{"PATCH /compute/v1/volumes/vol-000001"}, body: `{"name":"data-2","size":60}`,
			out: new(compute.Volume)},
		{name: "volume_delete", setup: volumeCreated, args: []string{"volume", "delete", "vol-000001"},
			reqs: []string{"DELETE /compute/v1/volumes/vol-000001"}},
		{name: "volume_delete_wait", setup: volumeCreated, args: []string{"volume", "delete", "vol-000001", "--wait"},
			reqs: []string{"GET /compute/v1/volumes/vol-000001", "DELETE /compute/v1/volumes/vol-000001", get}},
		{name: "volume_wait", setup: volumeCreated, args: []string{"volume", "wait", "vol-000001"},
			reqs: []string{get}, out: new(compute.Volume)},
	}
}
