package provider_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

// TestExamplesFormatted holds examples/ to terraform fmt.
func TestExamplesFormatted(t *testing.T) {
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Skip("no terraform on PATH")
	}
	cmd := exec.Command(tf, "fmt", "-recursive", "-check", "-diff", filepath.Join(root, "examples"))
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("terraform fmt would change examples/ (%v):\n%s", err, out)
	}
}

// terraformBlock matches the example's terraform block, which the test harness writes itself.
var terraformBlock = regexp.MustCompile(`(?s)terraform \{\n.*?\n\}\n`)

// TestAccExamples applies every example of the docs against the fake, plans no change after it, and
// destroys it.
func TestAccExamples(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(root, "examples", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, filepath.Join(root, "examples", "provider"))
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
		if len(files) == 0 {
			continue
		}
		t.Run(strings.TrimPrefix(dir, root+"/examples/"), func(t *testing.T) {
			srv := acctest.Server(t)
			var cfg strings.Builder
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Write(b)
			}
			config := terraformBlock.ReplaceAllString(cfg.String(), "")
			if strings.Contains(config, `provider "compute" {`) {
				config = strings.Replace(config, `provider "compute" {`, strings.TrimSuffix(strings.TrimSpace(acctest.Provider(srv)), "}"), 1)
			} else {
				config = acctest.Provider(srv) + config
			}
			acctest.Test(t, resource.TestCase{
				Steps: []resource.TestStep{{Config: config}, {Config: config, PlanOnly: true}},
			})
		})
	}
}
