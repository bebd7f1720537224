// Command terraform-provider-compute is the Terraform provider for the Compute Resource Management
// API, built on the compute-go SDK. Terraform starts it; -version prints its version, -debug runs
// it for a debugger.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/provider"
)

// Address is the provider's source address in the registry.
const Address = "registry.terraform.io/compute-sdk/compute"

func main() {
	debug := flag.Bool("debug", false, "run the provider for a debugger (it prints TF_REATTACH_PROVIDERS to use)")
	printVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *printVersion {
		fmt.Println("terraform-provider-compute " + buildVersion())
		return
	}
	err := providerserver.Serve(context.Background(), provider.New(buildVersion()), providerserver.ServeOpts{
		Address: Address,
		Debug:   *debug,
	})
	// Serve returns once Terraform has stopped the provider: leave the Redis budgets now, so that the
	// token's other processes need not wait for this one's slots to expire. A failure to leave
	// costs them only that wait.
	_ = provider.Close()
	if err != nil {
		log.Fatal(err)
	}
}
