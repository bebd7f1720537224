package compute_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

// webRequest is the instance the job Examples bring up.
func webRequest(name string) *compute.InstanceCreateRequest {
	return &compute.InstanceCreateRequest{Name: name, Hostname: name, Type: "vcpu-2_memory-4g",
		Region: "NORD-NO-KRS-1", Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}}
}

// CreateOnce makes the name the create's idempotency key: here the create's response is lost after
// the service made the instance, and CreateOnce finds it instead of creating a second, billed one.
// Run again (a retried CI job), it adopts the same instance.
func ExampleInstancesService_CreateOnce() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	srv.FailNext(1, computetest.Match{Method: "POST", Path: "/compute/v1/instances"},
		computetest.Fault{DropAfterProcessing: true})

	inst, err := c.Instances.CreateOnce(ctx, webRequest("ci-run-4711-web"))
	if err != nil {
		log.Fatal(err) // a *compute.NameError when the name leads to something else
	}
	fmt.Println(inst.ID, inst.Name)
	again, err := c.Instances.CreateOnce(ctx, webRequest("ci-run-4711-web"))
	if err != nil {
		log.Fatal(err)
	}
	page, err := c.Instances.List(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(again.ID, page.TotalCount, "instance")
	// Output:
	// ins-000001 ci-run-4711-web
	// ins-000001 1 instance
}

// FindByName returns every resource with the name: names are not unique on the service.
func ExampleInstancesService_FindByName() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	for _, name := range []string{"web", "db", "web"} {
		if _, err := c.Instances.Create(ctx, webRequest(name)); err != nil {
			log.Fatal(err)
		}
	}

	found, err := c.Instances.FindByName(ctx, "web")
	if err != nil {
		log.Fatal(err)
	}
	for _, inst := range found {
		fmt.Println(inst.ID, inst.Name)
	}
	// Output:
	// ins-000001 web
	// ins-000003 web
}

// WaitForStatus polls until the instance reaches the status, and ends at once with a
// *compute.WaitError matching ErrFailureStatus when it reaches a failure status instead.
func ExampleInstancesService_WaitForStatus() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inst, err := c.Instances.Create(ctx, webRequest("web"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive); err != nil {
		log.Fatal(err)
	}
	if err := c.Instances.Stop(ctx, inst.ID); err != nil {
		log.Fatal(err)
	}
	inst, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusStopped,
		compute.OnUpdate(func(i *compute.Instance) { fmt.Println("polled:", i.Status) }))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inst.ID, inst.Status)

	srv.SetInstanceStatus(inst.ID, compute.InstanceStatusError) // the service failed it
	_, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
	var werr *compute.WaitError
	if errors.As(err, &werr) && errors.Is(err, compute.ErrFailureStatus) {
		fmt.Println("failed:", werr.LastStatus)
	}
	// Output:
	// polled: stopped
	// ins-000001 stopped
	// failed: error
}

// DeleteAndWait deletes as soon as the service allows and returns once the resource is gone.
// Termination protection is an error unless RemoveProtection says to lift it.
func ExampleInstancesService_DeleteAndWait() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := webRequest("db")
	req.IsProtected = true
	inst, err := c.Instances.Create(ctx, req)
	if err != nil {
		log.Fatal(err)
	}

	err = c.Instances.DeleteAndWait(ctx, inst.ID)
	fmt.Println("protected:", errors.Is(err, compute.CodeTerminationProtected))
	// The fake's transitions are instant: poll it often.
	err = c.Instances.DeleteAndWait(ctx, inst.ID, compute.RemoveProtection(),
		compute.WithPollInterval(10*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Instances.Get(ctx, inst.ID)
	fmt.Println("gone:", errors.Is(err, compute.ErrNotFound))
	// Output:
	// protected: true
	// gone: true
}

// WaitAll waits for many resources at once and joins their errors; waits of one kind that run
// together share their polling, so a fleet costs a walk of the list, not a GET per resource.
func ExampleWaitAll() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ids []string
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		inst, err := c.Instances.Create(ctx, webRequest(name))
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, inst.ID)
	}

	err := compute.WaitAll(ctx, ids, func(ctx context.Context, id string) error {
		_, err := c.Instances.WaitForStatus(ctx, id, compute.InstanceStatusActive)
		return err
	})
	fmt.Println("all active:", err == nil)

	// Tear them down together, one the service failed included.
	srv.SetInstanceStatus(ids[1], compute.InstanceStatusError)
	err = compute.WaitAll(ctx, ids, func(ctx context.Context, id string) error {
		return c.Instances.DeleteAndWait(ctx, id)
	})
	fmt.Println("all gone:", err == nil)
	// Output:
	// all active: true
	// all gone: true
}

// CaptureResponse tells how one call went: here a Get whose first attempt met a 503 and was sent
// again.
func ExampleCaptureResponse() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client(compute.WithRetry(compute.RetryPolicy{MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond}))
	ctx := context.Background()
	inst, err := c.Instances.Create(ctx, webRequest("web"))
	if err != nil {
		log.Fatal(err)
	}
	srv.FailNext(1, computetest.Match{Method: "GET"}, computetest.Fault{Status: 503})

	var resp compute.Response
	if _, err := c.Instances.Get(compute.CaptureResponse(ctx, &resp), inst.ID); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Operation, resp.Method, resp.Path)
	fmt.Println(resp.StatusCode, resp.Attempts, resp.RequestID != "")
	// Output:
	// Instances.Get GET /compute/v1/instances/{instance_id}
	// 200 2 true
}

// An Observer is told about every call and attempt of a client, for metrics, traces or logs: here
// a 429 is retried after the wait the service asked for.
func ExampleObserver() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client(
		compute.WithRetry(compute.RetryPolicy{MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond}),
		compute.WithObserver(compute.Observer{
			Attempt: func(_ context.Context, a compute.Attempt) {
				line := fmt.Sprint("attempt ", a.Number, " ", a.Call.Operation, " ", a.StatusCode)
				if a.Retried {
					line += " retried: " + a.Reason
				}
				fmt.Println(line)
			},
			CallEnd: func(_ context.Context, r compute.Response, err error) {
				fmt.Println("call", r.Operation, r.StatusCode, r.Attempts, err)
			},
		}))
	srv.FailNext(1, computetest.Match{Method: "GET"}, computetest.Fault{Status: 429})

	if _, err := c.Images.List(context.Background(), nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// attempt 1 Images.List 429 retried: rate limited
	// attempt 2 Images.List 200
	// call Images.List 200 2 <nil>
}
