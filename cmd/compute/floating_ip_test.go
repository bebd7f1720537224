package main

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
)

func floatingIPCreated(t *testing.T, c *compute.Client) { mkFloatingIP(t, c) }

func TestFloatingIPCommands(t *testing.T) {
	t.Parallel()
	runCases(t, floatingIPCases(t))
}

func floatingIPCases(t *testing.T) []cmdCase {
	const (
		list = "GET /compute/v1/floating-ips?page=1&per_page=100"
		get  = "GET /compute/v1/floating-ips/fip-000001"
	)
	return []cmdCase{
		{name: "floating_ip_list", setup: floatingIPCreated, args: []string{"floating-ip", "list"},
			reqs: []string{list}, out: new([]compute.FloatingIP)},
		{name: "floating_ip_get", setup: floatingIPCreated, args: []string{"floating-ip", "get", "fip-000001"},
			reqs: []string{get}, out: new(compute.FloatingIP)},
		{name: "floating_ip_create", args: []string{"floating-ip", "create", "--name", "web-ip", "--region", region,
			"--description", "the web's address"},
			reqs: []string{list, "POST /compute/v1/floating-ips"},
			body: `{"name":"web-ip","description":"the web's address","region":"NORD-NO-KRS-1","version":"ipv4"}`,
			out:  new(compute.FloatingIP)},
		{name: "floating_ip_create_wait", args: []string{"floating-ip", "create", "--name", "web-ip", "--region", region,
			"--version", "ipv4", "--wait"},
			reqs: []string{list, "POST /compute/v1/floating-ips", get},
			body: `{"name":"web-ip","region":"NORD-NO-KRS-1","version":"ipv4"}`, out: new(compute.FloatingIP)},
		{name: "floating_ip_update", setup: floatingIPCreated, args: []string{"floating-ip", "update", "fip-000001",
			"--description", ""},
			reqs: []string{"PATCH /compute/v1/floating-ips/fip-000001"}, body: `{"description":""}`,
			out: new(compute.FloatingIP)},
		{name: "floating_ip_delete", setup: floatingIPCreated, args: []string{"floating-ip", "delete", "fip-000001"},
			reqs: []string{"DELETE /compute/v1/floating-ips/fip-000001"}},
		{name: "floating_ip_delete_wait", setup: floatingIPCreated, args: []string{"floating-ip", "delete", "fip-000001", "--wait"},
			reqs: []string{"GET /compute/v1/floating-ips/fip-000001", "DELETE /compute/v1/floating-ips/fip-000001", get}},
		{name: "floating_ip_wait", setup: floatingIPCreated, args: []string{"floating-ip", "wait", "fip-000001", "--status", "created"},
			reqs: []string{get}, out: new(compute.FloatingIP)},
	}
}
