package provider_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

const key = `
resource "compute_ssh_key" "k" {
  name       = "k"
  public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn alice@example.com"
}
`

// TestAccProvider_settings refuses a provider block it cannot use, each on its attribute, before
// any request.
func TestAccProvider_settings(t *testing.T) {
	t.Setenv("COMPUTE_API_URL", "")
	t.Setenv("COMPUTE_API_TOKEN", "")
	t.Setenv("COMPUTE_REDIS_URL", "")
	srv := acctest.Server(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories,
		Steps: []resource.TestStep{
			{Config: `provider "compute" {}` + key, ExpectError: regexp.MustCompile(`(?s)Missing endpoint.*Missing token|Missing token.*Missing endpoint`)},
			{Config: acctest.Provider(srv, `rate = 0`) + key, ExpectError: regexp.MustCompile(`rate must be a number of requests per second above 0`)},
			{Config: acctest.Provider(srv, `polling_interval = "soon"`) + key, ExpectError: regexp.MustCompile(`polling_interval must be a duration`)},
			{Config: acctest.Provider(srv, `redis_url = "mysql://x"`) + key, ExpectError: regexp.MustCompile(`Invalid redis_url`)},
		},
	})
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
}

// TestAccProvider_environment takes the endpoint and the token from COMPUTE_API_URL and
// COMPUTE_API_TOKEN, as the SDK reads them.
func TestAccProvider_environment(t *testing.T) {
	srv := acctest.Server(t)
	t.Setenv("COMPUTE_API_URL", srv.URL)
	t.Setenv("COMPUTE_API_TOKEN", srv.Token)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories,
		Steps: []resource.TestStep{{
			Config: `provider "compute" {
  rate             = 50
  polling_interval = "1s"
}` + key,
			Check: resource.TestCheckResourceAttrSet("compute_ssh_key.k", "id"),
		}},
	})
}

// TestAccProvider_pollsTwiceASecondByDefault: a create that waits for its resource to settle reads
// it every half second by default, not every second: over a security group's 4 s transition the
// provider reads it at least two more times than with polling_interval = "1s", on the same fake.
func TestAccProvider_pollsTwiceASecondByDefault(t *testing.T) {
	reads := func(polling string) int {
		srv := acctest.Server(t, computetest.WithDurations(computetest.UniformDurations(4*time.Second)))
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.Factories,
			Steps: []resource.TestStep{{
				Config: acctest.Provider(srv, polling) + `
resource "compute_security_group" "g" {
  name   = "g"
  region = "NORD-NO-KRS-1"
  rules  = [{ direction = "ingress", protocol = "tcp", port_range_min = 22, port_range_max = 22 }]
}
`,
				Check: resource.TestCheckResourceAttrSet("compute_security_group.g", "id"),
			}},
		})
		n := 0
		for _, r := range srv.Requests() {
			if r.Method == "GET" && strings.HasPrefix(r.Path, "/compute/v1/security-groups/") {
				n++
			}
		}
		return n
	}
	byDefault, bySecond := reads(""), reads(`polling_interval = "1s"`)
	t.Logf("reads of the group: %d by default, %d with polling_interval = \"1s\"", byDefault, bySecond)
	if byDefault < bySecond+2 {
		t.Errorf("the group was read %d times by default and %d times with 1s: want at least 2 more by default", byDefault, bySecond)
	}
}
