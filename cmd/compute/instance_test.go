package main

import (
	"context"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/require"
)

func instanceActive(t *testing.T, c *compute.Client) { mkInstance(t, c) }

func instanceStopped(t *testing.T, c *compute.Client) {
	inst := mkInstance(t, c)
	ctx := context.Background()
	require.NoError(t, c.Instances.Stop(ctx, inst.ID))
	_, err := c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusStopped)
	require.NoError(t, err)
}

func instanceProtected(t *testing.T, c *compute.Client) {
	inst := mkInstance(t, c)
	_, err := c.Instances.Update(context.Background(), inst.ID, &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(true)})
	require.NoError(t, err)
}

func TestInstanceCommands(t *testing.T) {
	t.Parallel()
	runCases(t, instanceCases(t))
}

func instanceCases(t *testing.T) []cmdCase {
	script := writeFile(t, "init.sh", "#!/bin/sh\necho up\n")
	const (
		list = "GET /compute/v1/instances?page=1&per_page=100"
		get  = "GET /compute/v1/instances/ins-000001"
	)
	return []cmdCase{
		{name: "instance_list", setup: instanceActive, args: []string{"instance", "list"},
			reqs: []string{list}, out: new([]compute.Instance)},
		{name: "instance_list_empty", args: []string{"instance", "list"},
			reqs: []string{list}, out: new([]compute.Instance)},
		{name: "instance_get", setup: instanceActive, args: []string{"instance", "get", "ins-000001"},
			reqs: []string{get}, out: new(compute.Instance)},
		{name: "instance_create", args: []string{"instance", "create", "--name", "web-2", "--type", "vcpu-2_memory-4g",
			"--region", region, "--image", "ubuntu-24.04", "--ssh-key", "key-ci,key-laptop", "--disk-size", "100",
			"--protected", "--startup-script-file", script, "--no-security-groups"},
			reqs: []string{list, "POST /compute/v1/instances"},
			body: `{"name":"web-2","hostname":"web-2","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1",
				"image":"ubuntu-24.04","ssh_keys":["key-ci","key-laptop"],"security_groups":[],"is_protected":true,
				"disk_size":100,"metadata":{"startup_script":"#!/bin/sh\necho up\n"}}`,
			out: new(compute.Instance)},
		{name: "instance_create_wait", args: []string{"instance", "create", "--name", "web-2", "--hostname", "web2",
			"--type", "vcpu-2_memory-4g", "--region", region, "--image", "ubuntu-24.04", "--ssh-key", "key-ci", "--wait"},
			reqs: []string{list, "POST /compute/v1/instances", get},
			body: `{"name":"web-2","hostname":"web2","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1",
				"image":"ubuntu-24.04","ssh_keys":["key-ci"]}`,
			out: new(compute.Instance)},
		{name: "instance_create_adopts", setup: instanceActive, args: []string{"instance", "create", "--name", "web-1",
			"--type", "vcpu-2_memory-4g", "--region", region, "--image", "ubuntu-24.04", "--ssh-key", "key-ci"},
			reqs: []string{list}, out: new(compute.Instance)},
		{name: "instance_update", setup: instanceActive, args: []string{"instance", "update", "ins-000001",
			"--name", "web-1-old", "--protected=false", "--disk-size", "120"},
			reqs: []string{"PATCH /compute/v1/instances/ins-000001"},
			body: `{"name":"web-1-old","is_protected":false,"disk_size":120}`, out: new(compute.Instance)},
		{name: "instance_update_lists", setup: func(t *testing.T, c *compute.Client) { mkGroup(t, c); mkInstance(t, c) },
			args: []string{"instance", "update", "ins-000001", "--security-group", "sg-000001", "--no-volumes"},
			reqs: []string{"PATCH /compute/v1/instances/ins-000001"},
			body: `{"security_groups":["sg-000001"],"volumes":[]}`, out: new(compute.Instance)},
		{name: "instance_delete", setup: instanceActive, args: []string{"instance", "delete", "ins-000001"},
			reqs: []string{"DELETE /compute/v1/instances/ins-000001"}},
		{name: "instance_delete_wait", setup: instanceActive, args: []string{"instance", "delete", "ins-000001", "--wait"},
			reqs: []string{"GET /compute/v1/instances/ins-000001", "DELETE /compute/v1/instances/ins-000001", get}},
		{name: "instance_delete_force", setup: instanceProtected, args: []string{"instance", "delete", "ins-000001", "--force"},
			reqs: []string{"GET /compute/v1/instances/ins-000001", "DELETE /compute/v1/instances/ins-000001", "PATCH /compute/v1/instances/ins-000001",
				"DELETE /compute/v1/instances/ins-000001", get},
			body: `{"is_protected":false}`},
		{name: "instance_start", setup: instanceStopped, args: []string{"instance", "start", "ins-000001"},
			reqs: []string{"POST /compute/v1/instances/ins-000001/actions"}, body: `{"action":"start"}`},
		{name: "instance_stop_wait", setup: instanceActive, args: []string{"instance", "stop", "ins-000001", "--wait"},
			reqs: []string{"POST /compute/v1/instances/ins-000001/actions", get}, body: `{"action":"stop"}`,
			out: new(compute.Instance)},
		{name: "instance_reset", setup: instanceActive, args: []string{"instance", "reset", "ins-000001"},
			reqs: []string{"POST /compute/v1/instances/ins-000001/actions"}, body: `{"action":"reset"}`},
		{name: "instance_actions", setup: instanceActive, args: []string{"instance", "actions", "ins-000001"},
			reqs: []string{"GET /compute/v1/instances/ins-000001/actions"}, out: new([]compute.InstanceAction)},
		{name: "instance_snapshot", setup: instanceActive, args: []string{"instance", "snapshot", "ins-000001",
			"--name", "before-upgrade", "--replicated-region", compute.RegionEUCDEMUC1},
			reqs: []string{"GET /compute/v1/instances/ins-000001/snapshots?page=1&per_page=100", "POST /compute/v1/instances/ins-000001/snapshots"},
			body: `{"name":"before-upgrade","replicated_region":"EUC-DE-MUC-1"}`, out: new(compute.Snapshot)},
		{name: "instance_snapshot_wait", setup: instanceActive, args: []string{"instance", "snapshot", "ins-000001",
			"--name", "before-upgrade", "--wait"},
			reqs: []string{"GET /compute/v1/instances/ins-000001/snapshots?page=1&per_page=100", "POST /compute/v1/instances/ins-000001/snapshots",
				"GET /compute/v1/snapshots/snap-000001"},
			body: `{"name":"before-upgrade"}`, out: new(compute.Snapshot)},
		{name: "instance_user_metadata", setup: instanceActive, args: []string{"instance", "user-metadata", "ins-000001"},
			reqs: []string{"GET /compute/v1/instances/ins-000001/user-metadata"}, out: new(compute.UserMetadata)},
		{name: "instance_attach_volume", setup: instanceActive, args: []string{"instance", "attach-volume", "ins-000001", "vol-data-1"},
			reqs: []string{"PATCH /compute/v1/instances/ins-000001"}, body: `{"volumes":{"attach":"vol-data-1"}}`,
			out: new(compute.Instance)},
		{name: "instance_detach_volume", setup: func(t *testing.T, c *compute.Client) {
			inst := mkInstance(t, c)
			_, err := c.Instances.AttachVolume(context.Background(), inst.ID, "vol-data-1")
			require.NoError(t, err)
		}, args: []string{"instance", "detach-volume", "ins-000001", "vol-data-1"},
			reqs: []string{"PATCH /compute/v1/instances/ins-000001"}, body: `{"volumes":{"detach":"vol-data-1"}}`,
			out: new(compute.Instance)},
		{name: "instance_attach_security_group", setup: func(t *testing.T, c *compute.Client) { mkGroup(t, c); mkInstance(t, c) },
			args: []string{"instance", "attach-security-group", "ins-000001", "sg-000001"},
			reqs: []string{"PATCH /compute/v1/instances/ins-000001"}, body: `{"security_groups":{"attach":"sg-000001"}}`,
			out: new(compute.Instance)},
		{name: "instance_detach_security_group", setup: func(t *testing.T, c *compute.Client) {
			mkGroup(t, c)
			inst := mkInstance(t, c)
			_, err := c.Instances.AttachSecurityGroup(context.Background(), inst.ID, "sg-000001")
			require.NoError(t, err)
		}, args: []string{"instance", "detach-security-group", "ins-000001", "sg-000001"},
			reqs: []string{"PATCH /compute/v1/instances/ins-000001"}, body: `{"security_groups":{"detach":"sg-000001"}}`,
			out: new(compute.Instance)},
		{name: "instance_wait", setup: instanceStopped, args: []string{"instance", "wait", "ins-000001", "--status", "stopped"},
			reqs: []string{get}, out: new(compute.Instance)},
		{name: "instance_wait_deleted", setup: func(t *testing.T, c *compute.Client) {
			inst := mkInstance(t, c)
			require.NoError(t, c.Instances.Delete(context.Background(), inst.ID))
		}, args: []string{"instance", "wait", "ins-000001", "--deleted"}, reqs: []string{get}},
	}
}
