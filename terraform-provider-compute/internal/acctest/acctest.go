// Package acctest runs the provider's acceptance tests: the real terraform (from PATH, or
// TF_ACC_TERRAFORM_PATH) drives the provider served in the test's own process against a
// computetest fake, with no registry and no network but loopback.
package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/provider"
)

// Main prepares the acceptance tests of a package, from its TestMain: the provider's namespace in
// the source addresses plugin-testing writes (compute-sdk/compute), and the terraform binary.
// Without terraform, the acceptance tests are skipped with a loud line; the others run.
func Main(m *testing.M) {
	os.Setenv("TF_ACC_PROVIDER_NAMESPACE", "compute-sdk")
	if f := os.Getenv("TF_CLI_CONFIG_FILE"); f != "" {
		if _, err := os.Stat(f); err != nil {
			os.Unsetenv("TF_CLI_CONFIG_FILE") // a missing file makes terraform warn on every command
		}
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		if p, err := exec.LookPath("terraform"); err == nil {
			os.Setenv("TF_ACC_TERRAFORM_PATH", p)
		} else if os.Getenv("TF_ACC") != "" {
			fmt.Fprintln(os.Stderr, "!!! terraform is not on PATH: the acceptance tests are SKIPPED (TF_ACC unset) !!!")
			os.Unsetenv("TF_ACC")
		}
	}
	os.Exit(m.Run())
}

// Factories serve the provider in the test's process under the name "compute".
var Factories = map[string]func() (tfprotov6.ProviderServer, error){
	"compute": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// Server starts a fake with instant transitions (unless opts say otherwise), closed at the end of
// the test.
func Server(t *testing.T, opts ...computetest.Option) *computetest.Server {
	t.Helper()
	srv := computetest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// Provider is the provider block that points at srv, followed by extra lines inside it.
func Provider(srv *computetest.Server, extra ...string) string {
	return fmt.Sprintf(`
provider "compute" {
  endpoint = %q
  token    = %q
%s
}
`, srv.URL, srv.Token, strings.Join(extra, "\n"))
}

// Source is the terraform block that names the provider's source, for the configurations
// plugin-testing passes as they are (those of import steps).
const Source = `
terraform {
  required_providers {
    compute = { source = "registry.terraform.io/compute-sdk/compute" }
  }
}
`

// Test runs an acceptance test case with the provider's factories, in parallel with the others.
func Test(t *testing.T, c resource.TestCase) {
	t.Helper()
	c.ProtoV6ProviderFactories = Factories
	resource.ParallelTest(t, c)
}

// Client is an SDK client on srv for the test's own checks (no rate limit of its own).
func Client(t *testing.T, srv *computetest.Server) *compute.Client {
	t.Helper()
	return srv.Client(compute.WithoutRateLimit())
}

// Writes returns the requests srv received that change something (not GET).
func Writes(srv *computetest.Server) []computetest.Request {
	var w []computetest.Request
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			w = append(w, r)
		}
	}
	return w
}
