// Command inventory walks every instance, floating IP and security group with the SDK's iterators
// and prints them as a table.
//
//	go run ./examples/inventory
//
// With no COMPUTE_API_URL and COMPUTE_API_TOKEN set it runs against an embedded computetest server,
// which it first fills with a few resources so there is something to show. It only reads a real
// service.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/examples/internal/setup"
)

func main() {
	os.Exit(run(context.Background(), os.Stdout, os.Stderr))
}

func run(ctx context.Context, stdout, stderr io.Writer) int {
	env, release, err := setup.New(stdout)
	if err != nil {
		fmt.Fprintln(stderr, "inventory:", setup.Describe(err))
		return 1
	}
	defer release()
	if !env.Remote {
		if err := fill(ctx, env); err != nil {
			fmt.Fprintln(stderr, "inventory: filling the embedded server:", setup.Describe(err))
			return 1
		}
	}
	if err := inventory(ctx, env.Client, stdout); err != nil {
		fmt.Fprintln(stderr, "inventory:", setup.Describe(err))
		return 1
	}
	return 0
}

// inventory prints one table row per resource. Each All call walks the pages lazily, 100 at a time.
func inventory(ctx context.Context, c *compute.Client, out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tID\tNAME\tREGION\tSTATUS\tDETAIL")
	opts := &compute.ListOptions{PerPage: 100}
	for inst, err := range c.Instances.All(ctx, opts) {
		if err != nil {
			return fmt.Errorf("listing instances: %w", err)
		}
		fmt.Fprintf(tw, "instance\t%s\t%s\t%s\t%s\t%s %s\n", inst.ID, inst.Name, inst.Region, inst.Status, inst.Type, inst.PublicIP)
	}
	for ip, err := range c.FloatingIPs.All(ctx, opts) {
		if err != nil {
			return fmt.Errorf("listing floating IPs: %w", err)
		}
		attached := "unattached"
		if ip.Instance != nil {
			attached = "on " + ip.Instance.ID
		}
		fmt.Fprintf(tw, "floating-ip\t%s\t%s\t%s\t%s\t%s %s\n", ip.ID, ip.Name, ip.Region, ip.Status, ip.IPAddress, attached)
	}
	for sg, err := range c.SecurityGroups.All(ctx, opts) {
		if err != nil {
			return fmt.Errorf("listing security groups: %w", err)
		}
		fmt.Fprintf(tw, "security-group\t%s\t%s\t%s\t%s\t%d rules\n", sg.ID, sg.Name, sg.Region, sg.Status, len(sg.Rules))
	}
	return tw.Flush()
}

// fill fills the embedded fake: two groups, a floating IP and three instances.
func fill(ctx context.Context, env *setup.Env) error {
	c := env.Client
	var groups []string
	for _, name := range []string{"web", "db"} {
		sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: name, Region: env.Region})
		if err != nil {
			return err
		}
		groups = append(groups, sg.ID)
	}
	ip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "front", Region: env.Region})
	if err != nil {
		return err
	}
	for i, name := range []string{"web-1", "web-2", "db-1"} {
		req := &compute.InstanceCreateRequest{Name: name, Hostname: name, Type: env.Type, Region: env.Region,
			Image: env.Image, SSHKeys: []string{"key-ci"}, SecurityGroups: groups[i/2 : i/2+1]}
		if i == 0 {
			req.FloatingIP = ip.ID
		}
		// The fake's instances start "creating"; wait so the table shows them running.
		if _, err := setup.CreateActive(ctx, c, req); err != nil {
			return err
		}
	}
	return nil
}
