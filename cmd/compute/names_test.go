package main

import (
	"context"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A name goes wherever an ID does: one match is used, none exits 3, several exit 11 listing them.
func TestNames(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkInstance(t, h.sdk())
	for range 2 {
		_, err := h.sdk().Volumes.Create(context.Background(), &compute.VolumeCreateRequest{Name: "twin", Region: region, Size: 50})
		require.NoError(t, err)
	}

	r := h.run("instance", "get", "web-1", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	golden(t, "names_one.txt", r.stdout+r.stderr)

	r = h.run("instance", "get", "web-404")
	assert.Equal(t, exitNotFound, r.code)
	golden(t, "names_none.txt", r.stdout+r.stderr)

	r = h.run("volume", "get", "twin")
	assert.Equal(t, exitAmbiguous, r.code)
	golden(t, "names_several.txt", r.stdout+r.stderr)

	r = h.run("volume", "delete", "twin")
	assert.Equal(t, exitAmbiguous, r.code)
	twins, err := h.sdk().Volumes.FindByName(context.Background(), "twin")
	require.NoError(t, err)
	assert.Len(t, twins, 2, "nothing is deleted when the name is ambiguous")

	mkGroup(t, h.sdk())
	r = h.run("security-group", "update", "ssh", "--description", "SSH from anywhere", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "sg-000001\n", r.stdout, "update takes a name")
	r = h.run("instance", "actions", "web-1", "-o", "name")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "stop\nreset\n", r.stdout)

	r = h.run("instance", "stop", "web-1", "--wait", "-o", "name")
	require.Equal(t, exitOK, r.code, r.stderr)
	r = h.run("instance", "wait", "web-1", "--status", "stopped", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "ins-000001\n", r.stdout)
	r = h.run("instance", "delete", "web-1", "--wait")
	require.Equal(t, exitOK, r.code, r.stderr)
	_, err = h.sdk().Instances.Get(context.Background(), "ins-000001")
	assert.ErrorIs(t, err, compute.ErrNotFound, "deleted by its name")
}
