// Command cleanup deletes every instance, floating IP and security group whose name starts with a
// prefix. It skips termination-protected instances unless given -force, in which case it removes
// the protection first.
//
//	go run ./examples/cleanup -prefix quickstart- [-force] [-dry-run]
//
// With no COMPUTE_API_URL and COMPUTE_API_TOKEN set it runs against an embedded computetest server
// that it first fills with matching resources. On a real service it deletes only with -yes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
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
	dryRun := fs.Bool("dry-run", false, "only print what would be deleted")
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
		if err := seed(ctx, env, *prefix); err != nil {
			fmt.Fprintln(stderr, "cleanup: seeding the embedded server:", setup.Describe(err))
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

type cleaner struct {
	c                    *compute.Client
	out                  io.Writer
	prefix               string
	force, dryRun        bool
	deleted, kept, fails int
}

// run deletes instances first (they hold floating IPs and groups), waits until they are gone, then
// deletes floating IPs and security groups. It collects IDs before deleting, so that deleting does
// not shift the pages being walked.
func (cl *cleaner) run(ctx context.Context) error {
	c := cl.c
	var instances []compute.Instance
	for inst, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: 100}) {
		if err != nil {
			return err
		}
		if strings.HasPrefix(inst.Name, cl.prefix) {
			instances = append(instances, inst)
		}
	}
	var gone []string
	for _, inst := range instances {
		if inst.IsProtected && !cl.force {
			fmt.Fprintf(cl.out, "keep    instance %s %s: termination protected (use -force)\n", inst.ID, inst.Name)
			cl.kept++
			continue
		}
		if cl.dryRun {
			fmt.Fprintf(cl.out, "would delete instance %s %s\n", inst.ID, inst.Name)
			continue
		}
		if inst.IsProtected {
			if _, err := c.Instances.Update(ctx, inst.ID, &compute.InstanceUpdateRequest{IsProtected: compute.Ptr(false)}); err != nil {
				cl.fail("unprotect instance "+inst.ID, err)
				continue
			}
		}
		if err := c.Instances.Delete(ctx, inst.ID); err != nil && !errors.Is(err, compute.ErrNotFound) {
			cl.fail("delete instance "+inst.ID, err)
			continue
		}
		fmt.Fprintf(cl.out, "delete  instance %s %s\n", inst.ID, inst.Name)
		gone = append(gone, inst.ID)
	}
	for _, id := range gone {
		if err := c.Instances.WaitForDeletion(ctx, id, compute.WithPollInterval(200*time.Millisecond, 5*time.Second)); err != nil {
			cl.fail("wait for instance "+id, err)
			continue
		}
		cl.deleted++
	}
	var ips []compute.FloatingIP
	for ip, err := range c.FloatingIPs.All(ctx, &compute.ListOptions{PerPage: 100}) {
		if err != nil {
			return err
		}
		if strings.HasPrefix(ip.Name, cl.prefix) {
			ips = append(ips, ip)
		}
	}
	for _, ip := range ips {
		cl.delete(ctx, "floating-ip", ip.ID, ip.Name, func() error { return c.FloatingIPs.Delete(ctx, ip.ID) })
	}
	var groups []compute.SecurityGroup
	for sg, err := range c.SecurityGroups.All(ctx, &compute.ListOptions{PerPage: 100}) {
		if err != nil {
			return err
		}
		if strings.HasPrefix(sg.Name, cl.prefix) {
			groups = append(groups, sg)
		}
	}
	for _, sg := range groups {
		cl.delete(ctx, "security-group", sg.ID, sg.Name, func() error { return c.SecurityGroups.Delete(ctx, sg.ID) })
	}
	fmt.Fprintf(cl.out, "deleted %d, kept %d, failed %d\n", cl.deleted, cl.kept, cl.fails)
	if cl.fails > 0 {
		return fmt.Errorf("%d deletions failed", cl.fails)
	}
	return nil
}

func (cl *cleaner) delete(_ context.Context, kind, id, name string, del func() error) {
	if cl.dryRun {
		fmt.Fprintf(cl.out, "would delete %s %s %s\n", kind, id, name)
		return
	}
	// A resource already gone is what we wanted.
	if err := del(); err != nil && !errors.Is(err, compute.ErrNotFound) {
		cl.fail("delete "+kind+" "+id, err)
		return
	}
	fmt.Fprintf(cl.out, "delete  %s %s %s\n", kind, id, name)
	cl.deleted++
}

func (cl *cleaner) fail(what string, err error) {
	fmt.Fprintf(cl.out, "FAILED  %s: %s\n", what, setup.Describe(err))
	cl.fails++
}

// seed fills the embedded fake with matching resources (one of them protected) and one that does
// not match.
func seed(ctx context.Context, env *setup.Env, prefix string) error {
	c := env.Client
	sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: prefix + "sg", Region: env.Region})
	if err != nil {
		return err
	}
	ip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: prefix + "ip", Region: env.Region})
	if err != nil {
		return err
	}
	for i, name := range []string{prefix + "vm-1", prefix + "vm-protected", "other-vm"} {
		req := &compute.InstanceCreateRequest{Name: name, Hostname: "h", Type: env.Type, Region: env.Region,
			Image: env.Image, SSHKeys: []string{"key-ci"}, IsProtected: i == 1}
		if i == 0 {
			req.SecurityGroups, req.FloatingIP = []string{sg.ID}, ip.ID
		}
		// The fake's instances start "creating", which cannot be deleted yet.
		if _, err := setup.CreateActive(ctx, c, req); err != nil {
			return err
		}
	}
	return nil
}
