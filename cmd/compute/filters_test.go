package main

import (
	"context"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A list keeps what --name (a pattern), --status and --region select, in the --sort order.
func TestListFiltersAndSort(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	ctx := context.Background()
	for _, v := range []struct {
		name   string
		region string
		size   int
	}{{"db-b", region, 60}, {"db-a", compute.RegionEUCDEMUC1, 200}, {"web", region, 90}} {
		_, err := h.sdk().Volumes.Create(ctx, &compute.VolumeCreateRequest{Name: v.name, Region: v.region, Size: v.size})
		require.NoError(t, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--name", "db-*", "-o", "name"}, "db-b\ndb-a\n"},
		{[]string{"--name", "db-*", "--sort", "name", "-o", "name"}, "db-a\ndb-b\n"},
		{[]string{"--region", compute.RegionEUCDEMUC1, "-o", "name"}, "data-3\ndb-a\n"},
		{[]string{"--name", "*", "--sort", "size_gib:desc", "-o", "columns=name,size_gib"},
			"NAME     SIZE GIB\ndb-a     200\nweb      90\ndb-b     60\n" +
				"data-1   10\ndata-2   10\ndata-3   10\nbackup   10\nlocked   10\n"},
		{[]string{"--status", "in-use", "-o", "name"}, ""},
	} {
		r := h.run(append([]string{"volume", "list"}, tc.args...)...)
		require.Equal(t, exitOK, r.code, "%v: %s", tc.args, r.stderr)
		assert.Equal(t, tc.want, r.stdout, "%v", tc.args)
	}
	before := len(h.srv.Requests())
	r := h.run("volume", "list", "--sort", "colour")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `invalid --sort "colour": no column "colour" here`)
	r = h.run("volume", "list", "--name", "[")
	assert.Equal(t, exitUsage, r.code)
	assert.Len(t, h.srv.Requests(), before, "nothing was sent")
	r = h.run("quota", "list", "--status", "x")
	assert.Equal(t, exitUsage, r.code, "a kind without the column has no such filter")
}
