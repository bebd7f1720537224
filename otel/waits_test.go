package computeotel_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWaitPollsAndPagesAreEvents: a wait's polls are counted by resource kind and added as events
// to the span of the wait's context, each with the target and the status seen but not the ID; a
// walk's pages are events there too; the calls they send are spans under it.
func TestWaitPollsAndPagesAreEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(),
			computetest.WithDurations(computetest.Durations{InstanceCreate: 5 * time.Second}))
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		createInstance(t, srv, "web-2")
		c := srv.Client(tel.option())

		ctx, span := tel.userSpan(context.Background(), "deploy")
		_, err := c.Instances.WaitForStatus(ctx, id, compute.InstanceStatusActive)
		require.NoError(t, err)
		n := 0
		for _, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: 1}) {
			require.NoError(t, err)
			n++
		}
		require.Equal(t, 2, n)
		span.End()

		deploy := tel.named("deploy")
		require.Len(t, deploy, 1)
		var polls, pages []map[string]string
		for _, e := range deploy[0].Events {
			switch e.Name {
			case "compute.poll":
				polls = append(polls, attrs(e.Attributes))
			case "compute.page":
				pages = append(pages, attrs(e.Attributes))
			}
		}
		require.GreaterOrEqual(t, len(polls), 2, "the instance was creating, then active")
		for _, p := range polls {
			assert.Equal(t, "instance", p["compute.resource"])
			assert.Equal(t, "active", p["compute.wait.target"])
			assert.Equal(t, "false", p["compute.poll.shared"])
			assert.NotContains(t, p, "error.type")
		}
		assert.Equal(t, "creating", polls[0]["compute.poll.status"])
		assert.Equal(t, "active", polls[len(polls)-1]["compute.poll.status"])
		assert.Equal(t, []map[string]string{
			{"compute.operation": "Instances.List", "compute.page.number": "1", "compute.page.items": "1", "compute.page.total_count": "2"},
			{"compute.operation": "Instances.List", "compute.page.number": "2", "compute.page.items": "1", "compute.page.total_count": "2"},
		}, pages)

		gets := tel.named(getSpan)
		require.Len(t, gets, len(polls), "one Get per poll")
		for _, g := range append(gets, tel.named("compute.Instances.List")...) {
			assert.Equal(t, deploy[0].SpanContext.SpanID(), g.Parent.SpanID(), "%s is a child of the caller's span", g.Name)
		}

		rm := tel.metrics(t)
		assert.Equal(t, map[string]int64{"compute.poll.shared=false,compute.resource=instance": int64(len(polls))},
			counts(t, rm, "compute.client.waiter.polls"))
		for _, s := range exported(t, tel.ended(), rm) {
			assert.NotContains(t, s, id, "an ID is the caller's data")
		}
	})
}

// TestPollFailureIsCountedWithItsType: a poll that fails (a 503 the wait keeps polling through) is
// counted with its error.type and is an event with it.
func TestPollFailureIsCountedWithItsType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		id := createInstance(t, srv, "web-1")
		c := srv.Client(tel.option(), compute.WithoutRetries())
		srv.FailNext(1, computetest.Match{Method: "GET", Path: "/compute/v1/instances/*"}, computetest.Fault{Status: 503})

		ctx, span := tel.userSpan(context.Background(), "deploy")
		_, err := c.Instances.WaitForStatus(ctx, id, compute.InstanceStatusActive)
		require.NoError(t, err)
		span.End()

		assert.Equal(t, map[string]int64{
			"compute.poll.shared=false,compute.resource=instance,error.type=503": 1,
			"compute.poll.shared=false,compute.resource=instance":                1,
		}, counts(t, tel.metrics(t), "compute.client.waiter.polls"))
		events := tel.named("deploy")[0].Events
		require.Len(t, events, 2)
		first := attrs(events[0].Attributes)
		assert.Equal(t, "503", first["error.type"])
		assert.NotContains(t, first, "compute.poll.status", "a failed poll saw no status")
	})
}
