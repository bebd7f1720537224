package file_test

import (
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/compute-sdk/compute-go/internal/latesend"
	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResponsePacingOnABrandNewBudget: commands that each make one request, one process each, on
// a brand-new budget against a service that allows no burst (10 a second, none sooner than a tenth
// of a second after the one before), with some sends held back after their turn: 40 ms, as a busy
// machine does. Twenty back to back, and thirty six at a time (xargs -P6). Paced from the first
// request (WithResponsePacing), they draw no 429; paced from the first 429, as by default, the
// late sends draw one or more (each costs its Retry-After, a second).
func TestResponsePacingOnABrandNewBudget(t *testing.T) {
	lates := []time.Duration{0, 20 * time.Millisecond, 0, 5 * time.Millisecond, 15 * time.Millisecond}
	for _, fleet := range []struct {
		name             string
		commands, atOnce int
	}{{"back to back", 20, 1}, {"six at a time", 30, 6}} {
		for _, responses := range []bool{true, false} {
			name := fleet.name + "/paced from the first 429"
			if responses {
				name = fleet.name + "/paced from the first request"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now),
						computetest.WithRateLimit(compute.DefaultRateLimit, 1))
					defer srv.Close()
					dir := filepath.Join(t.TempDir(), "rate")
					late := &latesend.Transport{Inner: srv.HTTPClient().Transport, Late: latesend.Cycle(lates...)}
					command := func() {
						opts := []ratelimitfile.Option{ratelimitfile.WithDir(dir)}
						if responses {
							opts = append(opts, ratelimitfile.WithResponsePacing())
						}
						l, err := ratelimitfile.New(srv.Token, opts...)
						require.NoError(t, err)
						defer l.Close()
						c, err := compute.NewClient(srv.Token, compute.WithBaseURL(srv.URL),
							compute.WithHTTPClient(&http.Client{Transport: late}), compute.WithLimiter(l))
						require.NoError(t, err)
						_, err = c.SSHKeys.Get(context.Background(), "key-ci")
						assert.NoError(t, err)
					}
					start := time.Now()
					sem := make(chan struct{}, fleet.atOnce)
					var wg sync.WaitGroup
					for range fleet.commands {
						sem <- struct{}{}
						wg.Go(func() {
							defer func() { <-sem }()
							command()
						})
					}
					wg.Wait()
					took := time.Since(start)
					refused := 0
					for _, r := range srv.Requests() {
						if r.Status == http.StatusTooManyRequests {
							refused++
						}
					}
					t.Logf("%d commands, %d at once: %d 429s, %s (the rate allows %s)", fleet.commands, fleet.atOnce,
						refused, took.Round(time.Millisecond), time.Duration(fleet.commands-1)*time.Second/compute.DefaultRateLimit)
					if responses {
						assert.Zero(t, refused, "no 429 paced from the first request")
					} else {
						assert.Positive(t, refused, "late sends draw 429s until the first arms the pacing from responses")
					}
				})
			})
		}
	}
}
