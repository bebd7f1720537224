package computetest_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Distinct durations, so that each transition is seen to use its own.
var lifecycleDurations = computetest.Durations{
	InstanceCreate:      10 * time.Second,
	InstanceStop:        20 * time.Second,
	InstanceStart:       30 * time.Second,
	InstanceReset:       40 * time.Second,
	InstanceDelete:      50 * time.Second,
	SecurityGroupCreate: 5 * time.Second,
	FloatingIPCreate:    7 * time.Second,
}

// step sleeps (fake time) until just before d and checks that the instance is still in from, then
// past d and checks that it reached to.
func step(t *testing.T, c *compute.Client, id string, d time.Duration, from, to compute.InstanceStatus) {
	t.Helper()
	time.Sleep(d - time.Millisecond)
	requireStatus(t, c, id, from)
	time.Sleep(time.Millisecond)
	requireStatus(t, c, id, to)
}

func requireActions(t *testing.T, c *compute.Client, id string, want ...compute.InstanceAction) {
	t.Helper()
	got, err := c.Instances.Actions(context.Background(), id)
	require.NoError(t, err)
	if want == nil {
		want = []compute.InstanceAction{}
	}
	require.Equal(t, want, got)
}

func TestLifecycleInstanceTransitions(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithDurations(lifecycleDurations))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		start := time.Now()

		in := createInstance(t, c)
		require.Equal(t, compute.InstanceStatusCreating, in.Status)
		assert.Empty(t, in.PrivateIP, "addresses come with active")
		assert.Equal(t, start.UTC(), in.CreatedAt)
		requireActions(t, c, in.ID)
		step(t, c, in.ID, lifecycleDurations.InstanceCreate, compute.InstanceStatusCreating, compute.InstanceStatusActive)
		got, err := c.Instances.Get(ctx, in.ID)
		require.NoError(t, err)
		assert.NotEmpty(t, got.PrivateIP)
		assert.NotEmpty(t, got.PublicIP)
		assert.Equal(t, start.Add(lifecycleDurations.InstanceCreate).UTC(), got.UpdatedAt, "updated when the transition completed")
		requireActions(t, c, in.ID, compute.ActionStop, compute.ActionReset)

		require.NoError(t, c.Instances.Stop(ctx, in.ID))
		requireActions(t, c, in.ID)
		step(t, c, in.ID, lifecycleDurations.InstanceStop, compute.InstanceStatusStopping, compute.InstanceStatusStopped)
		requireActions(t, c, in.ID, compute.ActionStart)

		require.NoError(t, c.Instances.Start(ctx, in.ID))
		requireActions(t, c, in.ID, compute.ActionStop)
		step(t, c, in.ID, lifecycleDurations.InstanceStart, compute.InstanceStatusStarting, compute.InstanceStatusActive)

		require.NoError(t, c.Instances.Reset(ctx, in.ID))
		requireActions(t, c, in.ID)
		step(t, c, in.ID, lifecycleDurations.InstanceReset, compute.InstanceStatusResetting, compute.InstanceStatusActive)
		requireActions(t, c, in.ID, compute.ActionStop, compute.ActionReset)

		require.NoError(t, c.Instances.Delete(ctx, in.ID))
		time.Sleep(lifecycleDurations.InstanceDelete - time.Millisecond)
		requireStatus(t, c, in.ID, compute.InstanceStatusDeleting)
		requireActions(t, c, in.ID)
		time.Sleep(time.Millisecond)
		_, err = c.Instances.Get(ctx, in.ID)
		requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)

		// The SDK's waiter rides the same fake clock.
		in = createInstance(t, c)
		got, err = c.Instances.WaitForStatus(ctx, in.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
		assert.Equal(t, compute.InstanceStatusActive, got.Status)
	})
}

// With zero durations (the default) a create responds creating and the next read is active.
func TestLifecycleZeroDurations(t *testing.T) {
	t.Parallel()
	_, c := newFake(t)
	ctx := context.Background()

	in := createInstance(t, c)
	require.Equal(t, compute.InstanceStatusCreating, in.Status)
	requireStatus(t, c, in.ID, compute.InstanceStatusActive)
	require.NoError(t, c.Instances.Stop(ctx, in.ID))
	requireStatus(t, c, in.ID, compute.InstanceStatusStopped)
	fip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	require.Equal(t, compute.FloatingIPStatusCreating, fip.Status)
	got, err := c.FloatingIPs.Get(ctx, fip.ID)
	require.NoError(t, err)
	require.Equal(t, compute.FloatingIPStatusCreated, got.Status)
	require.NotEmpty(t, got.IPAddress)
}

func TestLifecycleFloatingIP(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithDurations(lifecycleDurations))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()

		a := rawAuthed(t, srv, http.MethodPost, "/compute/v1/floating-ips", map[string]any{"name": "ip", "region": "NORD-NO-KRS-1"})
		require.Equal(t, http.StatusCreated, a.Status, "%s", a.Body)
		created := a.object(t)["floating_ip"].(map[string]any)
		id := created["id"].(string)
		assert.Equal(t, "creating", created["status"])
		require.Contains(t, created, "ip_address")
		assert.Nil(t, created["ip_address"], "ip_address is null while creating")
		assert.Nil(t, created["instance"])
		assert.Equal(t, "ipv4", created["version"])
		assert.Equal(t, true, created["is_public"])

		time.Sleep(lifecycleDurations.FloatingIPCreate - time.Millisecond)
		got := rawAuthed(t, srv, http.MethodGet, "/compute/v1/floating-ips/"+id, nil).object(t)["floating_ip"].(map[string]any)
		assert.Equal(t, "creating", got["status"])
		assert.Nil(t, got["ip_address"])

		time.Sleep(time.Millisecond)
		got = rawAuthed(t, srv, http.MethodGet, "/compute/v1/floating-ips/"+id, nil).object(t)["floating_ip"].(map[string]any)
		assert.Equal(t, "created", got["status"])
		addr, ok := got["ip_address"].(string)
		require.True(t, ok, "an address once created: %v", got["ip_address"])
		assert.NotEmpty(t, addr)

		fip, err := c.FloatingIPs.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, addr, fip.IPAddress)
		assert.Equal(t, compute.FloatingIPStatusCreated, fip.Status)

		// The SDK's waiter sees the address appear.
		fip, err = c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip2", Region: "NORD-NO-KRS-1"})
		require.NoError(t, err)
		require.Empty(t, fip.IPAddress)
		fip, err = c.FloatingIPs.WaitForStatus(ctx, fip.ID, compute.FloatingIPStatusCreated)
		require.NoError(t, err)
		assert.NotEmpty(t, fip.IPAddress)
		assert.NotEqual(t, addr, fip.IPAddress, "each floating IP gets its own address")
	})
}

func TestLifecycleSecurityGroup(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithDurations(lifecycleDurations))
		defer srv.Close()
		ctx := context.Background()

		body := map[string]any{"name": "web", "region": "NORD-NO-KRS-1", "rules": []any{
			map[string]any{"protocol": "tcp", "direction": "ingress", "port_range_min": 443, "port_range_max": 443},
		}}
		a := rawAuthed(t, srv, http.MethodPost, "/compute/v1/security-groups", body)
		require.Equal(t, http.StatusCreated, a.Status, "%s", a.Body)
		created := a.object(t)["security_group"].(map[string]any)
		id := created["id"].(string)
		assert.Equal(t, "creating", created["status"], "the create response shows the status")

		// Get and list show the status too, so that a client can poll for it.
		got := rawAuthed(t, srv, http.MethodGet, "/compute/v1/security-groups/"+id, nil).object(t)["security_group"].(map[string]any)
		assert.Equal(t, "creating", got["status"])
		assert.Equal(t, "web", got["name"])
		list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/security-groups", nil).object(t)["security_groups"].([]any)
		require.Len(t, list, 1)
		assert.Equal(t, "creating", list[0].(map[string]any)["status"])

		update := map[string]any{"name": "web", "rules": []any{}}
		a = rawAuthed(t, srv, http.MethodPut, "/compute/v1/security-groups/"+id, update)
		require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
		assert.Equal(t, "creating", a.object(t)["security_group"].(map[string]any)["status"])

		time.Sleep(lifecycleDurations.SecurityGroupCreate)
		a = rawAuthed(t, srv, http.MethodPut, "/compute/v1/security-groups/"+id, update)
		require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
		assert.Equal(t, "created", a.object(t)["security_group"].(map[string]any)["status"], "the update response shows the status")
		got = rawAuthed(t, srv, http.MethodGet, "/compute/v1/security-groups/"+id, nil).object(t)["security_group"].(map[string]any)
		assert.Equal(t, "created", got["status"])

		// Through the SDK: the create response carries the status, the waiter treats a get without one
		// as created.
		sg, err := srv.Client().SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "db", Region: "NORD-NO-KRS-1"})
		require.NoError(t, err)
		assert.Equal(t, compute.SecurityGroupStatusCreating, sg.Status)
		_, err = srv.Client().SecurityGroups.WaitForStatus(ctx, sg.ID, compute.SecurityGroupStatusCreated)
		require.NoError(t, err)
	})
}

// Advance completes transitions on the real clock too.
func TestLifecycleAdvanceWithRealClock(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithDurations(computetest.UniformDurations(time.Hour)))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	in := createInstance(t, c)
	fip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	requireStatus(t, c, in.ID, compute.InstanceStatusCreating)

	srv.Advance(30 * time.Minute)
	requireStatus(t, c, in.ID, compute.InstanceStatusCreating)
	srv.Advance(30 * time.Minute)
	got, err := c.Instances.Get(ctx, in.ID)
	require.NoError(t, err)
	require.Equal(t, compute.InstanceStatusActive, got.Status)
	assert.GreaterOrEqual(t, got.UpdatedAt.Sub(got.CreatedAt), time.Hour, "timestamps follow the advanced clock")
	gotFIP, err := c.FloatingIPs.Get(ctx, fip.ID)
	require.NoError(t, err)
	assert.Equal(t, compute.FloatingIPStatusCreated, gotFIP.Status)
	assert.NotEmpty(t, gotFIP.IPAddress)

	require.NoError(t, c.Instances.Stop(ctx, in.ID))
	requireStatus(t, c, in.ID, compute.InstanceStatusStopping)
	srv.Advance(time.Hour)
	requireStatus(t, c, in.ID, compute.InstanceStatusStopped)

	require.NoError(t, c.Instances.Delete(ctx, in.ID))
	requireStatus(t, c, in.ID, compute.InstanceStatusDeleting)
	srv.Advance(2 * time.Hour)
	_, err = c.Instances.Get(ctx, in.ID)
	requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)

	// A negative duration is ignored: the clock never goes back, so what is created next is stamped
	// no earlier than what came before, and its transition still takes its whole duration.
	before, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "clock", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	srv.Advance(-time.Hour)
	in = createInstance(t, c)
	assert.False(t, in.CreatedAt.Before(before.CreatedAt), "created %s, before the clock's %s", in.CreatedAt, before.CreatedAt)
	requireStatus(t, c, in.ID, compute.InstanceStatusCreating)
	srv.Advance(time.Hour - time.Second)
	requireStatus(t, c, in.ID, compute.InstanceStatusCreating)
	srv.Advance(time.Second)
	requireStatus(t, c, in.ID, compute.InstanceStatusActive)
}

// GET actions lists exactly the actions the status allows.
func TestLifecycleActionsPerStatus(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	in := activeInstance(t, c)

	want := map[compute.InstanceStatus][]compute.InstanceAction{
		compute.InstanceStatusActive:   {compute.ActionStop, compute.ActionReset},
		compute.InstanceStatusStopped:  {compute.ActionStart},
		compute.InstanceStatusStarting: {compute.ActionStop},
		compute.InstanceStatusError:    {compute.ActionStop},
	}
	for _, st := range []compute.InstanceStatus{
		compute.InstanceStatusCreating, compute.InstanceStatusPendingPayment, compute.InstanceStatusActive,
		compute.InstanceStatusStopping, compute.InstanceStatusStopped, compute.InstanceStatusStarting,
		compute.InstanceStatusResetting, compute.InstanceStatusError, compute.InstanceStatusDeleting,
	} {
		require.True(t, srv.SetInstanceStatus(in.ID, st))
		requireActions(t, c, in.ID, want[st]...)

		// The raw response is a JSON array, never null.
		a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances/"+in.ID+"/actions", nil)
		require.Equal(t, http.StatusOK, a.Status)
		actions, ok := a.object(t)["actions"].([]any)
		require.True(t, ok, "%s: %s", st, a.Body)
		assert.Len(t, actions, len(want[st]))

		// Each listed action is accepted; a stop or reset not listed is 02009.
		for _, act := range []compute.InstanceAction{compute.ActionStop, compute.ActionReset} {
			if slices.Contains(want[st], act) {
				continue
			}
			err := c.Instances.PerformAction(context.Background(), in.ID, act)
			requireAPIError(t, err, http.StatusBadRequest, compute.CodeNotAllowed)
		}
	}
	require.False(t, srv.SetInstanceStatus("ins-999999", compute.InstanceStatusActive))

	// A stop while starting or in error is accepted, as the service's Terraform provider sends it.
	for _, st := range []compute.InstanceStatus{compute.InstanceStatusStarting, compute.InstanceStatusError} {
		require.True(t, srv.SetInstanceStatus(in.ID, st))
		require.NoError(t, c.Instances.Stop(context.Background(), in.ID), st)
		requireStatus(t, c, in.ID, compute.InstanceStatusStopped)
	}
}

// A snapshot joins the image list as type snapshot and can be the image of a new instance.
func TestLifecycleSnapshotAsImage(t *testing.T) {
	t.Parallel()
	_, c := newFake(t)
	ctx := context.Background()

	src := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.DiskSize = 120 })
	snap, err := c.Snapshots.Create(ctx, src.ID, &compute.SnapshotCreateRequest{Name: "golden", ReplicatedRegion: "EUC-DE-MUC-1"})
	require.NoError(t, err)
	assert.Equal(t, int64(120), snap.Size)
	assert.Equal(t, "NORD-NO-KRS-1", snap.Region)
	assert.Equal(t, src.ID, snap.SourceInstanceID)
	assert.Equal(t, "linux", snap.OSType)

	page, err := c.Images.List(ctx, &compute.ImageListOptions{Type: compute.ImageTypeSnapshot})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	img := page.Items[0]
	assert.Equal(t, snap.ID, img.ID)
	assert.Equal(t, "golden", img.Name)
	assert.Equal(t, compute.ImageTypeSnapshot, img.Type)
	assert.Equal(t, []string{"NORD-NO-KRS-1", "EUC-DE-MUC-1"}, img.Regions)
	assert.Equal(t, "ubuntu", img.Family)

	all, err := c.Images.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, len(computetest.DefaultCatalog().Images)+1, all.TotalCount)
	assert.Equal(t, snap.ID, all.Items[len(all.Items)-1].ID, "snapshots come after the catalogue")

	// The snapshot is a usable image, in its region and the replicated one.
	for _, region := range []string{"NORD-NO-KRS-1", "EUC-DE-MUC-1"} {
		in, err := c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
			r.Image, r.Region = snap.ID, region
		}))
		require.NoError(t, err, region)
		assert.Equal(t, compute.Ref{ID: snap.ID, Name: "golden"}, in.Image)
		assert.Equal(t, 120, in.DiskSize, "the disk is at least the snapshot's size")
	}
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.Image, r.Region = snap.ID, "NA-CA-FTS-1"
	}))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeRegionsMismatch)
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.Image, r.DiskSize = snap.ID, 100
	}))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeInsufficientDiskSize)

	// A snapshot inherits its image's type rule, and outlives its instance.
	win := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.Image, r.Type = "img-windows-2022", "vcpu-4_memory-8g" })
	winSnap, err := c.Snapshots.Create(ctx, win.ID, &compute.SnapshotCreateRequest{Name: "win"})
	require.NoError(t, err)
	assert.Equal(t, "windows", winSnap.OSType)
	require.NoError(t, c.Instances.Delete(ctx, win.ID))
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) { r.Image = winSnap.ID }))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeImageIncompatible)
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.Image, r.Type = winSnap.ID, "vcpu-4_memory-8g"
	}))
	require.NoError(t, err)

	snaps, err := c.Snapshots.ListByInstance(ctx, src.ID, nil)
	require.NoError(t, err)
	require.Len(t, snaps.Items, 1)
	assert.Equal(t, src.ID, snaps.Items[0].ResourceID)
}

// Destroying an instance leaves its volumes available and its floating IP unattached.
func TestLifecycleDestroyReleasesVolumesAndFloatingIP(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer(computetest.WithDurations(computetest.Durations{InstanceDelete: time.Hour}))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	volumeStatuses := func() map[string]string {
		out := map[string]string{}
		for _, v := range srv.Catalog().Volumes {
			out[v.ID] = v.Status
		}
		return out
	}

	fip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	in := activeInstance(t, c, func(r *compute.InstanceCreateRequest) {
		r.Volumes, r.FloatingIP = []string{"vol-data-1", "vol-data-2"}, fip.ID
	})
	vs := volumeStatuses()
	assert.Equal(t, computetest.VolumeInUse, vs["vol-data-1"])
	assert.Equal(t, computetest.VolumeInUse, vs["vol-data-2"])
	gotFIP, err := c.FloatingIPs.Get(ctx, fip.ID)
	require.NoError(t, err)
	require.Equal(t, &compute.Ref{ID: in.ID, Name: in.Name}, gotFIP.Instance)
	assert.Equal(t, gotFIP.IPAddress, in.PublicIP, "the floating IP is the public address")

	require.NoError(t, c.Instances.Delete(ctx, in.ID))
	requireStatus(t, c, in.ID, compute.InstanceStatusDeleting)
	assert.Equal(t, computetest.VolumeInUse, volumeStatuses()["vol-data-1"], "held until the destroy completes")

	srv.Advance(time.Hour)
	vs = volumeStatuses()
	assert.Equal(t, computetest.VolumeAvailable, vs["vol-data-1"])
	assert.Equal(t, computetest.VolumeAvailable, vs["vol-data-2"])
	assert.Equal(t, computetest.VolumeLocked, vs["vol-locked"])
	_, err = c.Instances.Get(ctx, in.ID)
	requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
	gotFIP, err = c.FloatingIPs.Get(ctx, fip.ID)
	require.NoError(t, err)
	assert.Nil(t, gotFIP.Instance)
	assert.NotEmpty(t, gotFIP.IPAddress, "the floating IP keeps its address")

	// Both can be used again.
	again := activeInstance(t, c, func(r *compute.InstanceCreateRequest) {
		r.Volumes, r.FloatingIP = []string{"vol-data-1"}, fip.ID
	})
	assert.Equal(t, &compute.Ref{ID: fip.ID, Name: "ip"}, again.FloatingIP)
}
