// Command errors shows how to tell failures apart with errors.Is and errors.As: by status class
// (compute.ErrNotFound), by the service's code (compute.CodeTerminationProtected), as an
// *APIError, as a *ValidationError refused before sending, and an unknown outcome.
//
//	go run ./examples/errors
//
// It provokes each failure on an embedded computetest server (or, with COMPUTE_API_URL and
// COMPUTE_API_TOKEN set, only the read-only and refused-before-sending cases on that service).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/compute-sdk/compute-go/examples/internal/setup"
)

func main() {
	os.Exit(run(context.Background(), os.Stdout, os.Stderr))
}

func run(ctx context.Context, stdout, stderr io.Writer) int {
	env, release, err := setup.New(stdout)
	if err != nil {
		fmt.Fprintln(stderr, "errors:", setup.Describe(err))
		return 1
	}
	defer release()
	c := env.Client

	// A status class and a code: a missing instance.
	_, err = c.Instances.Get(ctx, "ins-does-not-exist")
	explain(stdout, "get a missing instance", err)

	// Refused before sending: the SDK knows a password must have 16 characters.
	_, err = c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "x", Hostname: "x", Type: env.Type,
		Region: env.Region, Image: env.Image, Password: "short"})
	explain(stdout, "create with a short password", err)

	if env.Remote {
		return 0 // the rest creates resources, which we do not do on a real account here
	}

	// A condition of the service: a protected instance cannot be destroyed.
	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "keep", Hostname: "keep",
		Type: env.Type, Region: env.Region, Image: env.Image, SSHKeys: []string{"key-ci"}, IsProtected: true})
	if err != nil {
		fmt.Fprintln(stderr, "errors:", setup.Describe(err))
		return 1
	}
	explain(stdout, "delete a protected instance", c.Instances.Delete(ctx, inst.ID))

	// An unknown outcome: the fake takes the create, then drops the connection before responding.
	env.Server.FailNext(1, computetest.Match{Method: "POST", Path: "/compute/v1/instances"},
		computetest.Fault{DropAfterProcessing: true})
	_, err = c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "lost", Hostname: "lost",
		Type: env.Type, Region: env.Region, Image: env.Image, SSHKeys: []string{"key-ci"}})
	explain(stdout, "create whose response is lost", err)
	return 0
}

// explain prints how a program would recognise err.
func explain(out io.Writer, what string, err error) {
	fmt.Fprintf(out, "%s:\n", what)
	var apiErr *compute.APIError
	var valErr *compute.ValidationError
	switch {
	case err == nil:
		fmt.Fprintln(out, "    no error")
	case errors.As(err, &valErr):
		fmt.Fprintf(out, "    refused before sending: field %q %s\n", valErr.Field, valErr.Reason)
	case errors.Is(err, compute.ErrOutcomeUnknown):
		fmt.Fprintln(out, "    outcome unknown: it may have happened; look it up before trying again")
	case errors.Is(err, compute.CodeTerminationProtected):
		fmt.Fprintln(out, "    termination protected: unprotect it first (IsProtected: compute.Ptr(false))")
	case errors.Is(err, compute.ErrNotFound) && errors.As(err, &apiErr):
		fmt.Fprintf(out, "    not found: status %d, code %s\n", apiErr.StatusCode, apiErr.Code)
	case errors.As(err, &apiErr):
		fmt.Fprintf(out, "    API error: status %d, code %s, request %s\n", apiErr.StatusCode, apiErr.Code, apiErr.RequestID)
	default:
		fmt.Fprintf(out, "    other error: %v\n", err)
	}
}
