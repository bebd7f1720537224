// Command cleanup deletes every resource whose name starts with a prefix, of every kind, in the
// order the service's references need: instances first (they hold volumes, security groups and
// floating IPs, and were maybe built from snapshots), then snapshots, volumes, filesystems,
// floating IPs, security groups and SSH keys. It waits for an instance that is still creating,
// starting or stopping, and for each resource to be gone before the kinds that depend on it. It
// keeps termination-protected instances unless given -force, which removes the protection first.
//
//	go run ./examples/cleanup -prefix quickstart- [-force] [-dry-run]
//
// With no COMPUTE_API_URL and COMPUTE_API_TOKEN set it runs against an embedded computetest server
// that it first fills with matching resources in every state it handles. On a real service it
// deletes only with -yes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/examples/internal/setup"
)

func main() {
	// A bound on the whole run, so that a service that never finishes a delete cannot hold it forever.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cleanup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	prefix := fs.String("prefix", "", "delete resources whose name starts with this (required)")
	force := fs.Bool("force", false, "also delete termination-protected instances")
	dryRun := fs.Bool("dry-run", false, "only print what the run would do (delete, or keep a protected instance), deleting nothing")
	yes := fs.Bool("yes", false, "allow deleting on a real service")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if strings.TrimSpace(*prefix) == "" {
		fmt.Fprintln(stderr, "cleanup: -prefix is required (an empty prefix would match everything)")
		return 2
	}
	env, release, err := setup.New(stdout)
	if err != nil {
		fmt.Fprintln(stderr, "cleanup:", setup.Describe(err))
		return 1
	}
	defer release()
	if env.Remote && !*yes && !*dryRun {
		fmt.Fprintln(stderr, "cleanup: refusing to delete on a real service without -yes (try -dry-run)")
		return 2
	}
	if !env.Remote {
		if err := fill(ctx, env, *prefix); err != nil {
			fmt.Fprintln(stderr, "cleanup: filling the embedded server:", setup.Describe(err))
			return 1
		}
	}
	cl := &cleaner{c: env.Client, out: stdout, prefix: *prefix, force: *force, dryRun: *dryRun}
	if err := cl.run(ctx); err != nil {
		fmt.Fprintln(stderr, "cleanup:", setup.Describe(err))
		return 1
	}
	return 0
}

// target is one resource to delete.
type target struct {
	id, name string
	// protected says the list showed termination protection on (an instance), which keeps it
	// unless -force is given.
	protected bool
}

// kind is one kind of resource: its matching resources, and how to delete one and wait until it
// is gone.
type kind struct {
	name   string
	find   func(ctx context.Context, match func(name string) bool) ([]target, error)
	delete func(ctx context.Context, id string) error
}

type cleaner struct {
	c             *compute.Client
	out           io.Writer
	prefix        string
	force, dryRun bool

	mu                   sync.Mutex
	deleted, kept, fails int
}

// run deletes kind after kind. It collects a kind's IDs before deleting any of them, so that
// deleting does not shift the pages being walked, and deletes them all at once: their waits share
// their polling.
func (cl *cleaner) run(ctx context.Context) error {
	match := func(name string) bool { return strings.HasPrefix(name, cl.prefix) }
	for _, k := range cl.kinds() {
		targets, err := k.find(ctx, match)
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		for _, t := range targets {
			if cl.dryRun {
				cl.plan(k, t)
				continue
			}
			wg.Go(func() { cl.delete(ctx, k, t) })
		}
		wg.Wait()
	}
	if cl.dryRun {
		fmt.Fprintf(cl.out, "would delete %d, keep %d\n", cl.deleted, cl.kept)
		return nil
	}
	fmt.Fprintf(cl.out, "deleted %d, kept %d, failed %d\n", cl.deleted, cl.kept, cl.fails)
	if cl.fails > 0 {
		return fmt.Errorf("%d deletions failed", cl.fails)
	}
	return nil
}

// plan says what the run would do with one resource, as it would do it: a protected instance is
// kept without -force, as the service refuses its delete.
func (cl *cleaner) plan(k kind, t target) {
	if t.protected && !cl.force {
		fmt.Fprintf(cl.out, "would keep %s %s %s: termination protected (use -force)\n", k.name, t.id, t.name)
		cl.kept++
		return
	}
	fmt.Fprintf(cl.out, "would delete %s %s %s\n", k.name, t.id, t.name)
	cl.deleted++
}

// delete deletes one resource and waits until it is gone. The service refuses to delete a
// protected instance with code 02038, which is how protection is learned: without -force the
// instance is kept.
func (cl *cleaner) delete(ctx context.Context, k kind, t target) {
	err := k.delete(ctx, t.id)
	cl.mu.Lock()
	defer cl.mu.Unlock()
	switch {
	case errors.Is(err, compute.CodeTerminationProtected):
		fmt.Fprintf(cl.out, "keep    %s %s %s: termination protected (use -force)\n", k.name, t.id, t.name)
		cl.kept++
	case err != nil:
		fmt.Fprintf(cl.out, "FAILED  %s %s: %s\n", k.name, t.id, setup.Describe(err))
		cl.fails++
	default:
		fmt.Fprintf(cl.out, "deleted %s %s %s\n", k.name, t.id, t.name)
		cl.deleted++
	}
}

// kinds are every kind of resource, in the order of a teardown.
func (cl *cleaner) kinds() []kind {
	c := cl.c
	var opts []compute.DeleteOption
	if cl.force {
		opts = append(opts, compute.RemoveProtection())
	}
	return []kind{
		{"instance", finder(c.Instances.All, func(v compute.Instance) target { return target{v.ID, v.Name, v.IsProtected} }),
			func(ctx context.Context, id string) error { return c.Instances.DeleteAndWait(ctx, id, opts...) }},
		{"snapshot", finder(c.Snapshots.All, func(v compute.Snapshot) target { return target{id: v.ID, name: v.Name} }),
			func(ctx context.Context, id string) error { return c.Snapshots.DeleteAndWait(ctx, id) }},
		{"volume", finder(c.Volumes.All, func(v compute.Volume) target { return target{id: v.ID, name: v.Name} }),
			func(ctx context.Context, id string) error { return c.Volumes.DeleteAndWait(ctx, id) }},
		{"filesystem", finder(c.Filesystems.All, func(v compute.Filesystem) target { return target{id: v.ID, name: v.Name} }),
			func(ctx context.Context, id string) error { return c.Filesystems.DeleteAndWait(ctx, id) }},
		{"floating-ip", finder(c.FloatingIPs.All, func(v compute.FloatingIP) target { return target{id: v.ID, name: v.Name} }),
			func(ctx context.Context, id string) error { return c.FloatingIPs.DeleteAndWait(ctx, id) }},
		{"security-group", finder(c.SecurityGroups.All, func(v compute.SecurityGroup) target { return target{id: v.ID, name: v.Name} }),
			func(ctx context.Context, id string) error { return c.SecurityGroups.DeleteAndWait(ctx, id) }},
		{"ssh-key", finder(c.SSHKeys.All, func(v compute.SSHKey) target { return target{id: v.ID, name: v.Name} }),
			func(ctx context.Context, id string) error { return c.SSHKeys.DeleteAndWait(ctx, id) }},
	}
}

// finder lists a kind with its All method and keeps the resources whose name matches.
func finder[T any](all func(context.Context, *compute.ListOptions) iter.Seq2[T, error], of func(T) target) func(context.Context, func(string) bool) ([]target, error) {
	return func(ctx context.Context, match func(string) bool) ([]target, error) {
		var found []target
		for v, err := range all(ctx, &compute.ListOptions{PerPage: compute.MaxPerPage}) {
			if err != nil {
				return nil, err
			}
			if t := of(v); match(t.name) {
				found = append(found, t)
			}
		}
		return found, nil
	}
}

// fill fills the embedded fake with matching resources in every state cleanup handles, and one
// instance that does not match: an active instance with a security group, a floating IP and an
// attached volume, a snapshot of it, a protected instance, one still creating and one stopping, a
// filesystem and an SSH key.
func fill(ctx context.Context, env *setup.Env, prefix string) error {
	c := env.Client
	sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: prefix + "sg", Region: env.Region})
	if err != nil {
		return err
	}
	ip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: prefix + "ip", Region: env.Region})
	if err != nil {
		return err
	}
	vol, err := c.Volumes.Create(ctx, &compute.VolumeCreateRequest{Name: prefix + "vol", Region: env.Region, Size: 10})
	if err != nil {
		return err
	}
	if _, err := c.Volumes.WaitForStatus(ctx, vol.ID, compute.VolumeStatusCreated); err != nil {
		return err
	}
	if _, err := c.Filesystems.Create(ctx, &compute.FilesystemCreateRequest{Name: prefix + "fs", Region: env.Region, Size: 10}); err != nil {
		return err
	}
	key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: prefix + "key",
		Value: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH4x9Jk2Q7v5Zp1cW3mN8bR6tY0uE2oI4aS6dF8gH0jK cleanup@example"})
	if err != nil {
		return err
	}
	instance := func(name string) *compute.InstanceCreateRequest {
		return &compute.InstanceCreateRequest{Name: name, Hostname: "h", Type: env.Type, Region: env.Region,
			Image: env.Image, SSHKeys: []string{key.ID}}
	}
	vm := instance(prefix + "vm-1")
	vm.SecurityGroups, vm.FloatingIP, vm.Volumes = []string{sg.ID}, ip.ID, []string{vol.ID}
	active, err := setup.CreateActive(ctx, c, vm)
	if err != nil {
		return err
	}
	if _, err := c.Snapshots.Create(ctx, active.ID, &compute.SnapshotCreateRequest{Name: prefix + "snap"}); err != nil {
		return err
	}
	protected := instance(prefix + "vm-protected")
	protected.IsProtected = true
	if _, err := setup.CreateActive(ctx, c, protected); err != nil {
		return err
	}
	if _, err := setup.CreateActive(ctx, c, instance("other-vm")); err != nil {
		return err
	}
	stopping, err := setup.CreateActive(ctx, c, instance(prefix+"vm-stopping"))
	if err != nil {
		return err
	}
	if err := c.Instances.Stop(ctx, stopping.ID); err != nil {
		return err
	}
	_, err = c.Instances.Create(ctx, instance(prefix+"vm-creating"))
	return err
}
