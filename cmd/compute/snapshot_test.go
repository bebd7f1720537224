package main

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
)

func snapshotCreated(t *testing.T, c *compute.Client) { mkSnapshot(t, c) }

func TestSnapshotCommands(t *testing.T) {
	t.Parallel()
	runCases(t, snapshotCases(t))
}

func snapshotCases(t *testing.T) []cmdCase {
	const (
		list = "GET /compute/v1/snapshots?page=1&per_page=100"
		get  = "GET /compute/v1/snapshots/snap-000001"
	)
	return []cmdCase{
		{name: "snapshot_list", setup: snapshotCreated, args: []string{"snapshot", "list"},
			reqs: []string{list}, out: new([]compute.Snapshot)},
		{name: "snapshot_list_instance", setup: snapshotCreated, args: []string{"snapshot", "list", "--instance", "ins-000001"},
			reqs: []string{"GET /compute/v1/instances/ins-000001/snapshots?page=1&per_page=100"}, out: new([]compute.Snapshot)},
		{name: "snapshot_get", setup: snapshotCreated, args: []string{"snapshot", "get", "snap-000001"},
			reqs: []string{get}, out: new(compute.Snapshot)},
		{name: "snapshot_update", setup: snapshotCreated, args: []string{"snapshot", "update", "snap-000001", "--name", "golden"},
			reqs: []string{"PATCH /compute/v1/snapshots/snap-000001"}, body: `{"name":"golden"}`, out: new(compute.Snapshot)},
		{name: "snapshot_delete", setup: snapshotCreated, args: []string{"snapshot", "delete", "snap-000001"},
			reqs: []string{"DELETE /compute/v1/snapshots/snap-000001"}},
		{name: "snapshot_delete_wait", setup: snapshotCreated, args: []string{"snapshot", "delete", "snap-000001", "--wait"},
			reqs: []string{"GET /compute/v1/snapshots/snap-000001", "DELETE /compute/v1/snapshots/snap-000001", get}},
		{name: "snapshot_clone", setup: snapshotCreated, args: []string{"snapshot", "clone", "snap-000001", "--name", "web-1-muc",
			"--region", compute.RegionEUCDEMUC1},
			reqs: []string{list, "POST /compute/v1/snapshots/snap-000001/clone"},
			body: `{"name":"web-1-muc","region":"EUC-DE-MUC-1"}`, out: new(compute.Snapshot)},
		{name: "snapshot_clone_wait", setup: snapshotCreated, args: []string{"snapshot", "clone", "snap-000001", "--name", "web-1-muc",
			"--region", compute.RegionEUCDEMUC1, "--wait"},
			reqs: []string{list, "POST /compute/v1/snapshots/snap-000001/clone", "GET /compute/v1/snapshots/snap-000002"},
			body: `{"name":"web-1-muc","region":"EUC-DE-MUC-1"}`, out: new(compute.Snapshot)},
		{name: "snapshot_import", args: []string{"snapshot", "import", "--name", "custom", "--region", region, "--size", "20",
			"--url", "https://images.example.com/custom.raw.zst", "--os-type", "linux"},
			reqs: []string{list, "POST /compute/v1/snapshots"},
			body: `{"name":"custom","region":"NORD-NO-KRS-1","size":20,"url":"https://images.example.com/custom.raw.zst","os_type":"linux"}`,
			out:  new(compute.Snapshot)},
		{name: "snapshot_import_wait", args: []string{"snapshot", "import", "--name", "custom", "--region", region, "--size", "20",
			"--url", "https://images.example.com/custom.raw", "--wait"},
			reqs: []string{list, "POST /compute/v1/snapshots", get},
			body: `{"name":"custom","region":"NORD-NO-KRS-1","size":20,"url":"https://images.example.com/custom.raw"}`,
			out:  new(compute.Snapshot)},
		{name: "snapshot_wait", setup: snapshotCreated, args: []string{"snapshot", "wait", "snap-000001"},
			reqs: []string{get}, out: new(compute.Snapshot)},
	}
}
