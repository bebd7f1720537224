package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hcloud's spellings: -o columns=, -o noheader (alone or with columns=) and -o format= over the
// SDK's type, for a list and for one resource.
func TestOutputColumnsNoHeaderFormat(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkInstance(t, h.sdk())
	mkGroup(t, h.sdk())
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"instance_list_columns.txt", []string{"instance", "list", "-o", "columns=id,name,status,public_ip"}},
		{"instance_list_noheader.txt", []string{"instance", "list", "-o", "noheader"}},
		{"volume_list_noheader_columns.txt", []string{"volume", "list", "-o", "noheader", "-o", "columns=name,size_gib"}},
		{"instance_list_format.txt", []string{"instance", "list", "-o", "format={{.ID}} {{.Name}} {{.Image.Name}} {{len .SSHKeys}}"}},
		{"security_group_get_format.txt", []string{"security-group", "get", "ssh", "-o", "format={{.Name}}: {{range .Rules}}{{.Protocol}}/{{.PortRangeMin}} {{end}}"}},
	} {
		r := h.run(tc.args...)
		require.Equal(t, exitOK, r.code, "%v: %s", tc.args, r.stderr)
		golden(t, tc.golden, r.stdout)
	}
}

// A column or a template field the kind does not have, or two formats at once, is refused before
// any request, naming what there is.
func TestOutputSpecRefused(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"instance", "list", "-o", "columns=id,colour"}, `no column "colour" here: want some of id,name,status,type,region,image,public_ip,protected`},
		{[]string{"instance", "get", "ins-1", "-o", "format={{.Colour}}"}, "can't evaluate field Colour"},
		{[]string{"instance", "list", "-o", "format={{.ID"}, "invalid --output format"},
		{[]string{"instance", "list", "-o", "json", "-o", "id"}, "-o json and -o id cannot be used together"},
		{[]string{"instance", "list", "-o", "json", "-o", "noheader"}, "shape a table, not -o json"},
		{[]string{"instance", "list", "-o", "columns="}, "name the columns"},
		{[]string{"instance", "list", "-o", "xml"}, `invalid --output "xml"`},
	} {
		r := h.run(tc.args...)
		assert.Equal(t, exitUsage, r.code, "%v", tc.args)
		assert.Contains(t, r.stderr, tc.stderr, "%v", tc.args)
	}
	assert.Empty(t, h.srv.Requests(), "nothing was sent")
}

// A create is not sent when its -o cannot print what it makes.
func TestOutputSpecRefusedBeforeACreate(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run(append(createWeb2, "-o", "columns=id,colour")...)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `no column "colour"`)
	assert.Empty(t, h.srv.Requests(), "nothing was sent")
}

// -o is checked before anything is sent, everywhere: describe takes -o json, yaml and format= (as
// get does) and refuses the rest; a command that prints nothing refuses -o; -o values are read in
// any case. Exit code 2 then means that nothing reached the service.
func TestOutputCheckedFirstEverywhere(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkInstance(t, h.sdk())

	get := h.run("instance", "get", "ins-000001", "-o", "json")
	require.Equal(t, exitOK, get.code, get.stderr)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"instance", "describe", "web-1", "-o", "json"}, get.stdout},
		{[]string{"instance", "describe", "ins-000001", "-o", "JSON"}, get.stdout},
		{[]string{"instance", "describe", "ins-000001", "-o", "format={{.ID}} {{.Name}}"}, "ins-000001 web-1\n"},
		{[]string{"instance", "describe", "ins-000001", "-o", "Format={{.Status}}"}, "active\n"},
		{[]string{"instance", "list", "-o", "ID"}, "ins-000001\n"},
		{[]string{"instance", "list", "-o", "NoHeader", "-o", "Columns=ID,Name"}, "ins-000001   web-1\n"},
	} {
		r := h.run(tc.args...)
		require.Equal(t, exitOK, r.code, "%v: %s", tc.args, r.stderr)
		assert.Equal(t, tc.want, r.stdout, "%v", tc.args)
	}
	r := h.run("instance", "describe", "ins-000001", "-o", "yaml")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "id: ins-000001\n")

	h.srv.ResetRequests()
	for _, args := range [][]string{
		{"instance", "describe", "web-1", "-o", "jsonl"},
		{"instance", "describe", "web-1", "-o", "id"},
		{"instance", "describe", "web-1", "-o", "columns=id"},
		{"instance", "describe", "web-1", "-o", "format={{.Colour}}"},
		{"instance", "delete", "ins-000001", "-o", "json"},
		{"instance", "delete", "ins-000001", "--wait", "-o", "id"},
		{"instance", "stop", "ins-000001", "-o", "id"},
		{"instance", "wait", "ins-000001", "--deleted", "-o", "json"},
		{"volume", "delete", "vol-data-1", "-o", "yaml"},
		{"context", "use", "x", "-o", "json"},
	} {
		r := h.run(args...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "-o", "%v", args)
	}
	assert.Empty(t, h.requests(), "exit code 2: nothing was sent")
}
