package computetest_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One test per row of the contract's "Conditions stated for operations" table. Each asserts the
// refusal with its exact code and status, and the success next to it, so that it fails both ways.
// The contract gives no status per code; the fake refuses a state change with 400 (it lists
// no 409).

// Row: Update instance, "Only an active instance can be updated", 02023.
func TestConditionUpdateInstanceOnlyActive(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()
	in := activeInstance(t, c)

	got, err := c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{Name: compute.Ptr("web-renamed")})
	require.NoError(t, err, "an active instance can be updated")
	assert.Equal(t, "web-renamed", got.Name)
	assert.Equal(t, "web-1", got.Hostname, "a rename leaves the hostname")

	require.NoError(t, c.Instances.Stop(ctx, in.ID))
	requireStatus(t, c, in.ID, compute.InstanceStatusStopped)
	_, err = c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{Name: compute.Ptr("web-stopped")})
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeUpdateRequiresActive)

	for _, st := range []compute.InstanceStatus{
		compute.InstanceStatusCreating, compute.InstanceStatusPendingPayment, compute.InstanceStatusStopping,
		compute.InstanceStatusStarting, compute.InstanceStatusResetting, compute.InstanceStatusError,
		compute.InstanceStatusDeleting,
	} {
		require.True(t, srv.SetInstanceStatus(in.ID, st))
		_, err = c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(true)})
		requireAPIError(t, err, http.StatusBadRequest, compute.CodeUpdateRequiresActive)
	}

	require.True(t, srv.SetInstanceStatus(in.ID, compute.InstanceStatusActive))
	got, err = c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{Name: compute.Ptr("web-back")})
	require.NoError(t, err)
	assert.Equal(t, "web-back", got.Name)
}

// Row: Snapshot instance, "Only an active instance can be snapshotted", 02037.
func TestConditionSnapshotInstanceOnlyActive(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()
	in := activeInstance(t, c)

	snap, err := c.Snapshots.Create(ctx, in.ID, &compute.SnapshotCreateRequest{Name: "before"})
	require.NoError(t, err, "an active instance can be snapshotted")
	assert.Equal(t, compute.SnapshotStatusCreated, snap.Status)
	assert.Equal(t, in.ID, snap.SourceInstanceID)

	require.NoError(t, c.Instances.Stop(ctx, in.ID))
	requireStatus(t, c, in.ID, compute.InstanceStatusStopped)
	_, err = c.Snapshots.Create(ctx, in.ID, &compute.SnapshotCreateRequest{Name: "while-stopped"})
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeSnapshotRequiresActive)

	require.True(t, srv.SetInstanceStatus(in.ID, compute.InstanceStatusCreating))
	_, err = c.Snapshots.Create(ctx, in.ID, &compute.SnapshotCreateRequest{Name: "while-creating"})
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeSnapshotRequiresActive)

	page, err := c.Snapshots.ListByInstance(ctx, in.ID, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "the refused snapshots were not taken")
	assert.Equal(t, "before", page.Items[0].Name)
}

// Row: Destroy instance, "Destroy is limited by status (two codes with different wording)", 02013
// and 02069. The fake's documented split: 02013 for an instance that never became active (creating,
// pending_payment), 02069 for one in the middle of a transition.
func TestConditionDestroyInstanceLimitedByStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status compute.InstanceStatus
		code   compute.ErrorCode // "" means the destroy is accepted
	}{
		{compute.InstanceStatusCreating, compute.CodeDeleteRequiresActive},
		{compute.InstanceStatusPendingPayment, compute.CodeDeleteRequiresActive},
		{compute.InstanceStatusStopping, compute.CodeDeleteRequiresRunningOrStopped},
		{compute.InstanceStatusStarting, compute.CodeDeleteRequiresRunningOrStopped},
		{compute.InstanceStatusResetting, compute.CodeDeleteRequiresRunningOrStopped},
		{compute.InstanceStatusActive, ""},
		{compute.InstanceStatusStopped, ""},
		{compute.InstanceStatusError, ""},
	}
	for _, tc := range cases {
		t.Run(string(tc.status), func(t *testing.T) {
			t.Parallel()
			srv, c := newFake(t)
			ctx := context.Background()
			in := activeInstance(t, c)
			require.True(t, srv.SetInstanceStatus(in.ID, tc.status))
			err := c.Instances.Delete(ctx, in.ID)
			if tc.code != "" {
				requireAPIError(t, err, http.StatusBadRequest, tc.code)
				requireStatus(t, c, in.ID, tc.status)
				return
			}
			require.NoError(t, err)
			_, err = c.Instances.Get(ctx, in.ID)
			requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
		})
	}

	// A DELETE re-sent while the first one is still in progress (its response was lost) gets 204 again.
	t.Run("deleting again", func(t *testing.T) {
		t.Parallel()
		srv := computetest.NewServer(computetest.WithDurations(computetest.Durations{InstanceDelete: time.Hour}))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		in := activeInstance(t, c)
		require.NoError(t, c.Instances.Delete(ctx, in.ID))
		requireStatus(t, c, in.ID, compute.InstanceStatusDeleting)
		require.NoError(t, c.Instances.Delete(ctx, in.ID))
		srv.Advance(time.Hour)
		_, err := c.Instances.Get(ctx, in.ID)
		requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
	})

	// The same codes reached by real transitions that take an hour, then completed with Advance.
	t.Run("creating then active", func(t *testing.T) {
		t.Parallel()
		srv := computetest.NewServer(computetest.WithDurations(computetest.Durations{InstanceCreate: time.Hour}))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		in := createInstance(t, c)
		requireStatus(t, c, in.ID, compute.InstanceStatusCreating)
		requireAPIError(t, c.Instances.Delete(ctx, in.ID), http.StatusBadRequest, compute.CodeDeleteRequiresActive)
		srv.Advance(time.Hour)
		requireStatus(t, c, in.ID, compute.InstanceStatusActive)
		require.NoError(t, c.Instances.Delete(ctx, in.ID))
	})
	t.Run("stopping then stopped", func(t *testing.T) {
		t.Parallel()
		srv := computetest.NewServer(computetest.WithDurations(computetest.Durations{InstanceStop: time.Hour}))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		in := activeInstance(t, c)
		require.NoError(t, c.Instances.Stop(ctx, in.ID))
		requireStatus(t, c, in.ID, compute.InstanceStatusStopping)
		requireAPIError(t, c.Instances.Delete(ctx, in.ID), http.StatusBadRequest, compute.CodeDeleteRequiresRunningOrStopped)
		srv.Advance(time.Hour)
		requireStatus(t, c, in.ID, compute.InstanceStatusStopped)
		require.NoError(t, c.Instances.Delete(ctx, in.ID))
	})
}

// Row: Destroy instance, "Not allowed while is_protected is true", 02038.
func TestConditionDestroyInstanceNotWhileProtected(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()
	in := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.IsProtected = true })
	require.True(t, in.IsProtected)

	requireAPIError(t, c.Instances.Delete(ctx, in.ID), http.StatusBadRequest, compute.CodeTerminationProtected)
	requireStatus(t, c, in.ID, compute.InstanceStatusActive)

	// Protection is checked before the status: a protected instance in a transition still says 02038.
	require.True(t, srv.SetInstanceStatus(in.ID, compute.InstanceStatusCreating))
	requireAPIError(t, c.Instances.Delete(ctx, in.ID), http.StatusBadRequest, compute.CodeTerminationProtected)
	require.True(t, srv.SetInstanceStatus(in.ID, compute.InstanceStatusActive))

	got, err := c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)})
	require.NoError(t, err)
	require.False(t, got.IsProtected)
	require.NoError(t, c.Instances.Delete(ctx, in.ID), "an unprotected instance can be destroyed")
	_, err = c.Instances.Get(ctx, in.ID)
	requireAPIError(t, err, http.StatusNotFound, compute.CodeInstanceNotFound)
}

// Row: Perform action start, "Instance is already started", 02029.
func TestConditionStartInstanceAlreadyStarted(t *testing.T) {
	t.Parallel()
	_, c := newFake(t)
	ctx := context.Background()
	in := activeInstance(t, c)

	requireAPIError(t, c.Instances.Start(ctx, in.ID), http.StatusBadRequest, compute.CodeInstanceAlreadyStarted)

	require.NoError(t, c.Instances.Stop(ctx, in.ID))
	requireStatus(t, c, in.ID, compute.InstanceStatusStopped)
	require.NoError(t, c.Instances.Start(ctx, in.ID), "a stopped instance can be started")
	requireStatus(t, c, in.ID, compute.InstanceStatusActive)
	requireAPIError(t, c.Instances.Start(ctx, in.ID), http.StatusBadRequest, compute.CodeInstanceAlreadyStarted)
}

// Row: Perform action start, "Instance cannot be started", 02039.
func TestConditionStartInstanceCannotBeStarted(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()
	in := activeInstance(t, c)

	for _, st := range []compute.InstanceStatus{
		compute.InstanceStatusCreating, compute.InstanceStatusPendingPayment, compute.InstanceStatusStopping,
		compute.InstanceStatusStarting, compute.InstanceStatusResetting, compute.InstanceStatusError,
		compute.InstanceStatusDeleting,
	} {
		require.True(t, srv.SetInstanceStatus(in.ID, st))
		err := c.Instances.Start(ctx, in.ID)
		requireAPIError(t, err, http.StatusBadRequest, compute.CodeInstanceCannotStart)
		assert.Contains(t, err.Error(), string(st))
	}

	require.True(t, srv.SetInstanceStatus(in.ID, compute.InstanceStatusStopped))
	require.NoError(t, c.Instances.Start(ctx, in.ID), "a stopped instance can be started")
	requireStatus(t, c, in.ID, compute.InstanceStatusActive)
}

// Row: Attach volume, "Volume must have status available", 02032 and 02046.
func TestConditionAttachVolumeMustBeAvailable(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	volumeStatus := func(id string) string {
		t.Helper()
		for _, v := range srv.Catalog().Volumes {
			if v.ID == id {
				return v.Status
			}
		}
		t.Fatalf("volume %s is not in the catalogue", id)
		return ""
	}

	a := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.Name, r.Volumes = "a", []string{"vol-data-1"} })
	require.Equal(t, []compute.Ref{{ID: "vol-data-1", Name: "data-1"}}, a.Volumes)
	require.Equal(t, computetest.VolumeInUse, volumeStatus("vol-data-1"))
	b := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.Name = "b" })

	// 02032: a volume in use by another instance cannot be attached, on update or create.
	_, err := c.Instances.Update(ctx, b.ID, &compute.InstanceUpdateRequest{Volumes: []string{"vol-data-1"}})
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeVolumeAttachFailed)
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.Name, r.Volumes = "c", []string{"vol-data-1"}
	}))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeVolumeAttachFailed)

	// 02046: the seeded locked volume cannot be attached, on update or create.
	require.Equal(t, computetest.VolumeLocked, volumeStatus("vol-locked"))
	_, err = c.Instances.Update(ctx, b.ID, &compute.InstanceUpdateRequest{Volumes: []string{"vol-locked"}})
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeVolumeLocked)
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.Name, r.Volumes = "d", []string{"vol-locked"}
	}))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeVolumeLocked)

	page, err := c.Instances.List(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, 2, page.TotalCount, "the refused creates created nothing")

	// Success: an available volume attaches; the owner may keep its own volume.
	got, err := c.Instances.Update(ctx, b.ID, &compute.InstanceUpdateRequest{Volumes: []string{"vol-data-2"}})
	require.NoError(t, err)
	assert.Equal(t, []compute.Ref{{ID: "vol-data-2", Name: "data-2"}}, got.Volumes)
	assert.Equal(t, computetest.VolumeInUse, volumeStatus("vol-data-2"))
	_, err = c.Instances.Update(ctx, a.ID, &compute.InstanceUpdateRequest{Volumes: []string{"vol-data-1"}})
	require.NoError(t, err, "keeping an attached volume is not an attach")

	// Once a detaches it, the volume is available again and b can attach it.
	got, err = c.Instances.Update(ctx, a.ID, &compute.InstanceUpdateRequest{Volumes: []string{}})
	require.NoError(t, err)
	assert.Empty(t, got.Volumes)
	require.Equal(t, computetest.VolumeAvailable, volumeStatus("vol-data-1"))
	got, err = c.Instances.Update(ctx, b.ID, &compute.InstanceUpdateRequest{Volumes: []string{"vol-data-2", "vol-data-1"}})
	require.NoError(t, err)
	assert.Len(t, got.Volumes, 2)
	assert.Equal(t, computetest.VolumeLocked, volumeStatus("vol-locked"), "a refused attach changed nothing")
}

// The further conditions the contract states outside the table.

// Security group names "default" and "standard" are reserved. The SDK refuses them before sending,
// so the server's refusal is checked with raw requests.
func TestSecurityGroupReservedNames(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	for _, name := range []string{"default", "standard", "Default", " STANDARD "} {
		body := map[string]any{"name": name, "region": "NORD-NO-KRS-1", "rules": []any{}}
		rawAuthed(t, srv, http.MethodPost, "/compute/v1/security-groups", body).
			requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
	}
	created := rawAuthed(t, srv, http.MethodPost, "/compute/v1/security-groups",
		map[string]any{"name": "default-web", "region": "NORD-NO-KRS-1", "rules": []any{}})
	require.Equal(t, http.StatusCreated, created.Status, "a name that only contains a reserved one is fine: %s", created.Body)
	id := created.object(t)["security_group"].(map[string]any)["id"].(string)

	for _, name := range []string{"default", "standard"} {
		rawAuthed(t, srv, http.MethodPut, "/compute/v1/security-groups/"+id,
			map[string]any{"name": name, "rules": []any{}}).
			requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
	}
	updated := rawAuthed(t, srv, http.MethodPut, "/compute/v1/security-groups/"+id,
		map[string]any{"name": "web", "rules": []any{}})
	require.Equal(t, http.StatusOK, updated.Status, "%s", updated.Body)

	page, err := c.SecurityGroups.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, "web", page.Items[0].Name)

	// The SDK refuses the name itself: nothing reaches the server.
	before := len(srv.Requests())
	_, err = c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "default", Region: "NORD-NO-KRS-1"})
	require.ErrorIs(t, err, compute.ErrInvalidRequest)
	assert.Len(t, srv.Requests(), before)
}

// An unknown key inside a rule is refused like any invalid rule (02028), even when the rule is
// otherwise valid, and nothing is created; the same rule without it is accepted.
func TestSecurityGroupRuleUnknownKeyIsRefused(t *testing.T) {
	t.Parallel()
	srv, _ := newFake(t)
	for _, rule := range []map[string]any{
		{"protocol": "tcp", "direction": "ingress", "port_range_min": 22, "port_range_max": 22, "port_min": 22},
		{"protocol": "icmp", "direction": "ingress", "port_min": 22},
		{"protocol": "tcp", "direction": "ingress", "port_range_min": 22, "port_range_max": 22, "Protocol": "udp"},
	} {
		a := rawAuthed(t, srv, http.MethodPost, "/compute/v1/security-groups",
			map[string]any{"name": "web", "region": "NORD-NO-KRS-1", "rules": []any{rule}})
		a.requireError(t, http.StatusBadRequest, compute.CodeInvalidRules)
		assert.Contains(t, string(a.Body), "rules[0]", "the message names the rule")
	}
	list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/security-groups", nil).object(t)
	assert.Equal(t, float64(0), list["total_count"], "the refused creates created nothing")
	ok := rawAuthed(t, srv, http.MethodPost, "/compute/v1/security-groups", map[string]any{"name": "web", "region": "NORD-NO-KRS-1",
		"rules": []any{map[string]any{"protocol": "tcp", "direction": "ingress", "port_range_min": 22, "port_range_max": 22}}})
	require.Equal(t, http.StatusCreated, ok.Status, "%s", ok.Body)
}

// A security group used by an instance cannot be deleted (02027).
func TestSecurityGroupUsedByInstanceCannotBeDeleted(t *testing.T) {
	t.Parallel()
	_, c := newFake(t)
	ctx := context.Background()

	sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "web", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	in := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.SecurityGroups = []string{sg.ID} })
	require.Equal(t, []compute.Ref{{ID: sg.ID, Name: "web"}}, in.SecurityGroups)

	requireAPIError(t, c.SecurityGroups.Delete(ctx, sg.ID), http.StatusBadRequest, compute.CodeSecurityGroupUsedByInstances)
	_, err = c.SecurityGroups.Get(ctx, sg.ID)
	require.NoError(t, err, "the refused delete left the group")

	got, err := c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{SecurityGroups: []string{}})
	require.NoError(t, err)
	require.Empty(t, got.SecurityGroups)
	require.NoError(t, c.SecurityGroups.Delete(ctx, sg.ID), "a detached group can be deleted")
	_, err = c.SecurityGroups.Get(ctx, sg.ID)
	requireAPIError(t, err, http.StatusNotFound, compute.CodeSecurityGroupNotFound)
}

// A floating IP attached to an instance cannot be deleted (02064).
func TestFloatingIPAttachedCannotBeDeleted(t *testing.T) {
	t.Parallel()
	_, c := newFake(t)
	ctx := context.Background()

	fip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "web-ip", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	in := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.FloatingIP = fip.ID })
	require.Equal(t, &compute.Ref{ID: fip.ID, Name: "web-ip"}, in.FloatingIP)

	requireAPIError(t, c.FloatingIPs.Delete(ctx, fip.ID), http.StatusBadRequest, compute.CodeFloatingIPInUse)
	// Nor can it be attached to a second instance.
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) { r.FloatingIP = fip.ID }))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeFloatingIPInUse)

	require.NoError(t, c.Instances.Delete(ctx, in.ID))
	got, err := c.FloatingIPs.Get(ctx, fip.ID)
	require.NoError(t, err)
	require.Nil(t, got.Instance, "destroying the instance detached the floating IP")
	require.NoError(t, c.FloatingIPs.Delete(ctx, fip.ID), "an unattached floating IP can be deleted")
	_, err = c.FloatingIPs.Get(ctx, fip.ID)
	requireAPIError(t, err, http.StatusNotFound, compute.CodeFloatingIPNotFound)
}

// disk_size is at least 80 on create and can only grow on update (02063).
func TestDiskSizeOnlyGrows(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	def := activeInstance(t, c)
	assert.Equal(t, 80, def.DiskSize, "the default disk size")

	in := activeInstance(t, c, func(r *compute.InstanceCreateRequest) { r.DiskSize = 100 })
	require.Equal(t, 100, in.DiskSize)
	_, err := c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{DiskSize: compute.Ptr(90)})
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeInsufficientDiskSize)
	got, err := c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{DiskSize: compute.Ptr(100)})
	require.NoError(t, err, "the same size is not a shrink")
	require.Equal(t, 100, got.DiskSize)
	got, err = c.Instances.Update(ctx, in.ID, &compute.InstanceUpdateRequest{DiskSize: compute.Ptr(120)})
	require.NoError(t, err)
	require.Equal(t, 120, got.DiskSize)

	// Below the minimum on create (the SDK refuses it, so raw).
	body := map[string]any{"name": "small", "hostname": "small", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
		"image": "img-ubuntu-2404", "ssh_keys": []string{"key-laptop"}, "disk_size": 79}
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", body).
		requireError(t, http.StatusBadRequest, compute.CodeInsufficientDiskSize)
	body["disk_size"] = 80
	require.Equal(t, http.StatusCreated, rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", body).Status)
}

// ssh_keys or a password of at least 16 characters, never both, never neither.
func TestPasswordAndSSHKeyRules(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	base := func(extra map[string]any) map[string]any {
		body := map[string]any{"name": "pw", "hostname": "pw", "type": "vcpu-2_memory-4g", "region": "NORD-NO-KRS-1",
			"image": "img-ubuntu-2404"}
		for k, v := range extra {
			body[k] = v
		}
		return body
	}
	strong := "correct-horse-16"
	require.Len(t, strong, 16)
	cases := []struct {
		name   string
		extra  map[string]any
		status int
		code   compute.ErrorCode
	}{
		{"both", map[string]any{"ssh_keys": []string{"key-laptop"}, "password": strong}, http.StatusBadRequest, compute.CodeBadRequest},
		{"both with empty keys", map[string]any{"ssh_keys": []string{}, "password": strong}, http.StatusBadRequest, compute.CodeBadRequest},
		{"neither", nil, http.StatusBadRequest, compute.CodeMissingParameters},
		{"empty keys only", map[string]any{"ssh_keys": []string{}}, http.StatusBadRequest, compute.CodeMissingParameters},
		{"15 characters", map[string]any{"password": strong[:15]}, http.StatusBadRequest, compute.CodeWeakPassword},
		{"15 runes in more bytes", map[string]any{"password": strings.Repeat("é", 15)}, http.StatusBadRequest, compute.CodeWeakPassword},
		{"16 characters", map[string]any{"password": strong}, http.StatusCreated, ""},
		{"16 runes", map[string]any{"password": strings.Repeat("é", 16)}, http.StatusCreated, ""},
		{"ssh keys", map[string]any{"ssh_keys": []string{"key-laptop", "key-ci"}}, http.StatusCreated, ""},
	}
	for _, tc := range cases {
		a := rawAuthed(t, srv, http.MethodPost, "/compute/v1/instances", base(tc.extra))
		if tc.code == "" {
			require.Equal(t, tc.status, a.Status, "%s: %s", tc.name, a.Body)
			continue
		}
		require.Equal(t, tc.status, a.Status, "%s: %s", tc.name, a.Body)
		require.Equal(t, tc.code, a.errorCode(t), tc.name)
	}

	// Through the SDK: a strong password alone works; a weak one is refused before sending.
	in, err := c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.SSHKeys, r.Password = nil, strong
	}))
	require.NoError(t, err)
	assert.Empty(t, in.SSHKeys)
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) {
		r.SSHKeys, r.Password = nil, "short"
	}))
	require.ErrorIs(t, err, compute.ErrInvalidRequest)
}

// per_page is 1..100 (default 50) and page >= 1 on every list endpoint. The SDK refuses 101, so
// raw requests are used.
func TestListPerPageLimit(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	in := activeInstance(t, c)

	for _, path := range []string{
		"/compute/v1/instances", "/compute/v1/security-groups", "/compute/v1/floating-ips",
		"/compute/v1/images", "/compute/v1/instances/" + in.ID + "/snapshots",
	} {
		for _, q := range []string{"per_page=101", "per_page=0", "per_page=-1", "per_page=ten", "page=0", "page=x"} {
			rawAuthed(t, srv, http.MethodGet, path+"?"+q, nil).requireError(t, http.StatusBadRequest, compute.CodeBadRequest)
		}
		for q, want := range map[string]float64{"per_page=100": 100, "per_page=1": 1, "": 50} {
			a := rawAuthed(t, srv, http.MethodGet, path+"?"+q, nil)
			require.Equal(t, http.StatusOK, a.Status, "%s?%s: %s", path, q, a.Body)
			env := a.object(t)
			assert.Equal(t, want, env["per_page"], "%s?%s", path, q)
			assert.Equal(t, float64(1), env["page"], "%s?%s", path, q)
		}
	}

	_, err := c.Instances.List(context.Background(), &compute.ListOptions{PerPage: 101})
	require.ErrorIs(t, err, compute.ErrInvalidRequest, "the SDK refuses it too")
}

// A resource named by the path that does not exist is 404 with its own code; an unknown snapshot
// given as a create's image is 02015 (400: the fake's documented choice for references in a body).
func TestNotFoundCodes(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	const ins, sg, fip = "ins-999999", "sg-999999", "fip-999999"
	cases := []struct {
		name string
		call func() error
		code compute.ErrorCode
	}{
		{"get instance", func() error { _, err := c.Instances.Get(ctx, ins); return err }, compute.CodeInstanceNotFound},
		{"update instance", func() error {
			_, err := c.Instances.Update(ctx, ins, &compute.InstanceUpdateRequest{Name: compute.Ptr("x")})
			return err
		}, compute.CodeInstanceNotFound},
		{"delete instance", func() error { return c.Instances.Delete(ctx, ins) }, compute.CodeInstanceNotFound},
		{"list actions", func() error { _, err := c.Instances.Actions(ctx, ins); return err }, compute.CodeInstanceNotFound},
		{"perform action", func() error { return c.Instances.Stop(ctx, ins) }, compute.CodeInstanceNotFound},
		{"create snapshot", func() error {
			_, err := c.Snapshots.Create(ctx, ins, &compute.SnapshotCreateRequest{Name: "s"})
			return err
		}, compute.CodeInstanceNotFound},
		{"list snapshots", func() error { _, err := c.Snapshots.ListByInstance(ctx, ins, nil); return err }, compute.CodeInstanceNotFound},
		{"get security group", func() error { _, err := c.SecurityGroups.Get(ctx, sg); return err }, compute.CodeSecurityGroupNotFound},
		{"update security group", func() error {
			_, err := c.SecurityGroups.Update(ctx, sg, &compute.SecurityGroupUpdateRequest{Name: "x"})
			return err
		}, compute.CodeSecurityGroupNotFound},
		{"delete security group", func() error { return c.SecurityGroups.Delete(ctx, sg) }, compute.CodeSecurityGroupNotFound},
		{"get floating IP", func() error { _, err := c.FloatingIPs.Get(ctx, fip); return err }, compute.CodeFloatingIPNotFound},
		{"update floating IP", func() error {
			_, err := c.FloatingIPs.Update(ctx, fip, &compute.FloatingIPUpdateRequest{Name: compute.Ptr("x")})
			return err
		}, compute.CodeFloatingIPNotFound},
		{"delete floating IP", func() error { return c.FloatingIPs.Delete(ctx, fip) }, compute.CodeFloatingIPNotFound},
		{"instance user metadata", func() error { _, err := c.Instances.UserMetadata(ctx, ins); return err }, compute.CodeInstanceNotFound},
		{"get SSH key", func() error { _, err := c.SSHKeys.Get(ctx, "key-999999"); return err }, compute.CodeSSHKeyNotFound},
		{"update SSH key", func() error {
			_, err := c.SSHKeys.Update(ctx, "key-999999", &compute.SSHKeyUpdateRequest{Name: "x"})
			return err
		}, compute.CodeSSHKeyNotFound},
		{"delete SSH key", func() error { return c.SSHKeys.Delete(ctx, "key-999999") }, compute.CodeSSHKeyNotFound},
		{"get volume", func() error { _, err := c.Volumes.Get(ctx, "vol-999999"); return err }, compute.CodeVolumeNotFound},
		{"update volume", func() error {
			_, err := c.Volumes.Update(ctx, "vol-999999", &compute.VolumeUpdateRequest{Name: compute.Ptr("x")})
			return err
		}, compute.CodeVolumeNotFound},
		{"delete volume", func() error { return c.Volumes.Delete(ctx, "vol-999999") }, compute.CodeVolumeNotFound},
		{"get snapshot", func() error { _, err := c.Snapshots.Get(ctx, "snap-999999"); return err }, compute.CodeSnapshotNotFound},
		{"update snapshot", func() error {
			_, err := c.Snapshots.Update(ctx, "snap-999999", &compute.SnapshotUpdateRequest{Name: "x"})
			return err
		}, compute.CodeSnapshotNotFound},
		{"clone snapshot", func() error {
			_, err := c.Snapshots.Clone(ctx, "snap-999999", &compute.SnapshotCloneRequest{Name: "x", Region: "NORD-NO-KRS-1"})
			return err
		}, compute.CodeSnapshotNotFound},
		{"delete snapshot", func() error { return c.Snapshots.Delete(ctx, "snap-999999") }, compute.CodeSnapshotNotFound},
	}
	for _, tc := range cases {
		err := tc.call()
		requireAPIError(t, err, http.StatusNotFound, tc.code)
		require.ErrorIs(t, err, compute.ErrNotFound, tc.name)
	}

	// The contract has no filesystem code: the fake's 404 carries 02004, never the invalid route's.
	_, err := c.Filesystems.Get(ctx, "fs-999999")
	requireAPIError(t, err, http.StatusNotFound, compute.CodeBadRequest)
	require.ErrorIs(t, err, compute.ErrNotFound)

	// An unknown route is 404 with 02001, not a resource's code (the service has no regions
	// endpoint, difference D12).
	rawAuthed(t, srv, http.MethodGet, "/compute/v1/regions", nil).requireError(t, http.StatusNotFound, compute.CodeInvalidRoute)
	rawAuthed(t, srv, http.MethodPost, "/compute/v1/security-groups/"+sg, map[string]any{}).
		requireError(t, http.StatusNotFound, compute.CodeInvalidRoute)

	// 02015: an unknown snapshot as the image; a real one works.
	_, err = c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) { r.Image = "snap-999999" }))
	requireAPIError(t, err, http.StatusBadRequest, compute.CodeSnapshotNotFound)
	src := activeInstance(t, c)
	snap, err := c.Snapshots.Create(ctx, src.ID, &compute.SnapshotCreateRequest{Name: "golden"})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(snap.ID, "snap-"), snap.ID)
	in, err := c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) { r.Image = snap.ID }))
	require.NoError(t, err)
	assert.Equal(t, compute.Ref{ID: snap.ID, Name: "golden"}, in.Image)
}

// References in an instance create that do not exist, live in another region, or do not fit the
// instance type are refused (400) with their own codes.
func TestCreateInstanceReferences(t *testing.T) {
	t.Parallel()
	// Debian is offered in EUC-DE-MUC-1 only here, for the image's region mismatch.
	cat := computetest.DefaultCatalog()
	i := slices.IndexFunc(cat.Images, func(im computetest.Image) bool { return im.ID == "img-debian-12" })
	require.GreaterOrEqual(t, i, 0)
	cat.Images[i].Regions = []string{"EUC-DE-MUC-1"}
	srv := computetest.NewServer(computetest.WithCatalog(cat))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	sgUS, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "us", Region: "EUC-DE-MUC-1"})
	require.NoError(t, err)
	sgEU, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "eu", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)
	fipUS, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "us", Region: "EUC-DE-MUC-1"})
	require.NoError(t, err)
	fipEU, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "eu", Region: "NORD-NO-KRS-1"})
	require.NoError(t, err)

	type mut = func(*compute.InstanceCreateRequest)
	cases := []struct {
		name string
		mut  mut
		code compute.ErrorCode // "" means accepted
	}{
		{"unknown image", func(r *compute.InstanceCreateRequest) { r.Image = "img-nope" }, compute.CodeInvalidImage},
		{"unknown image slug", func(r *compute.InstanceCreateRequest) { r.Image = "ubuntu-99.04" }, compute.CodeInvalidImage},
		{"unknown ssh key", func(r *compute.InstanceCreateRequest) { r.SSHKeys = []string{"key-laptop", "key-nope"} }, compute.CodeSSHKeyNotFound},
		{"unknown volume", func(r *compute.InstanceCreateRequest) { r.Volumes = []string{"vol-nope"} }, compute.CodeVolumeNotFound},
		{"unknown security group", func(r *compute.InstanceCreateRequest) { r.SecurityGroups = []string{"sg-nope"} }, compute.CodeSecurityGroupNotFound},
		{"unknown floating IP", func(r *compute.InstanceCreateRequest) { r.FloatingIP = "fip-nope" }, compute.CodeFloatingIPNotFound},
		{"image in another region", func(r *compute.InstanceCreateRequest) { r.Image = "img-debian-12" }, compute.CodeRegionsMismatch},
		{"volume in another region", func(r *compute.InstanceCreateRequest) { r.Volumes = []string{"vol-data-3"} }, compute.CodeRegionsMismatch},
		{"security group in another region", func(r *compute.InstanceCreateRequest) { r.SecurityGroups = []string{sgUS.ID} }, compute.CodeRegionsMismatch},
		{"floating IP in another region", func(r *compute.InstanceCreateRequest) { r.FloatingIP = fipUS.ID }, compute.CodeRegionsMismatch},
		{"windows on vcpu-2_memory-4g", func(r *compute.InstanceCreateRequest) { r.Image = "img-windows-2022" }, compute.CodeImageIncompatible},
		{"cuda on vcpu-8_memory-32g", func(r *compute.InstanceCreateRequest) { r.Image, r.Type = "img-cuda-12", "vcpu-8_memory-32g" }, compute.CodeImageIncompatible},
		{"unknown region", func(r *compute.InstanceCreateRequest) { r.Region = "mars-1" }, compute.CodeInstanceConfigNotAllowed},
		{"unknown type", func(r *compute.InstanceCreateRequest) { r.Type = "std.huge" }, compute.CodeInstanceConfigNotAllowed},
		{"type not offered in the region", func(r *compute.InstanceCreateRequest) { r.Type = "vcpu-16_memory-128g_nvidia-h100-1" }, compute.CodeInstanceConfigNotAllowed},
		{"unknown placement option", func(r *compute.InstanceCreateRequest) { r.PlacementOption = "NEAR" }, compute.CodeInvalidPlacementOption},

		{"image in its region", func(r *compute.InstanceCreateRequest) { r.Image, r.Region = "img-debian-12", "EUC-DE-MUC-1" }, ""},
		{"volume, group and floating IP in the region", func(r *compute.InstanceCreateRequest) {
			r.Volumes, r.SecurityGroups, r.FloatingIP = []string{"vol-data-2"}, []string{sgEU.ID}, fipEU.ID
		}, ""},
		{"windows on vcpu-4_memory-8g", func(r *compute.InstanceCreateRequest) { r.Image, r.Type = "img-windows-2022", "vcpu-4_memory-8g" }, ""},
		{"gpu in EUC-DE-MUC-1", func(r *compute.InstanceCreateRequest) {
			r.Type, r.Region, r.Image = "vcpu-16_memory-128g_nvidia-h100-1", "EUC-DE-MUC-1", "img-cuda-12"
		}, ""},
		{"image by slug", func(r *compute.InstanceCreateRequest) { r.Image = "ubuntu-24.04" }, ""},
		{"placement option", func(r *compute.InstanceCreateRequest) { r.PlacementOption = "SPREAD" }, ""},
	}
	for _, tc := range cases {
		before := len(srv.Requests())
		in, err := c.Instances.Create(ctx, newInstanceRequest(func(r *compute.InstanceCreateRequest) { r.Name = tc.name }, tc.mut))
		require.Len(t, srv.Requests(), before+1, "%s: one request, no retry", tc.name)
		if tc.code != "" {
			requireAPIError(t, err, http.StatusBadRequest, tc.code)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.name, in.Name)
		assert.Equal(t, compute.InstanceStatusCreating, in.Status, tc.name)
	}

	page, err := c.Instances.List(ctx, &compute.ListOptions{PerPage: 100})
	require.NoError(t, err)
	var names []string
	for _, in := range page.Items {
		names = append(names, in.Name)
	}
	assert.Equal(t, []string{
		"image in its region", "volume, group and floating IP in the region", "windows on vcpu-4_memory-8g",
		"gpu in EUC-DE-MUC-1", "image by slug", "placement option",
	}, names, "only the accepted creates created instances")
	assert.Equal(t, "AUTO", page.Items[0].PlacementOption, "the default placement option")
}
