package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// flavour is a provider the run drives: ours (type compute) or the service's own (genesiscloud),
// whose configurations differ only in the type names and the provider block.
type flavour struct {
	typeName string // compute or genesiscloud: the prefix of every resource type
	source   string // its source address, as required_providers names it
	bin      string // the provider binary
	tokenEnv string // the environment variable its token is read from
}

// The two providers' defaults.
const (
	ourType         = "compute"
	ourSource       = "compute-sdk/compute"
	officialType    = "genesiscloud"
	officialSource  = "genesiscloud/genesiscloud"
	ourTokenEnv     = "COMPUTE_API_TOKEN"
	officialToken   = "GENESISCLOUD_TOKEN"
	region          = "NORD-NO-KRS-1"
	image           = "ubuntu-24.04"
	instanceType    = "vcpu-2_memory-4g"
	publicKey       = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn scalerun"
	instanceAddress = "_instance.web" // after the type name: the instances' resource address
)

// stackConfig is one state directory's configuration: count instances named web-first ..., one
// SSH key and one security group they all share, named after the stack.
type stackConfig struct {
	fl            flavour
	url           string  // compute-fake's base URL
	rate          float64 // the provider's rate (ours only)
	redisURL      string  // the provider's redis_url (ours only); "" for none
	adoptExisting bool    // the provider's adopt_existing (ours only)
	first, count  int
	name          string // the SSH key's and the security group's name
}

// hcl is the configuration's main.tf.
func (c stackConfig) hcl() string {
	var b strings.Builder
	t := c.fl.typeName
	fmt.Fprintf(&b, "terraform {\n  required_providers {\n    %s = { source = %q }\n  }\n}\n\n", t, c.fl.source)
	fmt.Fprintf(&b, "provider %q {\n", t)
	if t == ourType {
		fmt.Fprintf(&b, "  endpoint = %q\n", c.url)
		fmt.Fprintf(&b, "  rate     = %s\n", strconv.FormatFloat(c.rate, 'g', -1, 64))
		if c.adoptExisting {
			b.WriteString("  adopt_existing = true\n")
		}
		if c.redisURL != "" {
			fmt.Fprintf(&b, "  redis_url = %q\n", c.redisURL)
		}
	} else {
		// The service's own provider takes the base URL with the API's path.
		fmt.Fprintf(&b, "  endpoint = %q\n", strings.TrimSuffix(c.url, "/")+"/compute/v1")
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "resource \"%s_ssh_key\" \"key\" {\n  name       = %q\n  public_key = %q\n}\n\n", t, c.name, publicKey)
	fmt.Fprintf(&b, `resource "%s_security_group" "group" {
  name   = %q
  region = %q
  rules = [{ direction = "ingress", protocol = "tcp", port_range_min = 22, port_range_max = 22 }]
}

`, t, c.name, region)
	fmt.Fprintf(&b, `resource "%s_instance" "web" {
  count              = %d
  name               = "web-${count.index + %d}"
  region             = %q
  image              = %q
  type               = %q
  ssh_key_ids        = [%s_ssh_key.key.id]
  security_group_ids = [%s_security_group.group.id]
}
`, t, c.count, c.first, region, image, instanceType, t, t)
	return b.String()
}

// writeStack makes dir and writes the configuration in it.
func writeStack(dir string, c stackConfig) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.tf"), []byte(c.hcl()), 0o600)
}

// cliConfig writes, in dir, a Terraform CLI configuration whose dev_overrides point each
// provider's source address at a directory holding its binary under the name Terraform looks for,
// so that no registry is asked, and returns its path.
func cliConfig(dir string, fls ...flavour) (string, error) {
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, fl := range fls {
		pdir := filepath.Join(dir, "providers", fl.typeName)
		if err := os.MkdirAll(pdir, 0o700); err != nil {
			return "", err
		}
		bin, err := filepath.Abs(fl.bin)
		if err != nil {
			return "", err
		}
		link := filepath.Join(pdir, "terraform-provider-"+fl.typeName)
		_ = os.Remove(link)
		if err := os.Symlink(bin, link); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "    %q = %q\n", fl.source, pdir)
	}
	b.WriteString("  }\n}\n")
	path := filepath.Join(dir, "cli.tfrc")
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}
