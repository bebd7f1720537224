package main

import (
	"cmp"
	"context"
	"iter"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var floatingIPKind = kind{name: "floating IP", one: "a floating IP", arg: "FLOATING_IP_ID",
	get: func(ctx context.Context, c *compute.Client, id string) error {
		_, err := c.FloatingIPs.Get(ctx, id)
		return err
	},
	find: refsOf(func(c *compute.Client) func(context.Context, string) ([]compute.FloatingIP, error) {
		return c.FloatingIPs.FindByName
	},
		func(v *compute.FloatingIP) string { return v.ID }, func(v *compute.FloatingIP) string { return v.Name })}

var floatingIPView = view[compute.FloatingIP]{
	headers: []string{"ID", "NAME", "STATUS", "ADDRESS", "VERSION", "REGION", "INSTANCE"},
	row: func(f *compute.FloatingIP) []string {
		var inst string
		if f.Instance != nil {
			inst = cmp.Or(f.Instance.Name, f.Instance.ID)
		}
		return []string{f.ID, f.Name, string(f.Status), f.IPAddress, string(f.Version), f.Region, inst}
	},
	id:   func(f *compute.FloatingIP) string { return f.ID },
	name: func(f *compute.FloatingIP) string { return f.Name },
}

func floatingIPStatus(f *compute.FloatingIP) compute.FloatingIPStatus { return f.Status }

func (a *app) floatingIPCmd() *cobra.Command {
	cmd := group("floating-ip", "Manage floating IPs (addresses that move between instances)", "  compute floating-ip list", "floating-ips", "fip")
	cmd.AddCommand(
		listCmd(a, floatingIPKind, floatingIPView, "  compute floating-ip list -o json",
			func(ctx context.Context, c *compute.Client) iter.Seq2[compute.FloatingIP, error] {
				return c.FloatingIPs.All(ctx, allPages)
			}),
		getCmd(a, floatingIPKind, floatingIPView, "  compute floating-ip get fip-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.FloatingIP, error) {
				return c.FloatingIPs.Get(ctx, id)
			}),
		describeCmd(a, floatingIPKind, "  compute floating-ip describe fip-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.FloatingIP, error) {
				return c.FloatingIPs.Get(ctx, id)
			}),
		a.floatingIPCreateCmd(),
		a.floatingIPUpdateCmd(),
		deleteCmd(a, floatingIPKind, deleter{
			del: func(ctx context.Context, c *compute.Client, id string) error { return c.FloatingIPs.Delete(ctx, id) },
			delWait: func(ctx context.Context, c *compute.Client, id string, opts ...compute.DeleteOption) error {
				return c.FloatingIPs.DeleteAndWait(ctx, id, opts...)
			},
			watch: floatingIPWaiter.watch,
		}, "  compute floating-ip delete fip-000001 --wait"),
		waitCmd(a, floatingIPKind, floatingIPView, floatingIPWaiter, "  compute floating-ip wait fip-000001 -o json"),
	)
	return cmd
}

func (a *app) floatingIPCreateCmd() *cobra.Command {
	var req compute.FloatingIPCreateRequest
	var version string
	var wait bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a floating IP, or adopt the one a lost create made",
		Long: `Create a floating IP. The name is the create's key: a floating IP with the name in the region that
already exists is adopted and printed instead of creating a second one. Its address is assigned
once it is created: --wait waits for it.`,
		Example: "  compute floating-ip create --name web-ip --region NORD-NO-KRS-1 --wait -o json",
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			req.Version = compute.IPVersion(version)
			f, err := c.FloatingIPs.CreateOnce(ctx, &req, a.once(floatingIPKind, req.Name))
			if err != nil {
				return err
			}
			return printCreated(ctx, a, c, floatingIPKind, floatingIPView, floatingIPWaiter, wait, f, f.ID, compute.FloatingIPStatusCreated)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the floating IP's name, which a rerun uses to adopt it (required)")
	f.StringVar(&req.Region, "region", "", "the region (required)")
	f.StringVar(&req.Description, "description", "", "a description")
	f.StringVar(&version, "version", "", "ipv4 (the default; the only one the service creates today) or ipv6")
	f.BoolVar(&wait, "wait", false, "wait until the floating IP is created and has its address")
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("region")
	registerRegionCompletion(cmd, "region")
	return checkView(a, cmd, floatingIPView)
}

func (a *app) floatingIPUpdateCmd() *cobra.Command {
	var name, description string
	cmd := &cobra.Command{
		Use:     "update " + floatingIPKind.arg,
		Short:   "Rename a floating IP or change its description",
		Example: `  compute floating-ip update fip-000001 --name web-ip-old --description ""`,
		Args:    exactArgs(floatingIPKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			f, err := callByID(ctx, c, floatingIPKind, args[0], func(id string) (*compute.FloatingIP, error) {
				return c.FloatingIPs.Update(ctx, id, &compute.FloatingIPUpdateRequest{
					Name:        changed(cmd, "name", name),
					Description: changed(cmd, "description", description),
				})
			})
			if err != nil {
				return err
			}
			return printItem(a, floatingIPView, f)
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", "the new name")
	cmd.Flags().StringVar(&description, "description", "", "the new description (\"\" clears it)")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return needOneOf(cmd, "name", "description") }
	return checkView(a, cmd, floatingIPView)
}

// floatingIPWaiter waits on floatingIPs for the wait command, --wait and delete --wait.
var floatingIPWaiter = waiter[compute.FloatingIP, compute.FloatingIPStatus]{
	statuses: []compute.FloatingIPStatus{compute.FloatingIPStatusCreating, compute.FloatingIPStatusCreated,
		compute.FloatingIPStatusDeleting, compute.FloatingIPStatusError},
	target: compute.FloatingIPStatusCreated,
	status: floatingIPStatus,
	wait: func(ctx context.Context, c *compute.Client, id string, s compute.FloatingIPStatus, opts ...compute.WaitOption) (*compute.FloatingIP, error) {
		return c.FloatingIPs.WaitForStatus(ctx, id, s, opts...)
	},
	gone: func(ctx context.Context, c *compute.Client, id string, opts ...compute.WaitOption) error {
		return c.FloatingIPs.WaitForDeletion(ctx, id, opts...)
	},
}
