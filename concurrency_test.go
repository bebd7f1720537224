package compute_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		next        atomic.Int64
		creates     atomic.Int64
		unknown     atomic.Int64
		failed      atomic.Int64
		mu          sync.Mutex
		untyped     []error
		wg          sync.WaitGroup
		createdByUs = map[string]bool{}
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
						mu.Lock()
						createdByUs[name] = true
						mu.Unlock()
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
