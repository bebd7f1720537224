package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mkInstances makes n active instances named web-1...web-n on c.
func mkInstances(t *testing.T, c *compute.Client, n int) []*compute.Instance {
	t.Helper()
	ctx := context.Background()
	var out []*compute.Instance
	for i := range n {
		inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: fmt.Sprintf("web-%d", i+1), Hostname: "h",
			Type: "vcpu-2_memory-4g", Region: region, Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
		require.NoError(t, err)
		out = append(out, inst)
	}
	for _, inst := range out {
		_, err := c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
		require.NoError(t, err)
	}
	return out
}

// gone reports whether the instance id is deleted or being deleted.
func gone(t *testing.T, c *compute.Client, id string) bool {
	t.Helper()
	inst, err := c.Instances.Get(context.Background(), id)
	if err != nil {
		require.ErrorIs(t, err, compute.ErrNotFound)
		return true
	}
	return inst.Status == compute.InstanceStatusDeleting
}

// stderrLines returns the lines of stderr.
func stderrLines(r result) []string { return strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") }

// delete, start, stop, reset and get take several IDs or names (hcloud's spelling): one line of
// result per resource on stderr, terminal or not, and an exit code for the worst outcome.
func TestFleetSeveralResources(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	insts := mkInstances(t, h.sdk(), 4)

	r := h.run("instance", "get", "web-1", insts[1].ID, "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, insts[0].ID+"\n"+insts[1].ID+"\n", r.stdout, "in the order given")
	r = h.run("instance", "get", insts[0].ID, "nope", "-o", "json")
	assert.Equal(t, exitNotFound, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "[\n"), "several: a JSON array of those found")
	assert.Contains(t, r.stdout, insts[0].ID)
	require.Len(t, stderrLines(r), 1, "a line for the failure; a resource found is its row")
	assert.Regexp(t, `^compute: instance nope: no instance has the ID or the name "nope": instance "nope" not found `+
		`\(code 02008, Instance not found; HTTP 404 Not Found from GET /compute/v1/instances/nope; request req-\d+; 1 attempt\)$`, stderrLines(r)[0])

	r = h.run("instance", "stop", "web-1", "web-2", "--wait", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, insts[0].ID+"\n"+insts[1].ID+"\n", r.stdout)
	assert.ElementsMatch(t, []string{"instance " + insts[0].ID + ": stopped", "instance " + insts[1].ID + ": stopped"}, stderrLines(r))
	r = h.run("instance", "start", "web-1", "web-2")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	assert.ElementsMatch(t, []string{"instance " + insts[0].ID + ": start requested", "instance " + insts[1].ID + ": start requested"}, stderrLines(r))

	_, err := h.sdk().Instances.Update(context.Background(), insts[2].ID, &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(true)})
	require.NoError(t, err)
	r = h.run("instance", "delete", "web-4", "web-3", "nope")
	assert.Equal(t, exitConflict, r.code, "the worst: termination protected (4) over not found (3): %s", r.stderr)
	lines := stderrLines(r)
	assert.Len(t, lines, 4, "a line per resource, and the hint: %q", r.stderr)
	assert.Contains(t, lines, "instance "+insts[3].ID+": delete requested")
	assert.True(t, gone(t, h.sdk(), insts[3].ID))
	assert.False(t, gone(t, h.sdk(), insts[2].ID))
	assert.Contains(t, r.stderr, "compute: instance web-3: ")
	assert.Contains(t, r.stderr, "compute: instance nope: ")
}

// delete --wait of several resources waits for them together and says when each is gone.
func TestFleetDeleteWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now), computetest.WithDurations(computetest.UniformDurations(3*time.Second)))
		insts := mkInstances(t, h.sdk(), 5)
		args := []string{"instance", "delete", "--wait"}
		for _, inst := range insts {
			args = append(args, inst.ID)
		}
		r := h.run(args...)
		require.Equal(t, exitOK, r.code, r.stderr)
		var want []string
		for _, inst := range insts {
			want = append(want, "instance "+inst.ID+": deleted")
			_, err := h.sdk().Instances.Get(context.Background(), inst.ID)
			assert.ErrorIs(t, err, compute.ErrNotFound)
		}
		assert.ElementsMatch(t, want, stderrLines(r))
	})
}

// A fleet in one process is paced by its one limiter: twenty deletes against a service that holds
// to 10 requests a second (burst 1) draw no 429, and take what the rate allows.
func TestFleetIsPaced(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now), computetest.WithRateLimit(10, 1))
		paced, err := compute.NewClient(h.srv.Token, compute.WithBaseURL(h.srv.URL), compute.WithHTTPClient(h.srv.HTTPClient()), compute.WithRateLimit(5, 1))
		require.NoError(t, err)
		insts := mkInstances(t, paced, 20)
		time.Sleep(time.Second) // the fake's budget refills
		h.srv.ResetRequests()
		h.pace = true
		args := []string{"instance", "delete"}
		for _, inst := range insts {
			args = append(args, inst.ID)
		}
		start := time.Now()
		r := h.run(args...)
		require.Equal(t, exitOK, r.code, r.stderr)
		elapsed := time.Since(start)
		for _, req := range h.srv.Requests() {
			assert.NotEqual(t, http.StatusTooManyRequests, req.Status, "no 429")
		}
		assert.Len(t, h.srv.Requests(), 20)
		assert.GreaterOrEqual(t, elapsed, 1900*time.Millisecond, "paced at 10 a second")
		assert.Less(t, elapsed, 2100*time.Millisecond, "and no slower")
	})
}

// On a terminal, the waits of a fleet each write a whole line as their status changes: no line is
// rewritten in place, where several waits would overwrite each other.
func TestFleetProgressOnATerminal(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now), computetest.WithDurations(computetest.UniformDurations(3*time.Second)))
		insts := mkInstances(t, h.sdk(), 2)
		h.tty = true
		r := h.run("instance", "stop", insts[0].ID, insts[1].ID, "--wait", "-o", "id")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.NotContains(t, r.stderr, "\r", "no line rewritten in place")
		for _, inst := range insts {
			assert.Contains(t, r.stderr, "instance "+inst.ID+": stopping (")
			assert.Contains(t, r.stderr, "instance "+inst.ID+": stopped\n")
		}
	})
}

// The worst outcome of a fleet decides its exit code; 2 (nothing sent) stands only alone.
func TestWorstExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		codes []int
		want  int
	}{
		{[]int{exitOK, exitOK}, exitOK},
		{[]int{exitNotFound, exitOK}, exitNotFound},
		{[]int{exitNotFound, exitConflict, exitAmbiguous}, exitConflict},
		{[]int{exitOther, exitRateLimited}, exitOther},
		{[]int{exitInterrupted, exitOutcomeUnknown, exitOK}, exitOutcomeUnknown},
		{[]int{exitUsage, exitUsage}, exitUsage},
		{[]int{exitUsage, exitOK}, exitOther},
		{[]int{exitInvalid, exitNotFound}, exitInvalid},
	} {
		assert.Equal(t, tc.want, worst(tc.codes), "%v", tc.codes)
	}
}
