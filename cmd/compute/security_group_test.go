package main

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func groupCreated(t *testing.T, c *compute.Client) { mkGroup(t, c) }

func TestSecurityGroupCommands(t *testing.T) {
	t.Parallel()
	runCases(t, securityGroupCases(t))
}

func securityGroupCases(t *testing.T) []cmdCase {
	const (
		list = "GET /compute/v1/security-groups?page=1&per_page=100"
		get  = "GET /compute/v1/security-groups/sg-000001"
	)
	return []cmdCase{
		{name: "security_group_list", setup: groupCreated, args: []string{"security-group", "list"},
			reqs: []string{list}, out: new([]compute.SecurityGroup)},
		{name: "security_group_get", setup: groupCreated, args: []string{"security-group", "get", "sg-000001"},
			reqs: []string{get}, out: new(compute.SecurityGroup)},
		{name: "security_group_create", args: []string{"security-group", "create", "--name", "web", "--region", region,
			"--description", "HTTP and ping", "--rule", "tcp:ingress:80", "--rule", "tcp:ingress:8000-8100", "--rule", "icmp:ingress"},
			reqs: []string{list, "POST /compute/v1/security-groups"},
			body: `{"name":"web","description":"HTTP and ping","region":"NORD-NO-KRS-1","rules":[
				{"protocol":"tcp","direction":"ingress","port_range_min":80,"port_range_max":80},
				{"protocol":"tcp","direction":"ingress","port_range_min":8000,"port_range_max":8100},
				{"protocol":"icmp","direction":"ingress","port_range_min":null,"port_range_max":null}]}`,
			out: new(compute.SecurityGroup)},
		{name: "security_group_create_wait", args: []string{"security-group", "create", "--name", "empty", "--region", region, "--wait"},
			reqs: []string{list, "POST /compute/v1/security-groups", get},
			body: `{"name":"empty","region":"NORD-NO-KRS-1","rules":[]}`, out: new(compute.SecurityGroup)},
		{name: "security_group_update", setup: groupCreated, args: []string{"security-group", "update", "sg-000001",
			"--rule", "tcp:ingress:22", "--rule", "all:egress"},
			reqs: []string{get, "PUT /compute/v1/security-groups/sg-000001"},
			body: `{"name":"ssh","description":"SSH in","rules":[
				{"protocol":"tcp","direction":"ingress","port_range_min":22,"port_range_max":22},
				{"protocol":"all","direction":"egress","port_range_min":null,"port_range_max":null}]}`,
			out: new(compute.SecurityGroup)},
		{name: "security_group_update_name", setup: groupCreated, args: []string{"security-group", "update", "sg-000001",
			"--name", "ssh-only", "--description", ""},
			reqs: []string{get, "PUT /compute/v1/security-groups/sg-000001"},
			body: `{"name":"ssh-only","description":"","rules":[
				{"protocol":"tcp","direction":"ingress","port_range_min":22,"port_range_max":22}]}`,
			out: new(compute.SecurityGroup)},
		{name: "security_group_update_no_rules", setup: groupCreated, args: []string{"security-group", "update", "sg-000001", "--no-rules"},
			reqs: []string{get, "PUT /compute/v1/security-groups/sg-000001"},
			body: `{"name":"ssh","description":"SSH in","rules":[]}`, out: new(compute.SecurityGroup)},
		{name: "security_group_delete", setup: groupCreated, args: []string{"security-group", "delete", "sg-000001"},
			reqs: []string{"DELETE /compute/v1/security-groups/sg-000001"}},
		{name: "security_group_delete_wait", setup: groupCreated, args: []string{"security-group", "delete", "sg-000001", "--wait"},
			reqs: []string{"GET /compute/v1/security-groups/sg-000001", "DELETE /compute/v1/security-groups/sg-000001", get}},
		{name: "security_group_wait", setup: groupCreated, args: []string{"security-group", "wait", "sg-000001"},
			reqs: []string{get}, out: new(compute.SecurityGroup)},
	}
}

// A --rule that does not parse, or that the SDK refuses, is a usage error naming the flag, and
// nothing is sent, not even the read of an update.
func TestSecurityGroupBadRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"security-group", "create", "--name", "x", "--region", region, "--rule", "tcp"}, `invalid --rule "tcp": want PROTOCOL:DIRECTION`},
		{[]string{"security-group", "create", "--name", "x", "--region", region, "--rule", "tcp:ingress:ssh"}, `invalid --rule "tcp:ingress:ssh": the ports "ssh"`},
		{[]string{"security-group", "create", "--name", "x", "--region", region, "--rule", "tcp:ingress:90-80"}, `invalid --rule (rules[0]`},
		{[]string{"security-group", "create", "--name", "x", "--region", region, "--rule", "gre:ingress"}, `invalid --rule (rules[0].protocol)`},
		{[]string{"security-group", "create", "--name", "default", "--region", region}, `invalid --name`},
		{[]string{"security-group", "update", "sg-000001", "--rule", "tcp:sideways:22"}, `invalid --rule (rules[0].direction)`},
		{[]string{"security-group", "update", "sg-000001", "--name", ""}, `invalid --name`},
		{[]string{"security-group", "update", "sg-000001"}, `nothing to change: give at least one of --name, --description, --rule, --no-rules`},
		{[]string{"security-group", "update", "sg-000001", "--rule", "tcp:ingress:22", "--no-rules"}, `[no-rules rule] were all set`},
	} {
		h := newCLI(t)
		r := h.run(tc.args...)
		assert.Equal(t, exitUsage, r.code, "%v", tc.args)
		assert.Contains(t, r.stderr, tc.want, "%v", tc.args)
		assert.Empty(t, r.stdout)
		assert.Empty(t, h.requests(), "%v sends nothing", tc.args)
	}
}

func TestParseAndFormatRules(t *testing.T) {
	t.Parallel()
	specs := []string{"tcp:ingress:22", "udp:egress:1000-2000", "icmp:ingress", "all:egress"}
	rules, err := parseRules(specs)
	require.NoError(t, err)
	var back []string
	for _, r := range rules {
		back = append(back, formatRule(r))
	}
	assert.Equal(t, specs, back)
	assert.Nil(t, rules[2].PortRangeMin, "no port means all ports, sent as null")
}
