// Command terraform-provider-compute is the Terraform provider for the Compute Resource Management
// API, built on the compute-go SDK. Terraform starts it; -version prints its version, -debug runs
// it for a debugger.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

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
	if !*debug { // a provider run for a debugger writes to its developer's terminal
		quietUnlessAsked()
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

// logVars are the environment variables by which a user asks Terraform for logs that include the
// provider's (TF_LOG_PROVIDER_COMPUTE names this provider alone).
var logVars = []string{"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_PROVIDER_COMPUTE", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// quietVars set the levels of the provider's own logger (TF_LOG_PROVIDER_ and the name in
// Address) and of the plugin libraries' loggers, which log at the trace level when unset.
var quietVars = []string{"TF_LOG_PROVIDER_COMPUTE", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// quietUnlessAsked turns the provider's logs and those of the plugin libraries off (quietVars)
// when none of logVars is set. Terraform then drops every line a provider writes, but the
// libraries write theirs at the trace level all the same, a dozen for each resource planned or
// applied, and formatting them took about half of a plan's time. Any of logVars set leaves every
// level as the user chose.
func quietUnlessAsked() {
	for _, v := range logVars {
		if os.Getenv(v) != "" {
			return
		}
	}
	for _, v := range quietVars {
		_ = os.Setenv(v, "OFF")
	}
}
