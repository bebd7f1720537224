package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
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

// Names go in the attach and detach commands (both arguments), and in instance snapshot and
// snapshot clone; IDs there cost the one request they did.
func TestNamesInAttachAndSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newCLI(t)
	mkInstance(t, h.sdk())
	vol := mkVolume(t, h.sdk())
	mkGroup(t, h.sdk())

	r := h.run("instance", "attach-volume", "web-1", "data", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "ins-000001\n", r.stdout)
	inst, err := h.sdk().Instances.Get(ctx, "ins-000001")
	require.NoError(t, err)
	require.Len(t, inst.Volumes, 1)
	assert.Equal(t, vol.ID, inst.Volumes[0].ID, "attached by their names")

	r = h.run("instance", "attach-security-group", "web-1", "ssh", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	r = h.run("instance", "detach-security-group", "web-1", "ssh", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)

	h.srv.ResetRequests()
	r = h.run("instance", "detach-volume", "ins-000001", vol.ID, "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, []string{"PATCH /compute/v1/instances/ins-000001"}, h.requests(), "IDs cost one request")

	r = h.run("instance", "attach-volume", "web-1", "nope")
	assert.Equal(t, exitNotFound, r.code)
	golden(t, "names_attach_none.txt", r.stdout+r.stderr)

	for range 2 {
		_, err := h.sdk().Volumes.Create(ctx, &compute.VolumeCreateRequest{Name: "twin", Region: region, Size: 50})
		require.NoError(t, err)
	}
	r = h.run("instance", "attach-volume", "web-1", "twin")
	assert.Equal(t, exitAmbiguous, r.code)
	golden(t, "names_attach_several.txt", r.stdout+r.stderr)
	inst, err = h.sdk().Instances.Get(ctx, "ins-000001")
	require.NoError(t, err)
	assert.Empty(t, inst.Volumes, "nothing is attached when the name is ambiguous")

	r = h.run("instance", "snapshot", "web-1", "--name", "golden", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	snapID := r.stdout[:len(r.stdout)-1]
	snap, err := h.sdk().Snapshots.Get(ctx, snapID)
	require.NoError(t, err)
	assert.Equal(t, "ins-000001", snap.SourceInstanceID, "snapshot takes the instance's name")
	_, err = h.sdk().Snapshots.WaitForStatus(ctx, snapID, compute.SnapshotStatusCreated)
	require.NoError(t, err)

	r = h.run("snapshot", "clone", "golden", "--name", "golden-copy", "--region", region, "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	clone, err := h.sdk().Snapshots.Get(ctx, r.stdout[:len(r.stdout)-1])
	require.NoError(t, err)
	assert.Equal(t, snapID, clone.SourceSnapshotID, "clone takes the source's name")

	r = h.run("snapshot", "clone", "nope", "--name", "x", "--region", region)
	assert.Equal(t, exitNotFound, r.code)
	golden(t, "names_clone_none.txt", r.stdout+r.stderr)
	r = h.run("instance", "snapshot", "nope", "--name", "x")
	assert.Equal(t, exitNotFound, r.code, r.stderr)

	mkInstance(t, h.sdk()) // a second web-1
	r = h.run("instance", "snapshot", "web-1", "--name", "y")
	assert.Equal(t, exitAmbiguous, r.code)
	golden(t, "names_snapshot_several.txt", r.stdout+r.stderr)
}

// Flags that take the IDs of the account's resources take names too: instance create's --ssh-key,
// --security-group, --volume and --floating-ip, instance update's --security-group and --volume,
// snapshot list's --instance. IDs there send no lookup.
func TestNamesInFlags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newCLI(t)
	key, group, vol, fip := mkSSHKey(t, h.sdk()), mkGroup(t, h.sdk()), mkVolume(t, h.sdk()), mkFloatingIP(t, h.sdk())
	create := []string{"instance", "create", "--type", "vcpu-2_memory-4g", "--region", region, "--image", "ubuntu-24.04", "-o", "id"}

	r := h.run(append(create, "--name", "web-2", "--ssh-key", "deploy", "--security-group", "ssh", "--floating-ip", "web-ip")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	inst, err := h.sdk().Instances.Get(ctx, r.stdout[:len(r.stdout)-1])
	require.NoError(t, err)
	require.Len(t, inst.SecurityGroups, 1)
	assert.Equal(t, group.ID, inst.SecurityGroups[0].ID)
	require.NotNil(t, inst.FloatingIP)
	assert.Equal(t, fip.ID, inst.FloatingIP.ID)
	_, err = h.sdk().Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
	require.NoError(t, err)

	r = h.run("instance", "update", "web-2", "--volume", "data", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	inst, err = h.sdk().Instances.Get(ctx, inst.ID)
	require.NoError(t, err)
	require.Len(t, inst.Volumes, 1)
	assert.Equal(t, vol.ID, inst.Volumes[0].ID, "update --volume takes a name")

	h.srv.ResetRequests()
	r = h.run(append(create, "--name", "web-3", "--ssh-key", key.ID, "--security-group", group.ID)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, req := range h.requests() {
		assert.NotRegexp(t, `^GET /compute/v1/(ssh-keys|security-groups)`, req, "IDs are not looked up")
	}

	r = h.run(append(create, "--name", "web-4", "--ssh-key", "nope")...)
	assert.Equal(t, exitNotFound, r.code)
	assert.Contains(t, r.stderr, `no SSH key has the ID or the name "nope"`)
	found, err := h.sdk().Instances.FindByName(ctx, "web-4")
	require.NoError(t, err)
	assert.Empty(t, found, "nothing is created")

	_, err = h.sdk().Snapshots.Create(ctx, inst.ID, &compute.SnapshotCreateRequest{Name: "web-2-snap"})
	require.NoError(t, err)
	r = h.run("snapshot", "list", "--instance", "web-2", "-o", "name")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "web-2-snap\n", r.stdout, "snapshot list --instance takes a name")
	r = h.run("snapshot", "list", "--instance", "nope", "-o", "name")
	assert.Equal(t, exitNotFound, r.code, r.stderr)
}

// A name shared by more resources than a lookup holds (1,000) exits 11, as any shared name does,
// not 4.
func TestNameSharedByThousands(t *testing.T) {
	t.Parallel()
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/compute/v1/instances" {
			writeJSON(w, http.StatusNotFound, map[string]string{"code": "02008", "message": "not found"})
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		items := make([]compute.Instance, 0, 100)
		for i := range min(100, max(0, 5000-(page-1)*100)) {
			items = append(items, hostileInstance(fmt.Sprintf("ins-%d", (page-1)*100+i), "web", "active"))
		}
		writeJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": 5000, "page": page, "per_page": 100})
	}))
	r := h.run("instance", "get", "web")
	assert.Equal(t, exitAmbiguous, r.code, r.stderr)
	assert.Contains(t, r.stderr, `more than 1000 instances have the name "web"`)
	r = h.run("instance", "delete", "web")
	assert.Equal(t, exitAmbiguous, r.code, r.stderr)
}

// A name sent as an ID is never taken for gone: when the DELETE of "web-1" (a name) loses its
// connection, the SDK's retry meets a 404, which for an ID would prove it gone; the command looks
// the name up and deletes the instance it names, with and without --wait.
func TestDeleteByNameAfterALostConnection(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"instance", "delete", "web-1"}, {"instance", "delete", "web-1", "--wait"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCLI(t, computetest.WithInMemoryNetwork())
				inst := mkInstance(t, h.sdk())
				// The connection of every request on the name's path drops once.
				for _, m := range []string{http.MethodGet, http.MethodDelete} {
					h.srv.FailNext(1, computetest.Match{Method: m, Path: "/compute/v1/instances/web-1"}, computetest.Fault{Drop: true})
				}
				r := h.run(args...)
				require.Equal(t, exitOK, r.code, r.stderr)
				got, err := h.sdk().Instances.Get(context.Background(), inst.ID)
				if err == nil {
					assert.Equal(t, compute.InstanceStatusDeleting, got.Status, "the instance named web-1 is being deleted")
				} else {
					assert.ErrorIs(t, err, compute.ErrNotFound, "the instance named web-1 is deleted")
				}
			})
		})
	}
}

// A name costs two requests where an ID costs one: get and describe try the argument as an ID,
// then read the list, whose item they show.
func TestNameCostsTwoRequests(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	mkInstance(t, h.sdk())
	for _, verb := range []string{"get", "describe"} {
		h.srv.ResetRequests()
		r := h.run("instance", verb, "web-1", "-o", "json")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, []string{"GET /compute/v1/instances/web-1", "GET /compute/v1/instances?page=1&per_page=100"}, h.requests(), verb)
		assert.Contains(t, r.stdout, `"id": "ins-000001"`)
	}
}

// Once a name is resolved, a write whose outcome is unknown is never sent again: the first PATCH
// (the name taken as an ID) loses its connection and its retry meets a 404, which may be about the
// lost attempt; the command exits 7 after those two PATCHes, and sends no third.
func TestNoWriteAgainAfterAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork())
		mkInstance(t, h.sdk())
		h.srv.ResetRequests()
		h.srv.FailNext(1, computetest.Match{Method: http.MethodPatch, Path: "/compute/v1/instances/web-1"}, computetest.Fault{Drop: true})
		r := h.run("instance", "update", "web-1", "--name", "web-renamed")
		assert.Equal(t, exitOutcomeUnknown, r.code, r.stderr)
		var patches int
		for _, req := range h.requests() {
			if strings.HasPrefix(req, "PATCH ") {
				patches++
			}
		}
		assert.Equal(t, 2, patches, "the dropped PATCH and its retry, no third: %v", h.requests())
		got, err := h.sdk().Instances.Get(context.Background(), "ins-000001")
		require.NoError(t, err)
		assert.Equal(t, "web-1", got.Name, "not renamed")
	})
}
