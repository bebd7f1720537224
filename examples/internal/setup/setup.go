// Package setup gives the example programs their client: the service named by COMPUTE_API_URL and
// COMPUTE_API_TOKEN when either is set (both are then needed), otherwise an embedded computetest
// server, so that every example runs on a fresh machine with no account.
package setup

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
)

// Env is where the examples' client points.
type Env struct {
	// Client is the SDK client.
	Client *compute.Client
	// Remote is true when the client talks to a real service named by the environment.
	Remote bool
	// Server is the embedded fake, nil when Remote.
	Server *computetest.Server
	// Region, Type and Image are what the examples create with: the fake's catalogue, or the
	// values of COMPUTE_REGION, COMPUTE_TYPE and COMPUTE_IMAGE for a real service.
	Region, Type, Image string
}

// Transition is how long each lifecycle step takes on the embedded fake: long enough to show the
// status changes, short enough for a quick run.
const Transition = 600 * time.Millisecond

// New returns the environment and a function that releases it. It says on out which one it is.
// The embedded fake starts with its default catalogue, seeded SSH keys and volumes included.
func New(out io.Writer) (*Env, func(), error) { return newEnv(out, computetest.DefaultCatalog()) }

// NewEmptyAccount is New whose embedded fake starts as a new account: the service's regions, types
// and images, but no SSH key, volume or reservation, so that whatever a program leaves behind
// shows in a count.
func NewEmptyAccount(out io.Writer) (*Env, func(), error) {
	cat := computetest.DefaultCatalog()
	cat.SSHKeys, cat.Volumes, cat.Reservations = nil, nil, nil
	return newEnv(out, cat)
}

func newEnv(out io.Writer, cat computetest.Catalog) (*Env, func(), error) {
	url, token := os.Getenv(compute.EnvBaseURL), os.Getenv(compute.EnvToken)
	if url != "" || token != "" {
		c, err := compute.NewClientFromEnv(compute.WithUserAgent("compute-go-examples"))
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(out, "Using the service at %s (from %s).\n", url, compute.EnvBaseURL)
		return &Env{Client: c, Remote: true, Region: envOr("COMPUTE_REGION", "NORD-NO-KRS-1"),
			Type: envOr("COMPUTE_TYPE", "vcpu-2_memory-4g"), Image: envOr("COMPUTE_IMAGE", "ubuntu-24.04")}, func() {}, nil
	}
	// In memory: nothing else on the machine can reach the fake, and a test can run a whole example
	// inside a testing/synctest bubble, where the transitions take no real time.
	srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithCatalog(cat),
		computetest.WithDurations(computetest.UniformDurations(Transition)))
	c, err := srv.NewClient(compute.WithUserAgent("compute-go-examples"))
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	fmt.Fprintf(out, "No %s/%s set: using an embedded computetest server (in memory).\n", compute.EnvBaseURL, compute.EnvToken)
	return &Env{Client: c, Server: srv, Region: "NORD-NO-KRS-1", Type: "vcpu-2_memory-4g", Image: "ubuntu-24.04"}, srv.Close, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// Describe renders an error with its service code when it has one, for progress lines.
func Describe(err error) string {
	if code := compute.CodeOf(err); code != "" {
		return fmt.Sprintf("%v [code %s]", err, string(code))
	}
	return err.Error()
}

// CreateActive creates an instance and waits until it is active, polling often: the examples fill
// the embedded fake with it, whose instances start "creating".
func CreateActive(ctx context.Context, c *compute.Client, req *compute.InstanceCreateRequest) (*compute.Instance, error) {
	inst, err := c.Instances.Create(ctx, req)
	if err != nil {
		return nil, err
	}
	return c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive,
		compute.WithPollInterval(100*time.Millisecond, time.Second))
}
