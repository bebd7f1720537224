package compute_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// The main flow: create an instance and wait until it runs. A create is never re-sent once it may
// have reached the service, so an unknown outcome means "look it up", not "try again".
func Example() {
	c, err := compute.NewClient("token", compute.WithBaseURL("https://api.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
		Name:     "web-1",
		Hostname: "web-1",
		Type:     "standard-2",
		Region:   "eu-1",
		Image:    "ubuntu-24.04",
		SSHKeys:  []string{"key-1"},
	})
	switch {
	case errors.Is(err, compute.ErrOutcomeUnknown):
		log.Fatal("the instance may exist: list instances named web-1 before creating again")
	case err != nil:
		log.Fatal(err)
	}
	inst, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive,
		compute.OnUpdate(func(i *compute.Instance) { log.Println("status:", i.Status) }))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inst.PublicIP)
}

// Errors match a sentinel of their status class or a service error code.
func ExampleAPIError() {
	c, err := compute.NewClient("token", compute.WithBaseURL("https://api.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	err = c.Instances.Delete(context.Background(), "i-123")
	var apiErr *compute.APIError
	switch {
	case errors.Is(err, compute.ErrNotFound):
		// already gone
	case errors.Is(err, compute.CodeTerminationProtected):
		_, err = c.Instances.Update(context.Background(), "i-123", &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)})
	case errors.As(err, &apiErr):
		log.Printf("status %d, code %s, request %s", apiErr.StatusCode, apiErr.Code, apiErr.RequestID)
	}
	_ = err
}

// All walks every page lazily; breaking out of the loop stops fetching.
func ExampleInstancesService_All() {
	c, err := compute.NewClient("token", compute.WithBaseURL("https://api.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	for inst, err := range c.Instances.All(context.Background(), &compute.ListOptions{PerPage: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(inst.ID, inst.Name, inst.Status)
	}
}

// In an update, a nil slice keeps the current list and an empty one clears it; pointer fields are
// sent only when set, so false and 0 can be sent on purpose.
func ExampleInstanceUpdateRequest() {
	detachAll := &compute.InstanceUpdateRequest{SecurityGroups: []string{}}
	unprotect := &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)}
	fmt.Println(detachAll.Validate() == nil, unprotect.Validate() == nil)
	// Output: true true
}
