package provider_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

// TestAccRedisSharedPacing applies two stacks at once on one token, 15 SSH keys each, against a
// service that allows 10 requests a second with a burst of two: through redis_url the two share
// the token's budget, so that together they draw at most two 429s, where each pacing alone at the
// full rate would send twice as fast and draw a dozen or more. The burst of two takes up the jitter of a
// busy machine (a request delivered a few milliseconds late lands within an interval of the next),
// which a burst of one turns into 429s that say nothing of the sharing. It needs a Redis:
// COMPUTE_TEST_REDIS_ADDR (host:port), as .ci/run gives.
func TestAccRedisSharedPacing(t *testing.T) {
	addr := os.Getenv("COMPUTE_TEST_REDIS_ADDR")
	if addr == "" {
		t.Skip("COMPUTE_TEST_REDIS_ADDR is not set: no Redis to share the rate through")
	}
	srv := acctest.Server(t, computetest.WithRateLimit(10, 2))
	redisURL := fmt.Sprintf("redis://%s/0", addr)
	for _, stack := range []string{"a", "b"} {
		t.Run(stack, func(t *testing.T) {
			acctest.Test(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config: acctest.Provider(srv, fmt.Sprintf("redis_url = %q", redisURL)) + fmt.Sprintf(`
resource "compute_ssh_key" "k" {
  count      = 15
  name       = "%s-${count.index}"
  public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn k${count.index}@example.com"
}
`, stack),
				}},
			})
		})
	}
	t.Cleanup(func() {
		refused, all := 0, srv.Requests()
		for _, r := range all {
			if r.Status == 429 {
				refused++
			}
		}
		t.Logf("two stacks through Redis: %d requests, %d refused with 429", len(all), refused)
		if refused > 2 {
			t.Errorf("%d of %d requests were refused with 429, want at most 2", refused, len(all))
		}
	})
}
