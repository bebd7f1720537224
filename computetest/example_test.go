package computetest_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

// activeNames is the code under test in this example: something a user writes on top of the SDK.
func activeNames(ctx context.Context, c *compute.Client) ([]string, error) {
	var names []string
	for inst, err := range c.Instances.All(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if inst.Status == compute.InstanceStatusActive {
			names = append(names, inst.Name)
		}
	}
	return names, nil
}

// Using computetest in your own tests: start a fake, arrange state through the SDK (or force it with
// SetInstanceStatus), inject the failure you want to handle, and assert on what your code did and on
// the requests the fake received. In a real test, replace log.Fatal with t.Fatal and use
// t.Cleanup(srv.Close).
func ExampleNewServer() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	for _, name := range []string{"web-1", "web-2"} {
		if _, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: name, Hostname: name,
			Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}}); err != nil {
			log.Fatal(err)
		}
	}
	srv.SetInstanceStatus("ins-000002", compute.InstanceStatusError)

	names, err := activeNames(ctx, c)
	fmt.Println(names, err)

	// The failure path: the service responds 403 to the next list.
	srv.FailNext(1, computetest.Match{Method: "GET", Path: "/compute/v1/instances"},
		computetest.Fault{Status: 403, Code: compute.CodePermissionDenied, Message: "Permission denied"})
	_, err = activeNames(ctx, c)
	fmt.Println(errors.Is(err, compute.ErrForbidden))

	last := srv.Requests()[len(srv.Requests())-1]
	fmt.Println(last.Method, last.Path, last.Status)
	// Output:
	// [web-1] <nil>
	// true
	// GET /compute/v1/instances 403
}
