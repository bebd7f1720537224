package compute_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SDK end to end against computetest, in package compute_test since computetest imports the
// SDK: every operation's lifecycle, creates dropped after processing, every page size, 64 goroutines
// under faults, and the life of each extended resource.

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

// typed reports whether err is one a caller can act on: an *APIError, an unknown outcome, or a
// wrapped transport error (*url.Error), never a bare string.
func typed(err error) bool {
	var apiErr *compute.APIError
	var urlErr *url.Error
	return errors.As(err, &apiErr) || errors.Is(err, compute.ErrOutcomeUnknown) || errors.As(err, &urlErr)
}

// TestSixtyFourGoroutinesUnderFaults shares one client between 64 goroutines making 10,000 mixed
// calls against computetest while about 5% of requests hit a fault (a 503, a 429, a dropped
// connection, a request processed whose response is lost). No call may create twice, every error must
// be typed, and no goroutine may be left behind. -race checks the rest.
func TestSixtyFourGoroutinesUnderFaults(t *testing.T) {
	before := runtime.NumGoroutine()
	srv := computetest.NewServer(computetest.WithSeed(64))
	for _, r := range []computetest.Rule{
		{Probability: 0.015, Fault: computetest.Fault{Status: 503, Code: compute.CodeOutOfStock, Message: "busy"}},
		{Probability: 0.01, Fault: computetest.Fault{Status: 429, RetryAfter: "1"}},
		{Probability: 0.01, Fault: computetest.Fault{Drop: true}},
		{Probability: 0.015, Fault: computetest.Fault{DropAfterProcessing: true}},
	} {
		srv.Inject(r)
	}
	// Short waits keep the run quick: MaxWait also caps the 429's Retry-After.
	c := srv.Client(compute.WithRetry(compute.RetryPolicy{MaxRetries: 4, MinWait: time.Millisecond, MaxWait: 3 * time.Millisecond}))
	ctx := context.Background()

	const workers, calls = 64, 10_000
	var (
		next    atomic.Int64
		creates atomic.Int64
		unknown atomic.Int64
		failed  atomic.Int64
		mu      sync.Mutex
		untyped []error
		wg      sync.WaitGroup
	)
	check := func(err error) {
		if err == nil {
			return
		}
		failed.Add(1)
		if errors.Is(err, compute.ErrOutcomeUnknown) {
			unknown.Add(1)
		}
		if !typed(err) {
			mu.Lock()
			untyped = append(untyped, err)
			mu.Unlock()
		}
	}
	for w := range workers {
		wg.Go(func() {
			var mine []string // instances this worker knows it created
			for {
				n := next.Add(1)
				if n > calls {
					return
				}
				switch {
				case n%10 == 0 || len(mine) == 0:
					name := fmt.Sprintf("w%02d-%05d", w, n)
					inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: name, Hostname: name,
						Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12", SSHKeys: []string{"key-ci"}})
					creates.Add(1)
					check(err)
					if err == nil {
						mine = append(mine, inst.ID)
					}
				case n%10 == 1:
					_, err := c.Instances.List(ctx, &compute.ListOptions{PerPage: 20, Page: int(n%3) + 1})
					check(err)
				case n%10 == 2:
					_, err := c.Instances.Update(ctx, mine[len(mine)-1], &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(n%4 == 0)})
					check(err)
				case n%10 == 3:
					_, err := c.Instances.Actions(ctx, mine[0])
					check(err)
				case n%10 == 4:
					_, err := c.Images.List(ctx, &compute.ImageListOptions{Type: compute.ImageTypeBaseOS})
					check(err)
				case n%10 == 5 && len(mine) > 3:
					id := mine[0]
					mine = mine[1:]
					_, err := c.Instances.Update(ctx, id, &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)})
					check(err)
					check(c.Instances.Delete(ctx, id))
				default:
					_, err := c.Instances.Get(ctx, mine[len(mine)-1])
					check(err)
				}
			}
		})
	}
	wg.Wait()
	srv.ClearFaults()

	// No create took effect twice: every name is unique in the fake.
	names := map[string]int{}
	for inst, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: 100}) {
		require.NoError(t, err)
		names[inst.Name]++
	}
	for name, count := range names {
		require.Equal(t, 1, count, "instance %s exists %d times", name, count)
	}
	// A create may be sent again only when the fake responded 429 (not processed, so the SDK retries
	// it, as the contract allows); it is never processed twice.
	processed, resent := map[string]int{}, map[string][]int{}
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Path == "/compute/v1/instances" {
			resent[string(r.Body)] = append(resent[string(r.Body)], r.Status)
			if r.Processed {
				processed[string(r.Body)]++
			}
		}
	}
	for body, statuses := range resent {
		require.LessOrEqual(t, processed[body], 1, "a create was processed twice: %s", body)
		for _, st := range statuses[:len(statuses)-1] {
			require.Equal(t, 429, st, "a create was re-sent after a response other than 429 (%v): %s", statuses, body)
		}
	}
	assert.Empty(t, untyped, "every error is an *APIError, an unknown outcome or a *url.Error")
	assert.Positive(t, unknown.Load(), "the faults did hit creates")

	// No goroutine is left once the server and the idle connections are closed.
	srv.HTTPClient().CloseIdleConnections()
	srv.Close()
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		// Bounded polling, not a timed assertion: connection goroutines exit as their sockets close,
		// which takes a scheduling round or two.
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, after, before, "goroutines leaked")
	t.Logf("%d calls (%d creates, %d errors of which %d unknown outcomes); %d instances, none twice; goroutines before %d, after %d",
		calls, creates.Load(), failed.Load(), unknown.Load(), len(names), before, after)
}

// Lifecycle tests of SSH keys, volumes, filesystems and snapshots against computetest. Each runs
// the whole life of one resource, create, wait, read, update, list, delete and the 404 after it,
// plus the relation rules that concern it, each asserting the typed error code.

// lifecycleFake runs f against a fake whose transitions take 20 s of fake time.
func lifecycleFake(t *testing.T, f func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client)) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithDurations(computetest.UniformDurations(20*time.Second)))
		defer srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		f(t, ctx, srv, srv.Client())
	})
}

const lifeRegion, lifeType, lifeImage = "NORD-NO-KRS-1", "vcpu-2_memory-4g", "ubuntu-24.04"

const lifeKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH4x9Jk2Q7v5Zp1cW3mN8bR6tY0uE2oI4aS6dF8gH0jK test@ci"

func TestSSHKeyLifecycleAgainstTheFake(t *testing.T) {
	lifecycleFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
		key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: "ci", Value: lifeKey})
		require.NoError(t, err)
		assert.Equal(t, lifeKey, key.Value, "the value comes back byte for byte")
		assert.NotEmpty(t, key.ID)

		got, err := c.SSHKeys.Get(ctx, key.ID)
		require.NoError(t, err)
		assert.Equal(t, key.Value, got.Value)

		renamed, err := c.SSHKeys.Update(ctx, key.ID, &compute.SSHKeyUpdateRequest{Name: "ci-2"})
		require.NoError(t, err)
		assert.Equal(t, "ci-2", renamed.Name)
		assert.Equal(t, lifeKey, renamed.Value)

		var names []string
		for k, err := range c.SSHKeys.All(ctx, nil) {
			require.NoError(t, err)
			names = append(names, k.Name)
		}
		assert.Contains(t, names, "ci-2")

		// An instance takes the key by ID and shows it as {id, name}; an unknown key is refused.
		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "k-1", Hostname: "k-1",
			Type: lifeType, Region: lifeRegion, Image: lifeImage, SSHKeys: []string{key.ID}})
		require.NoError(t, err)
		assert.Contains(t, inst.SSHKeys, compute.Ref{ID: key.ID, Name: "ci-2"})
		_, err = c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "k-2", Hostname: "k-2",
			Type: lifeType, Region: lifeRegion, Image: lifeImage, SSHKeys: []string{"no-such-key"}})
		requireCode(t, err, http.StatusBadRequest, compute.CodeSSHKeyNotFound)

		require.NoError(t, c.SSHKeys.Delete(ctx, key.ID))
		_, err = c.SSHKeys.Get(ctx, key.ID)
		require.ErrorIs(t, err, compute.CodeSSHKeyNotFound)
		require.ErrorIs(t, err, compute.ErrNotFound)
	})
}

func TestVolumeLifecycleAgainstTheFake(t *testing.T) {
	lifecycleFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
		vol, err := c.Volumes.Create(ctx, &compute.VolumeCreateRequest{Name: "data", Region: lifeRegion, Size: 10, Type: compute.VolumeTypeSSD})
		require.NoError(t, err)
		assert.Equal(t, compute.VolumeStatusCreating, vol.Status)

		vol, err = c.Volumes.WaitForStatus(ctx, vol.ID, compute.VolumeStatusCreated)
		require.NoError(t, err)
		assert.True(t, vol.Available(), "a new volume reaches created and is attachable")

		grown, err := c.Volumes.Update(ctx, vol.ID, &compute.VolumeUpdateRequest{Size: compute.Ptr(20), Name: compute.Ptr("data-2")})
		require.NoError(t, err)
		assert.Equal(t, 20, grown.Size)
		_, err = c.Volumes.Update(ctx, vol.ID, &compute.VolumeUpdateRequest{Size: compute.Ptr(15)})
		requireCode(t, err, http.StatusBadRequest, compute.CodeBadRequest) // a volume only grows

		page, err := c.Volumes.List(ctx, nil)
		require.NoError(t, err)
		assert.True(t, slices.ContainsFunc(page.Items, func(v compute.Volume) bool { return v.ID == vol.ID }))

		// Attached, it shows on both sides and cannot be deleted (02022); detached, it can.
		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "v-1", Hostname: "v-1",
			Type: lifeType, Region: lifeRegion, Image: lifeImage, Password: "a-long-enough-password"})
		require.NoError(t, err)
		_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
		inst, err = c.Instances.AttachVolume(ctx, inst.ID, vol.ID)
		require.NoError(t, err)
		assert.Contains(t, inst.Volumes, compute.Ref{ID: vol.ID, Name: "data-2"})
		vol, err = c.Volumes.Get(ctx, vol.ID)
		require.NoError(t, err)
		assert.Equal(t, []compute.Ref{{ID: inst.ID, Name: "v-1"}}, vol.Instances)
		assert.False(t, vol.Available())
		require.ErrorIs(t, c.Volumes.Delete(ctx, vol.ID), compute.CodeAttachedVolumeNotDeletable)

		_, err = c.Instances.DetachVolume(ctx, inst.ID, vol.ID)
		require.NoError(t, err)
		vol, err = c.Volumes.Get(ctx, vol.ID)
		require.NoError(t, err)
		assert.Empty(t, vol.Instances)

		// Deleting the instance releases its volumes: once it is gone, the volume can be deleted.
		_, err = c.Instances.AttachVolume(ctx, inst.ID, vol.ID)
		require.NoError(t, err)
		require.NoError(t, c.Instances.Delete(ctx, inst.ID))
		require.NoError(t, c.Instances.WaitForDeletion(ctx, inst.ID))
		vol, err = c.Volumes.Get(ctx, vol.ID)
		require.NoError(t, err)
		assert.Empty(t, vol.Instances)
		assert.True(t, vol.Available())
		require.NoError(t, c.Volumes.Delete(ctx, vol.ID))
		_, err = c.Volumes.WaitForStatus(ctx, vol.ID, compute.VolumeStatus("gone"))
		require.ErrorIs(t, err, compute.CodeVolumeNotFound, "404 after delete")
	})
}

func TestFilesystemLifecycleAgainstTheFake(t *testing.T) {
	lifecycleFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
		fs, err := c.Filesystems.Create(ctx, &compute.FilesystemCreateRequest{Name: "shared", Region: lifeRegion, Size: 100})
		require.NoError(t, err)
		fs, err = c.Filesystems.WaitForStatus(ctx, fs.ID, compute.FilesystemStatusCreated)
		require.NoError(t, err)
		assert.NotEmpty(t, fs.MountBasePath, "a created filesystem has its mount path")

		fs, err = c.Filesystems.Update(ctx, fs.ID, &compute.FilesystemUpdateRequest{Description: compute.Ptr("models")})
		require.NoError(t, err)
		assert.Equal(t, "models", fs.Description)

		page, err := c.Filesystems.List(ctx, nil)
		require.NoError(t, err)
		assert.True(t, slices.ContainsFunc(page.Items, func(f compute.Filesystem) bool { return f.ID == fs.ID }))

		require.NoError(t, c.Filesystems.Delete(ctx, fs.ID))
		_, err = c.Filesystems.Get(ctx, fs.ID)
		require.ErrorIs(t, err, compute.ErrNotFound, "the contract has no filesystem code: a 404")
	})
}

func TestSnapshotCollectionLifecycleAgainstTheFake(t *testing.T) {
	lifecycleFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
		_, err := c.Snapshots.List(ctx, nil)
		require.NoError(t, err)

		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "s-1", Hostname: "s-1",
			Type: lifeType, Region: lifeRegion, Image: lifeImage, Password: "a-long-enough-password"})
		require.NoError(t, err)
		_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
		snap, err := c.Snapshots.Create(ctx, inst.ID, &compute.SnapshotCreateRequest{Name: "before"})
		require.NoError(t, err)
		snap, err = c.Snapshots.WaitForStatus(ctx, snap.ID, compute.SnapshotStatusCreated)
		require.NoError(t, err)
		assert.Equal(t, inst.ID, snap.SourceInstanceID)

		renamed, err := c.Snapshots.Update(ctx, snap.ID, &compute.SnapshotUpdateRequest{Name: "golden"})
		require.NoError(t, err)
		assert.Equal(t, "golden", renamed.Name)

		clone, err := c.Snapshots.Clone(ctx, snap.ID, &compute.SnapshotCloneRequest{Name: "golden-copy", Region: lifeRegion})
		require.NoError(t, err)
		clone, err = c.Snapshots.WaitForStatus(ctx, clone.ID, compute.SnapshotStatusCreated)
		require.NoError(t, err)
		assert.Equal(t, snap.ID, clone.SourceSnapshotID)

		var ids []string
		for s, err := range c.Snapshots.All(ctx, nil) {
			require.NoError(t, err)
			ids = append(ids, s.ID)
		}
		assert.Subset(t, ids, []string{snap.ID, clone.ID})

		// In use as an instance's image, the snapshot cannot be deleted (02016).
		from, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "s-2", Hostname: "s-2",
			Type: lifeType, Region: lifeRegion, Image: snap.ID, Password: "a-long-enough-password"})
		require.NoError(t, err)
		require.ErrorIs(t, c.Snapshots.Delete(ctx, snap.ID), compute.CodeSnapshotInUse)
		_, err = c.Instances.WaitForStatus(ctx, from.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
		require.NoError(t, c.Instances.Delete(ctx, from.ID))
		require.NoError(t, c.Instances.WaitForDeletion(ctx, from.ID))

		for _, id := range []string{clone.ID, snap.ID} {
			require.NoError(t, c.Snapshots.Delete(ctx, id))
			_, err = c.Snapshots.WaitForStatus(ctx, id, compute.SnapshotStatus("gone"))
			require.ErrorIs(t, err, compute.CodeSnapshotNotFound, "404 after delete")
		}
	})
}

func TestAccountReadsAgainstTheFake(t *testing.T) {
	lifecycleFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
		_, err := c.Quotas.List(ctx)
		require.NoError(t, err)
		_, err = c.Reservations.List(ctx)
		require.NoError(t, err)
		a, err := c.Availability.Instances(ctx, lifeRegion, nil)
		require.NoError(t, err)
		assert.Equal(t, lifeRegion, a.Region)
		assert.NotEmpty(t, a.InstanceTypes)

		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "m-1", Hostname: "m-1",
			Type: lifeType, Region: lifeRegion, Image: lifeImage, Password: "a-long-enough-password",
			Metadata: &compute.InstanceMetadata{UserData: []compute.UserDataItem{{Type: "text/cloud-config", Content: "#cloud-config\n"}}}})
		require.NoError(t, err)
		md, err := c.Instances.UserMetadata(ctx, inst.ID)
		require.NoError(t, err)
		assert.Contains(t, md, "user_data", "the fake's user metadata is the metadata given at create")
		_, err = c.Instances.UserMetadata(ctx, "no-such-instance")
		requireCode(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
	})
}

func TestQuotasCountAndRefuseAgainstTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithLimits(computetest.Limits{MaxFilesystems: 1, MaxSnapshots: 1}))
		defer srv.Close()
		ctx, c := context.Background(), srv.Client()
		used := func(key string) int {
			t.Helper()
			qs, err := c.Quotas.List(ctx)
			require.NoError(t, err)
			i := slices.IndexFunc(qs, func(q compute.Quota) bool { return q.Key == key })
			require.GreaterOrEqual(t, i, 0, "quota %q", key)
			return qs[i].Used
		}
		require.Equal(t, 0, used("filesystems"))
		_, err := c.Filesystems.Create(ctx, &compute.FilesystemCreateRequest{Name: "a", Region: lifeRegion, Size: 1})
		require.NoError(t, err)
		require.Equal(t, 1, used("filesystems"))
		_, err = c.Filesystems.Create(ctx, &compute.FilesystemCreateRequest{Name: "b", Region: lifeRegion, Size: 1})
		requireCode(t, err, http.StatusBadRequest, compute.CodeMaxQuotaReached)

		_, err = c.Snapshots.Import(ctx, &compute.SnapshotImportRequest{Name: "a", Region: lifeRegion, Size: 1, URL: "https://example.com/a.raw"})
		require.NoError(t, err)
		_, err = c.Snapshots.Import(ctx, &compute.SnapshotImportRequest{Name: "b", Region: lifeRegion, Size: 1, URL: "https://example.com/b.raw"})
		requireCode(t, err, http.StatusBadRequest, compute.CodeMaxQuotaReached)
		require.Equal(t, 1, used("snapshots"))
	})
}

// requireCode checks that err is an *APIError with this status and code.
func requireCode(t *testing.T, err error, status int, code compute.ErrorCode) {
	t.Helper()
	var apiErr *compute.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, code, apiErr.Code, "%v", err)
	assert.Equal(t, status, apiErr.StatusCode, "%v", err)
}

// TestFleetWaitsWithinTheBudget is a fleet written the way a script or a provider writes it: one
// goroutine per instance creates it, waits until it is active, deletes it and waits until it is
// gone, all through one client with its defaults, against a service that enforces 10 requests per
// second with no burst and takes 30 s per transition, in the virtual time of testing/synctest.
// The floor is what the budget and the transitions allow: the creates need (n-1) x 100 ms and the
// last one still takes 30 s up and 30 s down. It logs, for BENCHMARKS.md, the time over the floor
// and the GETs of one instance per instance, and holds them to 1.10 and 2.
func TestFleetWaitsWithinTheBudget(t *testing.T) {
	for _, n := range []int{10, 50, 200} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const transition = 30 * time.Second
				srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithRateLimit(10, 1),
					computetest.WithDurations(computetest.UniformDurations(transition)),
					computetest.WithLimits(computetest.Limits{MaxInstances: n}))
				defer srv.Close()
				c := srv.Client()
				ctx := context.Background()
				start := time.Now()
				var wg sync.WaitGroup
				var failed atomic.Int64
				for i := range n {
					wg.Go(func() {
						inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
							Name: fmt.Sprintf("fleet-%d", i), Hostname: fmt.Sprintf("fleet-%d", i), Type: lifeType,
							Region: lifeRegion, Image: lifeImage, SSHKeys: []string{"key-ci"}})
						if err == nil {
							_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
						}
						if err == nil {
							err = c.Instances.Delete(ctx, inst.ID)
						}
						if err == nil {
							err = c.Instances.WaitForDeletion(ctx, inst.ID)
						}
						if !assert.NoError(t, err) {
							failed.Add(1)
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				floor := time.Duration(n-1)*100*time.Millisecond + 2*transition
				gets, posts, lists := 0, 0, 0
				n429 := 0
				var first time.Time
				for _, r := range srv.Requests() {
					if first.IsZero() {
						first = r.Time
					}
					if r.Status == 429 {
						n429++
					}
					if os.Getenv("FLEET_TRACE") != "" {
						t.Logf("%6.1fs %s %s %d", r.Time.Sub(first).Seconds(), r.Method, r.Path, r.Status)
					}
					switch {
					case r.Method == http.MethodPost:
						posts++
					case r.Method == http.MethodGet && r.Path == "/compute/v1/instances":
						lists++
					case r.Method == http.MethodGet:
						gets++
					}
				}
				t.Logf("n=%d: %s, %.2f x the floor (%s); %.1f GETs and %.2f list pages per instance; %d creates; %d failed; %d 429s",
					n, elapsed.Round(100*time.Millisecond), elapsed.Seconds()/floor.Seconds(), floor,
					float64(gets)/float64(n), float64(lists)/float64(n), posts, failed.Load(), n429)
				assert.Zero(t, failed.Load())
				assert.Equal(t, n, posts, "no create sent twice")
				assert.LessOrEqual(t, elapsed.Seconds()/floor.Seconds(), 1.10)
				if n == 200 {
					assert.LessOrEqual(t, float64(gets)/float64(n), 2.0)
				}
			})
		})
	}
}

// TestDeleteAndWaitFromEachState: an instance that is creating, stopping, protected (active or
// stopped) is deleted once the service lets it, protection removed only when asked; a volume still
// attached waits for its instance; every kind's DeleteAndWait and WaitForDeletion end with the
// resource gone, and an ID already gone is success.
func TestDeleteAndWaitFromEachState(t *testing.T) {
	lifecycleFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
		key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: "k", Value: lifeKey})
		require.NoError(t, err)
		vol, err := c.Volumes.Create(ctx, &compute.VolumeCreateRequest{Name: "v", Region: lifeRegion, Size: 10})
		require.NoError(t, err)
		_, err = c.Volumes.WaitForStatus(ctx, vol.ID, compute.VolumeStatusCreated)
		require.NoError(t, err)
		create := func(name string, protected bool, volumes ...string) *compute.Instance {
			inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: name, Hostname: name, Type: lifeType,
				Region: lifeRegion, Image: lifeImage, SSHKeys: []string{key.ID}, IsProtected: protected, Volumes: volumes})
			require.NoError(t, err)
			return inst
		}
		active := func(inst *compute.Instance) {
			_, err := c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
			require.NoError(t, err)
		}

		creating := create("creating", false, vol.ID)
		volumeGone := make(chan error)
		go func() { volumeGone <- c.Volumes.DeleteAndWait(ctx, vol.ID) }()
		require.NoError(t, c.Instances.DeleteAndWait(ctx, creating.ID), "deleted once it is no longer creating")
		require.NoError(t, <-volumeGone, "the volume waited until its instance was gone")

		stopping := create("stopping", false)
		active(stopping)
		require.NoError(t, c.Instances.Stop(ctx, stopping.ID))
		require.NoError(t, c.Instances.DeleteAndWait(ctx, stopping.ID))

		protected := create("protected", true)
		active(protected)
		err = c.Instances.DeleteAndWait(ctx, protected.ID)
		require.ErrorIs(t, err, compute.CodeTerminationProtected, "protection is removed only when asked")
		require.NoError(t, c.Instances.DeleteAndWait(ctx, protected.ID, compute.RemoveProtection()))

		stopped := create("stopped-protected", true)
		active(stopped)
		require.NoError(t, c.Instances.Stop(ctx, stopped.ID))
		_, err = c.Instances.WaitForStatus(ctx, stopped.ID, compute.InstanceStatusStopped)
		require.NoError(t, err)
		require.NoError(t, c.Instances.DeleteAndWait(ctx, stopped.ID, compute.RemoveProtection()),
			"a stopped instance is started so that its protection can be removed")

		sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "sg", Region: lifeRegion})
		require.NoError(t, err)
		ip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip", Region: lifeRegion})
		require.NoError(t, err)
		fs, err := c.Filesystems.Create(ctx, &compute.FilesystemCreateRequest{Name: "fs", Region: lifeRegion, Size: 10})
		require.NoError(t, err)
		snapOf := create("snap-source", false)
		active(snapOf)
		snap, err := c.Snapshots.Create(ctx, snapOf.ID, &compute.SnapshotCreateRequest{Name: "snap"})
		require.NoError(t, err)
		require.NoError(t, c.Instances.DeleteAndWait(ctx, snapOf.ID))
		require.NoError(t, c.Snapshots.DeleteAndWait(ctx, snap.ID))
		require.NoError(t, c.Filesystems.DeleteAndWait(ctx, fs.ID))
		require.NoError(t, c.FloatingIPs.DeleteAndWait(ctx, ip.ID))
		require.NoError(t, c.SecurityGroups.DeleteAndWait(ctx, sg.ID))
		require.NoError(t, c.SSHKeys.DeleteAndWait(ctx, key.ID))
		require.NoError(t, c.SSHKeys.DeleteAndWait(ctx, key.ID), "already gone is success")
		require.NoError(t, c.Volumes.WaitForDeletion(ctx, vol.ID), "gone is gone")

		for _, err := range []error{
			c.Instances.WaitForDeletion(ctx, creating.ID), c.Snapshots.WaitForDeletion(ctx, snap.ID),
			c.Filesystems.WaitForDeletion(ctx, fs.ID), c.FloatingIPs.WaitForDeletion(ctx, ip.ID),
			c.SecurityGroups.WaitForDeletion(ctx, sg.ID), c.SSHKeys.WaitForDeletion(ctx, key.ID),
		} {
			assert.NoError(t, err)
		}
		page, err := c.Instances.List(ctx, nil)
		require.NoError(t, err)
		assert.Empty(t, page.Items)
	})
}

// TestCallMetadataThroughTheFake: the metadata of a call retried after two 503s and of a refused
// call, against computetest: the request ID the fake sent, the attempts, the status, the duration
// (the retry waits) and the time waited for the rate limiter.
func TestCallMetadataThroughTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithRateLimit(10, 1))
		defer srv.Close()
		c := srv.Client(compute.WithRetry(compute.RetryPolicy{MinWait: time.Second, MaxWait: time.Second}))
		ctx := context.Background()
		key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: "k", Value: lifeKey})
		require.NoError(t, err)
		srv.FailNext(2, computetest.Match{Method: http.MethodGet, Path: "/compute/v1/ssh-keys/*"}, computetest.Fault{Status: 503})
		var ok compute.Response
		_, err = c.SSHKeys.Get(compute.CaptureResponse(ctx, &ok), key.ID)
		require.NoError(t, err)
		assert.Equal(t, "SSHKeys.Get", ok.Operation)
		assert.Equal(t, "/compute/v1/ssh-keys/{ssh_key_id}", ok.Path)
		assert.Equal(t, 200, ok.StatusCode)
		assert.Equal(t, 3, ok.Attempts)
		assert.NotEmpty(t, ok.RequestID)
		last := srv.Requests()[len(srv.Requests())-1]
		assert.Equal(t, last.Status, ok.StatusCode)
		assert.GreaterOrEqual(t, ok.Duration, 2*time.Second, "two retry waits")
		assert.Less(t, ok.Duration, 3*time.Second)

		var refused compute.Response
		_, err = c.SSHKeys.Get(compute.CaptureResponse(ctx, &refused), "key-missing")
		require.ErrorIs(t, err, compute.ErrNotFound)
		assert.Equal(t, 404, refused.StatusCode)
		assert.Equal(t, 1, refused.Attempts)
		assert.NotEmpty(t, refused.RequestID)
		assert.NotEqual(t, ok.RequestID, refused.RequestID)
		rps := 10.0 // the fake's rate: an interval with the headroom, and the margin
		interval := float64(time.Second) / rps * (1 + compute.PacingHeadroom)
		spaced := time.Duration(interval * (1 + compute.SpacingMargin))
		assert.Equal(t, spaced.Round(100*time.Microsecond), refused.LimiterWait.Round(100*time.Microsecond),
			"an interval and the margin after the call before")
	})
}

// TestTheSDKsOwnWordsAreNeverMasked: an error of a computetest client reads the operation's path
// and the service's message as they are, with the default token and with a wrong one, while a
// server that echoes the token still gets it scrubbed; and the default token shares no five
// characters in a row with any text of the SDK's source, so that scrubbing never has a reason to
// touch the SDK's words.
func TestTheSDKsOwnWordsAreNeverMasked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		_, err := srv.Client().Instances.Get(context.Background(), "ins-missing")
		require.ErrorIs(t, err, compute.ErrNotFound)
		assert.Contains(t, err.Error(), "compute: GET /compute/v1/instances/ins-missing: 404 Not Found")
		assert.NotContains(t, err.Error(), "[REDACTED]")

		wrong, err := srv.NewClient(compute.WithLegacyAuthHeader())
		require.NoError(t, err)
		_, err = wrong.Instances.List(context.Background(), nil)
		require.NoError(t, err, "the legacy header carries the same token")
		elsewhere := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithToken("a-token-of-another-account"))
		defer elsewhere.Close()
		other, err := compute.NewClient(computetest.DefaultToken, compute.WithBaseURL(elsewhere.URL), compute.WithHTTPClient(elsewhere.HTTPClient()))
		require.NoError(t, err)
		_, err = other.Instances.List(context.Background(), nil)
		require.ErrorIs(t, err, compute.ErrUnauthorized)
		assert.Contains(t, err.Error(), "compute: GET /compute/v1/instances: 401 Unauthorized")
		assert.NotContains(t, err.Error(), "[REDACTED]")

		// A token that shares words with the SDK's paths leaves them as they are.
		wordy := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithToken("compute-v1-instances-token"))
		defer wordy.Close()
		_, err = wordy.Client().Instances.Get(context.Background(), "ins-missing")
		require.ErrorIs(t, err, compute.ErrNotFound)
		assert.Contains(t, err.Error(), "compute: GET /compute/v1/instances/ins-missing: 404 Not Found")

		srv.FailNext(1, computetest.Match{Method: http.MethodGet}, computetest.Fault{Status: 500, Message: "echo: " + srv.Token})
		_, err = srv.Client(compute.WithoutRetries()).Instances.Get(context.Background(), "ins-1")
		require.Error(t, err)
		assert.NotContains(t, err.Error(), srv.Token)
		assert.Contains(t, err.Error(), "echo: [REDACTED]")
		assert.Contains(t, err.Error(), "GET /compute/v1/instances/ins-1: 500")
	})
	token := computetest.DefaultToken
	files, err := compute.TopGoFiles()
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		for i := 0; i+5 <= len(token); i++ {
			assert.NotContains(t, string(src), token[i:i+5], "%s shares %q with the default token", name, token[i:i+5])
		}
	}
}

// createInstances creates n instances named prefix-0, prefix-1, ... and returns their IDs.
func createInstances(t *testing.T, ctx context.Context, c *compute.Client, prefix string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: name, Hostname: name,
			Type: lifeType, Region: lifeRegion, Image: lifeImage, SSHKeys: []string{"key-ci"}})
		require.NoError(t, err)
		ids = append(ids, inst.ID)
	}
	return ids
}

// TestAStalledListHoldsNoWaitOnTheFake: the fake's list stalls (an hour's latency, as compute-fake's
// latency fault does it) while two instances turn active in a second; the two waits end as soon as
// each would alone, not at their deadline.
func TestAStalledListHoldsNoWaitOnTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithDurations(computetest.UniformDurations(time.Second)))
		defer srv.Close()
		c := srv.Client()
		ids := createInstances(t, context.Background(), c, "stall", 2)
		srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet, Path: "/compute/v1/instances"},
			Fault: computetest.Fault{Latency: time.Hour}})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		err := compute.WaitAll(ctx, ids, func(ctx context.Context, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, compute.InstanceStatusActive)
			return err
		})
		require.NoError(t, err)
		assert.LessOrEqual(t, time.Since(start), 3*time.Second, "as soon as one wait alone would")
	})
}

// TestAGrowingListReleasesTheWaitsOnTheFake: while two waits for deletion run, another job creates
// a page of instances for each page the walk reads, so that the list is always a page longer than
// read. The walk stops when a page more would cost more than a GET each, and the waits end when
// their GETs say gone, not when the list stops growing.
func TestAGrowingListReleasesTheWaitsOnTheFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithDurations(computetest.UniformDurations(time.Second)))
		defer srv.Close()
		ctx := context.Background()
		other := srv.Client()
		var grown atomic.Int32
		c := srv.Client(compute.WithObserver(compute.Observer{Page: func(context.Context, compute.PageRead) {
			if grown.Add(1) <= 30 { // bounded, so that a walk that follows it still ends
				createInstances(t, ctx, other, fmt.Sprintf("churn-%d", grown.Load()), 100)
			}
		}}))
		ids := createInstances(t, ctx, c, "gone", 2)
		time.Sleep(2 * time.Second) // active
		for _, id := range ids {
			require.NoError(t, c.Instances.Delete(ctx, id))
		}
		srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet, Path: "/compute/v1/instances"},
			Fault: computetest.Fault{Latency: 200 * time.Millisecond}})
		srv.ResetRequests()
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		start := time.Now()
		err := compute.WaitAll(wctx, ids, func(ctx context.Context, id string) error {
			return c.Instances.WaitForDeletion(ctx, id)
		})
		require.NoError(t, err)
		assert.LessOrEqual(t, time.Since(start), 3*time.Second)
		lists := 0
		for _, r := range srv.Requests() {
			if r.Method == http.MethodGet && r.Path == "/compute/v1/instances" {
				lists++
			}
		}
		assert.LessOrEqual(t, lists, 4, "each walk stopped when a page more cost more than two GETs")
	})
}

// TestSharedReadsOfATerraformRefresh: a refresh of 500 instances reads each with SharedRead, ten at
// a time (Terraform's default parallelism): one walk of the list at 100 a page answers them all, at
// most 5 list pages and no GET.
func TestSharedReadsOfATerraformRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		ids := createInstances(t, ctx, c, "tf", 500)
		srv.ResetRequests()

		sem := make(chan struct{}, 10)
		var wg sync.WaitGroup
		for i, id := range ids {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				inst, err := c.Instances.Get(ctx, id, compute.SharedRead(30*time.Second))
				if assert.NoError(t, err) {
					assert.Equal(t, id, inst.ID)
					assert.Equal(t, fmt.Sprintf("tf-%d", i), inst.Name)
				}
			})
		}
		wg.Wait()
		lists, gets := 0, 0
		for _, r := range srv.Requests() {
			switch {
			case r.Method == http.MethodGet && r.Path == "/compute/v1/instances":
				lists++
				assert.Equal(t, "100", r.Query.Get("per_page"))
			case r.Method == http.MethodGet:
				gets++
			}
		}
		t.Logf("500 shared reads: %d list pages, %d GETs", lists, gets)
		assert.LessOrEqual(t, lists, 5)
		assert.Zero(t, gets)
	})
}

// TestSharedReadOfEveryKind: each kind with a list answers two shared reads with one list page
// and no GET, and returns what a plain Get returns.
func TestSharedReadOfEveryKind(t *testing.T) {
	lifecycleFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
		key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: "k", Value: lifeKey})
		require.NoError(t, err)
		vol, err := c.Volumes.Create(ctx, &compute.VolumeCreateRequest{Name: "v", Region: lifeRegion, Size: 10})
		require.NoError(t, err)
		sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "sg", Region: lifeRegion})
		require.NoError(t, err)
		ip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip", Region: lifeRegion})
		require.NoError(t, err)
		fs, err := c.Filesystems.Create(ctx, &compute.FilesystemCreateRequest{Name: "fs", Region: lifeRegion, Size: 10})
		require.NoError(t, err)
		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "i", Hostname: "i", Type: lifeType,
			Region: lifeRegion, Image: lifeImage, SSHKeys: []string{key.ID}})
		require.NoError(t, err)
		_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
		snap, err := c.Snapshots.Create(ctx, inst.ID, &compute.SnapshotCreateRequest{Name: "snap"})
		require.NoError(t, err)

		shared := compute.SharedRead(time.Minute)
		for kind, read := range map[string]func(...compute.GetOption) (any, error){
			"instances":       func(o ...compute.GetOption) (any, error) { return c.Instances.Get(ctx, inst.ID, o...) },
			"snapshots":       func(o ...compute.GetOption) (any, error) { return c.Snapshots.Get(ctx, snap.ID, o...) },
			"security-groups": func(o ...compute.GetOption) (any, error) { return c.SecurityGroups.Get(ctx, sg.ID, o...) },
			"floating-ips":    func(o ...compute.GetOption) (any, error) { return c.FloatingIPs.Get(ctx, ip.ID, o...) },
			"ssh-keys":        func(o ...compute.GetOption) (any, error) { return c.SSHKeys.Get(ctx, key.ID, o...) },
			"volumes":         func(o ...compute.GetOption) (any, error) { return c.Volumes.Get(ctx, vol.ID, o...) },
			"filesystems":     func(o ...compute.GetOption) (any, error) { return c.Filesystems.Get(ctx, fs.ID, o...) },
		} {
			plain, err := read()
			require.NoError(t, err, kind)
			srv.ResetRequests()
			for range 2 {
				got, err := read(shared)
				require.NoError(t, err, kind)
				assert.Equal(t, plain, got, kind)
			}
			reqs := srv.Requests()
			if assert.Len(t, reqs, 1, kind) {
				assert.Equal(t, "/compute/v1/"+kind, reqs[0].Path)
			}
		}
	})
}
