package provider_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

const instanceWith = `
resource "compute_instance" "vm" {
  name     = %q
  region   = "NORD-NO-KRS-1"
  image    = "ubuntu-24.04"
  type     = "vcpu-2_memory-4g"
  %s
}
`

// TestAccServiceError shows a refusal of the service with its code, the code's meaning, its
// message and the request ID.
func TestAccServiceError(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			PreConfig: func() {
				srv.FailNext(1, computetest.Match{Method: "POST", Path: "/compute/v1/instances"},
					computetest.Fault{Status: 400, Code: "02036", Message: "no \x1b[31mstock\x1b[0m left in NORD-NO-KRS-1"})
			},
			Config: acctest.Provider(srv) + fmt.Sprintf(instanceWith, "err", `ssh_key_ids = ["key-ci"]`),
			// Terraform wraps the detail: any space may be a line break.
			ExpectError: regexp.MustCompile(strings.ReplaceAll(`(?s)Cannot create the instance.*HTTP 400, code 02036 \(Requested instance configuration temporarily out of stock\): no \\x1b\[31mstock\\x1b\[0m left.*Request ID: req-`, " ", `\s+`)),
		}},
	})
}

// TestAccSecretsInTheLog runs an apply with TF_LOG=DEBUG: the log shows each exchange with the
// service (the SDK's dump, through Terraform's log), and neither the password, the startup script
// nor the token, anywhere but in the test harness's own copy of the configuration.
func TestAccSecretsInTheLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "tf.log")
	t.Setenv("TF_LOG", "DEBUG")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	const token, password, script = "tok-Secret-4711-Kq", "Correct-Horse-Battery-9", "echo startup-7c1f"
	srv := acctest.Server(t, computetest.WithToken(token))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories,
		Steps: []resource.TestStep{{
			Config: acctest.Provider(srv) + fmt.Sprintf(instanceWith, "secret", fmt.Sprintf(`password = %q
  metadata = { startup_script = %q }`, password, script)),
			Check: func(*terraform.State) error { return nil },
		}},
	})
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exchanges := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "  | ") {
			continue // the harness logs the test's configuration, which holds them
		}
		if strings.Contains(line, "compute API exchange") {
			exchanges++
		}
		for _, secret := range []string{token, password, script} {
			if strings.Contains(line, secret) {
				t.Errorf("%s:%d shows a secret: %.200s", logPath, n, line)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if exchanges == 0 {
		t.Errorf("the debug log shows no exchange with the service")
	}
}

// TestAccPacing applies 20 SSH keys at Terraform's parallelism against a service that refuses a
// request sooner than a tenth of a second after the one before (10 requests a second, no burst):
// the provider's one client paces them, at most the first request is refused with a 429.
func TestAccPacing(t *testing.T) {
	srv := acctest.Server(t, computetest.WithRateLimit(10, 1))
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: acctest.Provider(srv) + `
resource "compute_ssh_key" "k" {
  count      = 20
  name       = "k-${count.index}"
  public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn k${count.index}@example.com"
}
`,
			Check: func(*terraform.State) error {
				refused, all := 0, srv.Requests()
				for _, r := range all {
					if r.Status == 429 {
						refused++
					}
				}
				t.Logf("%d requests, %d refused with 429", len(all), refused)
				if refused > 1 {
					return fmt.Errorf("%d of %d requests were refused with 429, want at most the first", refused, len(all))
				}
				return nil
			},
		}},
	})
}
