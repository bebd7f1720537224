package compute_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// code returns the service's error code carried by err, "" if there is none.
func code(err error) compute.ErrorCode {
	var apiErr *compute.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code
	}
	return ""
}

// TestLifecycleAgainstTheFake drives every operation of the SDK end to end against computetest, with
// transitions that take time (fake time, in a synctest bubble), through the full lifecycle: security
// group and floating IP, an instance with both, snapshot, stop, start, reset, update, a refused and
// then an allowed destroy, and the wait until the instance is gone.
func TestLifecycleAgainstTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithDurations(computetest.UniformDurations(20*time.Second)))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		start := time.Now()

		spec, err := c.OpenAPI(ctx)
		require.NoError(t, err)
		assert.Contains(t, string(spec), "/instances/{id}/actions")

		images, err := c.Images.List(ctx, &compute.ImageListOptions{Type: compute.ImageTypeBaseOS})
		require.NoError(t, err)
		require.NotEmpty(t, images.Items)
		for _, im := range images.Items {
			assert.Equal(t, compute.ImageTypeBaseOS, im.Type)
		}
		var allImages int
		for _, err := range c.Images.All(ctx, &compute.ImageListOptions{ListOptions: compute.ListOptions{PerPage: 2}}) {
			require.NoError(t, err)
			allImages++
		}
		assert.Equal(t, len(srv.Catalog().Images), allImages)

		// A security group and a floating IP, each waited for.
		ssh := compute.SecurityGroupRule{Protocol: compute.ProtocolTCP, Direction: compute.DirectionIngress,
			PortRangeMin: compute.Ptr(22), PortRangeMax: compute.Ptr(22)}
		sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{
			Name: "web", Description: "ssh in", Region: "NORD-NO-KRS-1", Rules: []compute.SecurityGroupRule{ssh}})
		require.NoError(t, err)
		assert.Equal(t, compute.SecurityGroupStatusCreating, sg.Status)
		// The contract's get responses carry no status, so the waiter reads the group as created at
		// once (see SecurityGroupsService.WaitForStatus); only create and update responses show it.
		_, err = c.SecurityGroups.WaitForStatus(ctx, sg.ID, compute.SecurityGroupStatusCreated)
		require.NoError(t, err)
		time.Sleep(20 * time.Second) // fake time: the group's transition
		sg, err = c.SecurityGroups.Update(ctx, sg.ID, &compute.SecurityGroupUpdateRequest{
			Name: "web", Description: "ssh and http", Rules: []compute.SecurityGroupRule{ssh,
				{Protocol: compute.ProtocolTCP, Direction: compute.DirectionIngress, PortRangeMin: compute.Ptr(80), PortRangeMax: compute.Ptr(80)}}})
		require.NoError(t, err)
		assert.Len(t, sg.Rules, 2)
		assert.Equal(t, compute.SecurityGroupStatusCreated, sg.Status)

		fip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "web-ip", Region: "NORD-NO-KRS-1"})
		require.NoError(t, err)
		assert.Equal(t, compute.FloatingIPStatusCreating, fip.Status)
		assert.Empty(t, fip.IPAddress)
		var fipStatuses []compute.FloatingIPStatus
		fip, err = c.FloatingIPs.WaitForStatus(ctx, fip.ID, compute.FloatingIPStatusCreated,
			compute.OnUpdate(func(f *compute.FloatingIP) { fipStatuses = append(fipStatuses, f.Status) }))
		require.NoError(t, err)
		assert.NotEmpty(t, fip.IPAddress)
		assert.Equal(t, compute.FloatingIPStatusCreating, fipStatuses[0], "the wait polled through creating")
		fip, err = c.FloatingIPs.Update(ctx, fip.ID, &compute.FloatingIPUpdateRequest{Description: compute.Ptr("front door")})
		require.NoError(t, err)
		assert.Equal(t, "front door", fip.Description)

		// The instance, with both, waited for until active.
		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
			Name: "web-1", Hostname: "web-1", Type: "vcpu-4_memory-8g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04",
			SSHKeys: []string{"key-ci"}, SecurityGroups: []string{sg.ID}, FloatingIP: fip.ID,
			Volumes: []string{"vol-data-1"}})
		require.NoError(t, err)
		assert.Equal(t, compute.InstanceStatusCreating, inst.Status)
		var seen []compute.InstanceStatus
		inst, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive,
			compute.OnUpdate(func(i *compute.Instance) { seen = append(seen, i.Status) }))
		require.NoError(t, err)
		assert.Equal(t, compute.InstanceStatusCreating, seen[0])
		assert.Equal(t, fip.IPAddress, inst.PublicIP, "the floating IP is the public address")
		require.NotNil(t, inst.FloatingIP)
		assert.Equal(t, fip.ID, inst.FloatingIP.ID)
		fip, err = c.FloatingIPs.Get(ctx, fip.ID)
		require.NoError(t, err)
		require.NotNil(t, fip.Instance)
		assert.Equal(t, inst.ID, fip.Instance.ID)
		actions, err := c.Instances.Actions(ctx, inst.ID)
		require.NoError(t, err)
		assert.ElementsMatch(t, []compute.InstanceAction{compute.ActionStop, compute.ActionReset}, actions)

		// Snapshot, visible per instance and as an image.
		snap, err := c.Snapshots.Create(ctx, inst.ID, &compute.SnapshotCreateRequest{Name: "web-1-base"})
		require.NoError(t, err)
		assert.Equal(t, inst.ID, snap.SourceInstanceID)
		snaps, err := c.Snapshots.ListByInstance(ctx, inst.ID, nil)
		require.NoError(t, err)
		require.Len(t, snaps.Items, 1)
		assert.Equal(t, snap.ID, snaps.Items[0].ID)
		for s, err := range c.Snapshots.AllByInstance(ctx, inst.ID, nil) {
			require.NoError(t, err)
			assert.Equal(t, snap.ID, s.ID)
		}
		snapImages, err := c.Images.List(ctx, &compute.ImageListOptions{Type: compute.ImageTypeSnapshot})
		require.NoError(t, err)
		require.Len(t, snapImages.Items, 1)
		assert.Equal(t, snap.ID, snapImages.Items[0].ID)

		// Stop, start, reset, each waited for.
		require.NoError(t, c.Instances.Stop(ctx, inst.ID))
		_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusStopped)
		require.NoError(t, err)
		actions, err = c.Instances.Actions(ctx, inst.ID)
		require.NoError(t, err)
		assert.Equal(t, []compute.InstanceAction{compute.ActionStart}, actions)
		require.NoError(t, c.Instances.Start(ctx, inst.ID))
		_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
		require.NoError(t, c.Instances.PerformAction(ctx, inst.ID, compute.ActionReset))
		_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
		require.NoError(t, err)

		// Update: rename, protect, grow the disk, replace the security groups.
		sg2, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "db", Region: "NORD-NO-KRS-1"})
		require.NoError(t, err)
		inst, err = c.Instances.Update(ctx, inst.ID, &compute.InstanceUpdateRequest{
			Name: compute.Ptr("web-1-renamed"), IsProtected: compute.Ptr(true), DiskSize: compute.Ptr(160),
			SecurityGroups: []string{sg2.ID}})
		require.NoError(t, err)
		assert.Equal(t, "web-1-renamed", inst.Name)
		assert.Equal(t, "web-1", inst.Hostname, "renaming keeps the hostname")
		assert.True(t, inst.IsProtected)
		assert.Equal(t, 160, inst.DiskSize)
		assert.Equal(t, []compute.Ref{{ID: sg2.ID, Name: "db"}}, inst.SecurityGroups)

		// Lists and walks see it.
		page, err := c.Instances.List(ctx, &compute.ListOptions{PerPage: 10})
		require.NoError(t, err)
		assert.Equal(t, 1, page.TotalCount)
		for i, err := range c.Instances.All(ctx, nil) {
			require.NoError(t, err)
			assert.Equal(t, inst.ID, i.ID)
		}
		for _, list := range []func() (int, error){
			func() (int, error) { p, err := c.SecurityGroups.List(ctx, nil); return countOr(p, err) },
			func() (int, error) { p, err := c.FloatingIPs.List(ctx, nil); return countOr(p, err) },
			func() (int, error) { return walked(c.SecurityGroups.All(ctx, nil)) },
			func() (int, error) { return walked(c.FloatingIPs.All(ctx, nil)) },
		} {
			n, err := list()
			require.NoError(t, err)
			assert.Positive(t, n)
		}

		// Destroy: refused while protected, allowed after; then wait until it is gone.
		err = c.Instances.Delete(ctx, inst.ID)
		require.ErrorIs(t, err, compute.CodeTerminationProtected)
		assert.Equal(t, compute.CodeTerminationProtected, code(err))
		_, err = c.Instances.Update(ctx, inst.ID, &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)})
		require.NoError(t, err)
		require.NoError(t, c.Instances.Delete(ctx, inst.ID))
		require.NoError(t, c.Instances.WaitForDeletion(ctx, inst.ID))
		_, err = c.Instances.Get(ctx, inst.ID)
		require.ErrorIs(t, err, compute.ErrNotFound)
		assert.Equal(t, compute.CodeInstanceNotFound, code(err))

		// What the instance held is free again: the floating IP and both groups can go.
		fip, err = c.FloatingIPs.Get(ctx, fip.ID)
		require.NoError(t, err)
		assert.Nil(t, fip.Instance)
		require.NoError(t, c.FloatingIPs.Delete(ctx, fip.ID))
		require.NoError(t, c.SecurityGroups.Delete(ctx, sg.ID))
		require.NoError(t, c.SecurityGroups.Delete(ctx, sg2.ID))
		_, err = c.SecurityGroups.Get(ctx, sg.ID)
		assert.Equal(t, compute.CodeSecurityGroupNotFound, code(err))
		_, err = c.FloatingIPs.Get(ctx, fip.ID)
		assert.Equal(t, compute.CodeFloatingIPNotFound, code(err))

		// The snapshot outlives its instance and can build a new one.
		again, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
			Name: "web-2", Hostname: "web-2", Type: "vcpu-4_memory-8g", Region: "NORD-NO-KRS-1", Image: snap.ID,
			Password: "a-long-enough-password"})
		require.NoError(t, err)
		assert.Equal(t, snap.ID, again.Image.ID)
		assert.Equal(t, int(snap.Size), again.DiskSize, "a disk built from a snapshot is at least its size")

		t.Logf("lifecycle took %s of fake time", time.Since(start))
	})
}

func countOr[T any](p *compute.Page[T], err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return len(p.Items), nil
}

func walked[T any](seq func(func(T, error) bool)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TestDroppedCreatesAreNeverSentTwice: 200 creates are processed by the fake, which then drops the
// connection without a response. Every call must return ErrOutcomeUnknown, and the fake must hold
// exactly 200 instances: the SDK re-sent none of them.
func TestDroppedCreatesAreNeverSentTwice(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	srv.Inject(computetest.Rule{Match: computetest.Match{Method: "POST", Path: "/compute/v1/instances"},
		Fault: computetest.Fault{DropAfterProcessing: true}})
	c := srv.Client(compute.WithRetry(compute.RetryPolicy{MaxRetries: 4, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
	ctx := context.Background()

	const n = 200
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = c.Instances.Create(ctx, &compute.InstanceCreateRequest{
				Name: fmt.Sprintf("worker-%03d", i), Hostname: fmt.Sprintf("worker-%03d", i), Type: "vcpu-2_memory-4g",
				Region: "NORD-NO-KRS-1", Image: "debian-12", SSHKeys: []string{"key-ci"}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.ErrorIs(t, err, compute.ErrOutcomeUnknown, "create %d", i)
	}

	srv.ClearFaults()
	names := map[string]int{}
	for inst, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: 100}) {
		require.NoError(t, err)
		names[inst.Name]++
	}
	assert.Len(t, names, n, "every create took effect")
	for name, count := range names {
		assert.Equal(t, 1, count, "%s was created %d times", name, count)
	}
	posts := 0
	for _, r := range srv.Requests() {
		if r.Method == "POST" {
			posts++
		}
	}
	assert.Equal(t, n, posts, "the fake received each create exactly once")
}

// TestPaginationAtEveryPageSize walks 1,000 instances at every page size from 1 to 100: each walk sees
// every instance once, in order, and List's pages carry the right totals.
func TestPaginationAtEveryPageSize(t *testing.T) {
	srv := computetest.NewServer()
	t.Cleanup(srv.Close) // the parallel subtests run after this function returns
	c := srv.Client()
	ctx := context.Background()
	const total = 1000
	want := make([]string, total)
	for i := range total {
		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
			Name: fmt.Sprintf("i-%04d", i), Hostname: "h", Type: "vcpu-2_memory-4g", Region: "EUC-DE-MUC-1",
			Image: "img-debian-12", SSHKeys: []string{"key-laptop"}})
		require.NoError(t, err)
		want[i] = inst.ID
	}
	for size := 1; size <= 100; size++ {
		t.Run(fmt.Sprintf("per_page=%d", size), func(t *testing.T) {
			t.Parallel()
			got := make([]string, 0, total)
			for inst, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: size}) {
				require.NoError(t, err)
				got = append(got, inst.ID)
			}
			require.Equal(t, want, got)

			last := (total + size - 1) / size
			p, err := c.Instances.List(ctx, &compute.ListOptions{PerPage: size, Page: last})
			require.NoError(t, err)
			assert.Equal(t, total, p.TotalCount)
			assert.Equal(t, last, p.Page)
			assert.Len(t, p.Items, total-(last-1)*size)
			assert.False(t, p.HasNext())
		})
	}
}
