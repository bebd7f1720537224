package main

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var securityGroupKind = kind{name: "security group", one: "a security group", arg: "SECURITY_GROUP_ID",
	get: func(ctx context.Context, c *compute.Client, id string) error {
		_, err := c.SecurityGroups.Get(ctx, id)
		return err
	},
	find: refsOf(func(c *compute.Client) func(context.Context, string) ([]compute.SecurityGroup, error) {
		return c.SecurityGroups.FindByName
	},
		func(v *compute.SecurityGroup) string { return v.ID }, func(v *compute.SecurityGroup) string { return v.Name })}

var securityGroupView = view[compute.SecurityGroup]{
	headers: []string{"ID", "NAME", "STATUS", "REGION", "RULES"},
	row: func(g *compute.SecurityGroup) []string {
		var rules []string
		for _, r := range g.Rules {
			rules = append(rules, formatRule(r))
		}
		return []string{g.ID, g.Name, string(g.Status), g.Region, strings.Join(rules, ",")}
	},
	id:   func(g *compute.SecurityGroup) string { return g.ID },
	name: func(g *compute.SecurityGroup) string { return g.Name },
}

func securityGroupStatus(g *compute.SecurityGroup) compute.SecurityGroupStatus { return g.Status }

const ruleHelp = `a firewall rule as PROTOCOL:DIRECTION[:PORT[-PORT]], such as tcp:ingress:22,
tcp:ingress:8000-8100, icmp:ingress or all:egress (no port: all ports); repeatable`

func (a *app) securityGroupCmd() *cobra.Command {
	cmd := group("security-group", "Manage security groups (sets of firewall rules)", "  compute security-group list", "security-groups", "sg")
	cmd.AddCommand(
		listCmd(a, securityGroupKind, securityGroupView, "  compute security-group list -o json",
			func(ctx context.Context, c *compute.Client) iter.Seq2[compute.SecurityGroup, error] {
				return c.SecurityGroups.All(ctx, allPages)
			}),
		getCmd(a, securityGroupKind, securityGroupView, "  compute security-group get sg-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.SecurityGroup, error) {
				return c.SecurityGroups.Get(ctx, id)
			}),
		describeCmd(a, securityGroupKind, "  compute security-group describe sg-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.SecurityGroup, error) {
				return c.SecurityGroups.Get(ctx, id)
			}),
		a.securityGroupCreateCmd(),
		a.securityGroupUpdateCmd(),
		deleteCmd(a, securityGroupKind, deleter{
			del: func(ctx context.Context, c *compute.Client, id string) error { return c.SecurityGroups.Delete(ctx, id) },
			delWait: func(ctx context.Context, c *compute.Client, id string, opts ...compute.DeleteOption) error {
				return c.SecurityGroups.DeleteAndWait(ctx, id, opts...)
			},
			watch: securityGroupWaiter.watch,
		}, "  compute security-group delete sg-000001 --wait"),
		waitCmd(a, securityGroupKind, securityGroupView, securityGroupWaiter, "  compute security-group wait sg-000001"),
	)
	return cmd
}

func (a *app) securityGroupCreateCmd() *cobra.Command {
	var req compute.SecurityGroupCreateRequest
	var rules []string
	var wait bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a security group, or adopt the one a lost create made",
		Long: `Create a security group. The name is the create's key: a group with the name in the region that
already exists is adopted and printed instead of creating a second one. "default" and "standard"
are reserved names.`,
		Example: `  compute security-group create --name ssh --region NORD-NO-KRS-1 --rule tcp:ingress:22 --rule icmp:ingress --wait`,
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			var err error
			if req.Rules, err = parseRules(rules); err != nil {
				return err
			}
			g, err := c.SecurityGroups.CreateOnce(ctx, &req, a.once(securityGroupKind, req.Name))
			if err != nil {
				return err
			}
			return printCreated(ctx, a, c, securityGroupKind, securityGroupView, securityGroupWaiter, wait, g, g.ID, compute.SecurityGroupStatusCreated)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the group's name, which a rerun uses to adopt it (required)")
	f.StringVar(&req.Region, "region", "", "the region (required)")
	f.StringVar(&req.Description, "description", "", "a description")
	f.StringArrayVar(&rules, "rule", nil, ruleHelp)
	f.BoolVar(&wait, "wait", false, "wait until the group is created")
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("region")
	registerRegionCompletion(cmd, "region")
	return checkView(a, cmd, securityGroupView)
}

func (a *app) securityGroupUpdateCmd() *cobra.Command {
	var name, description string
	var rules []string
	var noRules bool
	cmd := &cobra.Command{
		Use:   "update " + securityGroupKind.arg,
		Short: "Rename a security group, describe it, or replace its rules",
		Long: `Change a security group. Only the flags given change: the command reads the group, then sends it
whole (the service's update replaces the name, the description and every rule). --rule gives the
complete new list of rules; --no-rules removes them all. A change made by someone else between
the read and the update is overwritten.`,
		Example: `  compute security-group update sg-000001 --rule tcp:ingress:22 --rule tcp:ingress:443
  compute security-group update sg-000001 --name ssh-only --description "SSH from anywhere"`,
		Args: exactArgs(securityGroupKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			newRules, err := parseRules(rules)
			if err != nil {
				return err
			}
			// Refuse bad input before the read, so that nothing is sent.
			probe := compute.SecurityGroupUpdateRequest{Name: "probe", Rules: newRules}
			if cmd.Flags().Changed("name") {
				probe.Name = name // an empty --name is refused here
			}
			if err := probe.Validate(); err != nil {
				return err
			}
			cur, err := callByID(ctx, c, securityGroupKind, args[0], func(id string) (*compute.SecurityGroup, error) { return c.SecurityGroups.Get(ctx, id) })
			if err != nil {
				return err
			}
			req := &compute.SecurityGroupUpdateRequest{Name: cur.Name, Description: cur.Description, Rules: cur.Rules}
			if cmd.Flags().Changed("name") {
				req.Name = name
			}
			if cmd.Flags().Changed("description") {
				req.Description = description
			}
			switch {
			case noRules:
				req.Rules = []compute.SecurityGroupRule{}
			case cmd.Flags().Changed("rule"):
				req.Rules = newRules
			}
			g, err := c.SecurityGroups.Update(ctx, cur.ID, req)
			if err != nil {
				return err
			}
			return printItem(a, securityGroupView, g)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the new name")
	f.StringVar(&description, "description", "", "the new description (\"\" clears it)")
	f.StringArrayVar(&rules, "rule", nil, "the complete new list of rules: "+ruleHelp)
	f.BoolVar(&noRules, "no-rules", false, "remove every rule")
	cmd.MarkFlagsMutuallyExclusive("rule", "no-rules")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		return needOneOf(cmd, "name", "description", "rule", "no-rules")
	}
	return checkView(a, cmd, securityGroupView)
}

// parseRules reads --rule values: PROTOCOL:DIRECTION[:PORT[-PORT]]. The SDK checks the values
// themselves (a known protocol, ports 0 to 65535 in order).
func parseRules(specs []string) ([]compute.SecurityGroupRule, error) {
	var out []compute.SecurityGroupRule
	for _, spec := range specs {
		parts := strings.Split(spec, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, usagef("invalid --rule %q: want PROTOCOL:DIRECTION[:PORT[-PORT]], such as tcp:ingress:22", spec)
		}
		r := compute.SecurityGroupRule{Protocol: compute.Protocol(parts[0]), Direction: compute.Direction(parts[1])}
		if len(parts) == 3 {
			lo, hi, ok := strings.Cut(parts[2], "-")
			if !ok {
				hi = lo
			}
			from, err1 := strconv.Atoi(lo)
			to, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil {
				return nil, usagef("invalid --rule %q: the ports %q are not a number or a range such as 8000-8100", spec, parts[2])
			}
			r.PortRangeMin, r.PortRangeMax = &from, &to
		}
		out = append(out, r)
	}
	return out, nil
}

// formatRule writes a rule as --rule reads it.
func formatRule(r compute.SecurityGroupRule) string {
	s := string(r.Protocol) + ":" + string(r.Direction)
	switch {
	case r.PortRangeMin == nil || r.PortRangeMax == nil:
	case *r.PortRangeMin == *r.PortRangeMax:
		s += ":" + strconv.Itoa(*r.PortRangeMin)
	default:
		s += fmt.Sprintf(":%d-%d", *r.PortRangeMin, *r.PortRangeMax)
	}
	return s
}

// securityGroupWaiter waits on securityGroups for the wait command, --wait and delete --wait.
var securityGroupWaiter = waiter[compute.SecurityGroup, compute.SecurityGroupStatus]{
	statuses: []compute.SecurityGroupStatus{compute.SecurityGroupStatusCreating, compute.SecurityGroupStatusCreated,
		compute.SecurityGroupStatusDeleting, compute.SecurityGroupStatusError},
	target: compute.SecurityGroupStatusCreated,
	status: securityGroupStatus,
	wait: func(ctx context.Context, c *compute.Client, id string, s compute.SecurityGroupStatus, opts ...compute.WaitOption) (*compute.SecurityGroup, error) {
		return c.SecurityGroups.WaitForStatus(ctx, id, s, opts...)
	},
	gone: func(ctx context.Context, c *compute.Client, id string, opts ...compute.WaitOption) error {
		return c.SecurityGroups.WaitForDeletion(ctx, id, opts...)
	},
}
