package compute_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

// A client needs a token and a base URL; every option can fail, so misconfiguration is an error at
// construction, not at the first call. (Here the base URL is a computetest fake.)
func ExampleNewClient() {
	srv := computetest.NewServer()
	defer srv.Close()

	c, err := compute.NewClient(srv.Token,
		compute.WithBaseURL(srv.URL),
		compute.WithTimeout(10*time.Second),
		compute.WithUserAgent("my-tool/1.0"),
	)
	if err != nil {
		log.Fatal(err)
	}
	page, err := c.Images.List(context.Background(), &compute.ImageListOptions{Type: compute.ImageTypeCloudImage})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Items[0].Slug, page.Items[0].Versions)
	// Output: ubuntu [22.04 24.04]
}

// The main flow: create an instance and wait until it runs. A create is never re-sent once it may
// have reached the service, so an unknown outcome means "look it up", not "try again".
func Example() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
		Name:     "web-1",
		Hostname: "web-1",
		Type:     "vcpu-2_memory-4g",
		Region:   "NORD-NO-KRS-1",
		Image:    "ubuntu-24.04",
		SSHKeys:  []string{"key-ci"},
	})
	switch {
	case errors.Is(err, compute.ErrOutcomeUnknown):
		log.Fatal("the instance may exist: list instances named web-1 before creating again")
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println(inst.ID, inst.Status)
	inst, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive,
		compute.OnUpdate(func(i *compute.Instance) { fmt.Println("polled:", i.Status) }))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inst.ID, inst.Status, inst.PrivateIP)
	// Output:
	// ins-000001 creating
	// polled: active
	// ins-000001 active 10.0.0.2
}

// All walks every page lazily with range; breaking out of the loop stops fetching.
func ExampleInstancesService_All() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	for _, name := range []string{"web-1", "web-2", "db-1", "db-2"} {
		_, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: name, Hostname: name,
			Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12", SSHKeys: []string{"key-ci"}})
		if err != nil {
			log.Fatal(err)
		}
	}

	for inst, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(inst.ID, inst.Name)
		if inst.Name == "db-1" {
			break // page 2 was the last one fetched
		}
	}
	// Output:
	// ins-000001 web-1
	// ins-000002 web-2
	// ins-000003 db-1
}

// Errors match a sentinel of their status class or a service error code with errors.Is, and give
// every detail with errors.As.
func ExampleAPIError() {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: "db", Hostname: "db",
		Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12", SSHKeys: []string{"key-ci"}, IsProtected: true})
	if err != nil {
		log.Fatal(err)
	}

	err = c.Instances.Delete(ctx, inst.ID)
	var apiErr *compute.APIError
	switch {
	case errors.Is(err, compute.ErrNotFound):
		fmt.Println("already gone")
	case errors.Is(err, compute.CodeTerminationProtected):
		fmt.Println("protected:", compute.CodeOf(err).Description())
	case errors.As(err, &apiErr):
		fmt.Println("status", apiErr.StatusCode, "code", apiErr.Code)
	}

	_, err = c.Instances.Get(ctx, "ins-missing")
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, string(apiErr.Code), apiErr.Attempts)
	}
	// Output:
	// protected: The instance is termination protected
	// 404 02008 1
}

// Retries and the rate limit are options: here 503s are retried with short waits, and the client
// stays under 50 requests per second, shared by every goroutine that uses it.
func ExampleWithRetry() {
	srv := computetest.NewServer()
	defer srv.Close()
	srv.FailNext(2, computetest.Match{Method: "GET"}, computetest.Fault{Status: 503, Code: compute.CodeOutOfStock})

	c := srv.Client(
		compute.WithRetry(compute.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond}),
		compute.WithRateLimit(50, 1),
	)
	page, err := c.Images.List(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page.Items), "images after", len(srv.Requests()), "attempts")
	// Output: 6 images after 3 attempts
}

// In an update, a nil slice keeps the current list and an empty one clears it; pointer fields are
// sent only when set, so false and 0 can be sent on purpose.
func ExampleInstanceUpdateRequest() {
	detachAll := &compute.InstanceUpdateRequest{SecurityGroups: []string{}}
	unprotect := &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)}
	fmt.Println(detachAll.Validate() == nil, unprotect.Validate() == nil)
	// Output: true true
}

// An instance is created with an SSH key stored first: the key's ID goes in ssh_keys. (Compiled, not
// run: it needs an account, COMPUTE_API_TOKEN and COMPUTE_API_URL.)
func ExampleSSHKeysService_Create() {
	c, err := compute.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	pub, err := os.ReadFile(os.ExpandEnv("$HOME/.ssh/id_ed25519.pub"))
	if err != nil {
		log.Fatal(err)
	}
	key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: "laptop", Value: string(pub)})
	if err != nil {
		log.Fatal(err)
	}
	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
		Name: "web-1", Hostname: "web-1", Type: "n3-RTX-A6000x1", Region: compute.RegionNORDNOKRS1,
		Image: "ubuntu-24.04", SSHKeys: []string{key.ID},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inst.ID, inst.SSHKeys)
}

// A volume is created, awaited until it can be attached, then attached to one instance without
// reading the instance's current list of volumes. (Compiled, not run: it needs an account.)
func ExampleInstancesService_AttachVolume() {
	c, err := compute.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	vol, err := c.Volumes.Create(ctx, &compute.VolumeCreateRequest{
		Name: "data", Region: compute.RegionNORDNOKRS1, Size: 100, Type: compute.VolumeTypeSSD,
	})
	if err != nil {
		log.Fatal(err)
	}
	if vol, err = c.Volumes.WaitForStatus(ctx, vol.ID, compute.VolumeStatusCreated); err != nil {
		log.Fatal(err)
	}
	inst, err := c.Instances.AttachVolume(ctx, "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", vol.ID)
	switch {
	case errors.Is(err, compute.CodeVolumeAlreadyAttached):
		fmt.Println("already attached")
	case errors.Is(err, compute.ErrOutcomeUnknown):
		log.Fatal("the attach may have happened: read the instance before trying again")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(inst.Volumes)
	}
}

// The quotas tell how much room is left before a create fails with a quota code. (Compiled, not run:
// it needs an account.)
func ExampleQuotasService_List() {
	c, err := compute.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	quotas, err := c.Quotas.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range quotas {
		fmt.Printf("%s: %d of %d used\n", q.Key, q.Used, q.Capacity)
	}
}
