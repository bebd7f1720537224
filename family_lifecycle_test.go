package compute_test

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

// Lifecycle tests of the extended resources against computetest (issue 18). Each runs the whole
// life of one resource, create, wait, read, update, list, delete and the 404 after it, plus the
// relation rules that concern it, each asserting the typed error code.

// familyFake runs f against a fake whose transitions take 20 s of fake time.
func familyFake(t *testing.T, f func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client)) {
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
	familyFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
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
	familyFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
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
	familyFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
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
	familyFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
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
	familyFake(t, func(t *testing.T, ctx context.Context, srv *computetest.Server, c *compute.Client) {
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
