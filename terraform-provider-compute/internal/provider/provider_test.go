package provider_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

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
