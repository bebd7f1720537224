package file_test

import (
	"context"
	"fmt"
	"log"
	"os"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
)

// Every process that uses the token builds its client the same way: together they hold the
// account's rate, through a file in the user's cache directory. Here the service is computetest's
// fake, and the directory a temporary one.
func Example() {
	srv := computetest.NewServer()
	defer srv.Close()
	token, url := srv.Token, srv.URL

	dir, err := os.MkdirTemp("", "compute-ratelimit-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	lim, err := ratelimitfile.New(token,
		ratelimitfile.WithDir(dir), // leave it out for the user's cache directory
		ratelimitfile.WithErrorHandler(func(err error) {
			if err != nil {
				log.Printf("rate limiter: %v", err) // this process paces alone for a while
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer lim.Close()
	c, err := compute.NewClient(token, compute.WithBaseURL(url), compute.WithLimiter(lim))
	if err != nil {
		log.Fatal(err)
	}
	page, err := c.Instances.List(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("instances:", page.TotalCount)
	// Output: instances: 0
}
