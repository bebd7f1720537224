package computeotel_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCreateOnceLookupIsInTheCallersTrace: the list calls of CreateOnce's lookup run on a walk that
// lookups share, on a goroutine of the client's; their spans are still children of the span of the
// call that opened the walk, in its trace, as the create's span is, and none is a root. Calls that
// join the walk get their answer from it; their own spans (the creates) stay in their own traces.
func TestCreateOnceLookupIsInTheCallersTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t)
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		for i := range 150 {
			createInstance(t, srv, fmt.Sprint("other-", i))
		}
		c := srv.Client(tel.option())

		ctx, span := tel.userSpan(context.Background(), "deploy")
		_, err := c.Instances.CreateOnce(ctx, &compute.InstanceCreateRequest{Name: "web-1", Hostname: "web-1",
			Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
		require.NoError(t, err)
		span.End()

		deploy := tel.named("deploy")
		require.Len(t, deploy, 1)
		caller := deploy[0].SpanContext
		lists := tel.named("compute.Instances.List")
		require.Len(t, lists, 3, "page 1, page 2, page 1 again")
		for _, l := range lists {
			assert.Equal(t, caller.TraceID(), l.SpanContext.TraceID(), "in the caller's trace")
			assert.Equal(t, caller.SpanID(), l.Parent.SpanID(), "a child of the caller's span")
		}
		creates := tel.named("compute.Instances.Create")
		require.Len(t, creates, 1)
		assert.Equal(t, caller.SpanID(), creates[0].Parent.SpanID())

		// Several calls at once: each lookup span is a child of one of the callers' spans.
		callers := map[string]bool{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				ctx, span := tel.userSpan(context.Background(), fmt.Sprint("deploy-", i))
				mu.Lock()
				callers[span.SpanContext().SpanID().String()] = true
				mu.Unlock()
				_, err := c.Instances.CreateOnce(ctx, &compute.InstanceCreateRequest{Name: fmt.Sprint("web-x", i), Hostname: "w",
					Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
				assert.NoError(t, err)
				span.End()
			})
		}
		wg.Wait()
		lists = tel.named("compute.Instances.List")[3:]
		require.NotEmpty(t, lists)
		for _, l := range lists {
			assert.True(t, l.Parent.IsValid(), "not a root span")
			assert.True(t, callers[l.Parent.SpanID().String()], "a child of a caller's span")
		}
	})
}
