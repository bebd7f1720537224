package main

import (
	"context"
	"strings"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// regions are the region IDs that completion offers; any other is accepted.
var regions = []string{
	compute.RegionEUCDEMUC1, compute.RegionEUWGBMNC1, compute.RegionEUWNLAMS1, compute.RegionNACAFTS1,
	compute.RegionNACAMNZ1, compute.RegionNACAPRG1, compute.RegionNORDNOKRS1,
}

// registerRegionCompletion completes a region flag with the known regions.
func registerRegionCompletion(cmd *cobra.Command, flag string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(regions, cobra.ShellCompDirectiveNoFileComp))
}

// completionTimeout bounds what completion reads from the service: a shell waits for it.
const completionTimeout = 2 * time.Second

// completionPage is how many resources completion reads: the first page.
var completionPage = &compute.ListOptions{PerPage: compute.MaxPerPage}

// lister reads the first page of a kind as (ID, name) pairs, for completion.
type lister func(ctx context.Context, c *compute.Client) ([]compute.Ref, error)

// refsOfPage makes a kind's List a lister.
func refsOfPage[T any](list func(*compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[T], error), id, name func(*T) string) lister {
	return func(ctx context.Context, c *compute.Client) ([]compute.Ref, error) {
		page, err := list(c)(ctx, completionPage)
		if err != nil {
			return nil, err
		}
		refs := make([]compute.Ref, len(page.Items))
		for i := range page.Items {
			refs[i] = compute.Ref{ID: id(&page.Items[i]), Name: name(&page.Items[i])}
		}
		return refs, nil
	}
}

// complete offers what list reads that starts with toComplete: IDs (their names shown beside
// them) and names. It reads with a short timeout and offers nothing on any failure; never file
// names.
func (a *app) complete(cmd *cobra.Command, toComplete string, list lister) ([]cobra.Completion, cobra.ShellCompDirective) {
	const directive = cobra.ShellCompDirectiveNoFileComp
	ctx, cancel := context.WithTimeout(orBackground(cmd.Context()), completionTimeout)
	defer cancel()
	c, err := a.connect(ctx)
	if err != nil {
		return nil, directive
	}
	refs, err := list(ctx, c)
	if err != nil {
		return nil, directive
	}
	var out []cobra.Completion
	for _, r := range refs {
		// A completion is one line; text from the service is made safe, and a tab would split it.
		id, name := a.safe(r.ID), a.safe(r.Name)
		if strings.HasPrefix(id, toComplete) {
			out = append(out, cobra.CompletionWithDesc(id, name))
		}
		if name != "" && name != id && strings.HasPrefix(name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(name, id))
		}
	}
	return out, directive
}

// orBackground is ctx, or a background context for a command run without one.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// completeArgs completes each ID argument of a command from its lister (nil: nothing to offer); when
// repeat is set, the last lister completes every argument after it as well ("INSTANCE_ID...").
func (a *app) completeArgs(lists []lister, repeat bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		i := len(args)
		if repeat && i >= len(lists) {
			i = len(lists) - 1
		}
		if i >= len(lists) || lists[i] == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.complete(cmd, toComplete, lists[i])
	}
}

// pathFlags are the flags that take a path, where the shell completes file names; every other flag
// that takes a value completes from the service, from a fixed list, or not at all.
var pathFlags = map[string]bool{"token-file": true, "password-file": true, "startup-script-file": true,
	"user-data": true, "public-key-file": true}

// completeFlag completes a flag's value from list.
func (a *app) completeFlag(list lister) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.complete(cmd, toComplete, list)
	}
}

// The listers of the kinds whose IDs commands take, by the name of their group and of the flags
// that take their IDs.
var (
	listInstances = refsOfPage(func(c *compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[compute.Instance], error) {
		return c.Instances.List
	}, func(v *compute.Instance) string { return v.ID }, func(v *compute.Instance) string { return v.Name })
	listSecurityGroups = refsOfPage(func(c *compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[compute.SecurityGroup], error) {
		return c.SecurityGroups.List
	}, func(v *compute.SecurityGroup) string { return v.ID }, func(v *compute.SecurityGroup) string { return v.Name })
	listFloatingIPs = refsOfPage(func(c *compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[compute.FloatingIP], error) {
		return c.FloatingIPs.List
	}, func(v *compute.FloatingIP) string { return v.ID }, func(v *compute.FloatingIP) string { return v.Name })
	listVolumes = refsOfPage(func(c *compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[compute.Volume], error) {
		return c.Volumes.List
	}, func(v *compute.Volume) string { return v.ID }, func(v *compute.Volume) string { return v.Name })
	listFilesystems = refsOfPage(func(c *compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[compute.Filesystem], error) {
		return c.Filesystems.List
	}, func(v *compute.Filesystem) string { return v.ID }, func(v *compute.Filesystem) string { return v.Name })
	listSSHKeys = refsOfPage(func(c *compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[compute.SSHKey], error) {
		return c.SSHKeys.List
	}, func(v *compute.SSHKey) string { return v.ID }, func(v *compute.SSHKey) string { return v.Name })
	listSnapshots = refsOfPage(func(c *compute.Client) func(context.Context, *compute.ListOptions) (*compute.Page[compute.Snapshot], error) {
		return c.Snapshots.List
	}, func(v *compute.Snapshot) string { return v.ID }, func(v *compute.Snapshot) string { return v.Name })
)

// listImages offers images by ID and by slug.
func listImages(ctx context.Context, c *compute.Client) ([]compute.Ref, error) {
	page, err := c.Images.List(ctx, &compute.ImageListOptions{ListOptions: *completionPage})
	if err != nil {
		return nil, err
	}
	var refs []compute.Ref
	for _, img := range page.Items {
		refs = append(refs, compute.Ref{ID: img.ID, Name: img.Name})
		if img.Slug != "" {
			refs = append(refs, compute.Ref{ID: img.Slug, Name: img.Name})
		}
	}
	return refs, nil
}

// listTypes offers the instance types of the region that the command's --region names (or the
// first known region), the available ones.
func listTypes(region string) lister {
	return func(ctx context.Context, c *compute.Client) ([]compute.Ref, error) {
		r := region
		if r == "" {
			r = regions[len(regions)-1]
		}
		av, err := c.Availability.Instances(ctx, r, nil)
		if err != nil {
			return nil, err
		}
		var refs []compute.Ref
		for _, t := range av.InstanceTypes {
			if t.Available {
				refs = append(refs, compute.Ref{ID: t.Type})
			}
		}
		return refs, nil
	}
}

// idArgs are the ID arguments that completion fills, by the argument's name in a command's usage.
var idArgs = map[string]lister{
	instanceKind.arg: listInstances, securityGroupKind.arg: listSecurityGroups, floatingIPKind.arg: listFloatingIPs,
	volumeKind.arg: listVolumes, filesystemKind.arg: listFilesystems, sshKeyKind.arg: listSSHKeys, snapshotKind.arg: listSnapshots,
}

// idFlags are the flags that take IDs, and what completes them.
var idFlags = map[string]lister{
	"ssh-key": listSSHKeys, "security-group": listSecurityGroups, "volume": listVolumes,
	"floating-ip": listFloatingIPs, "image": listImages, "instance": listInstances,
}

// registerCompletions walks the command tree and completes, from the service, every ID argument
// and every flag that takes an ID, an image or a type.
func (a *app) registerCompletions(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		if words := strings.Fields(cmd.Use); len(words) > 1 && cmd.ValidArgsFunction == nil {
			lists := make([]lister, len(words)-1)
			some, repeat := false, false
			for i, w := range words[1:] {
				var arg string
				arg, repeat = isMany(w)
				lists[i] = idArgs[arg]
				some = some || lists[i] != nil
			}
			if some {
				cmd.ValidArgsFunction = a.completeArgs(lists, repeat)
			}
		}
		if cmd.ValidArgsFunction == nil && cmd.Runnable() {
			cmd.ValidArgsFunction = cobra.NoFileCompletions
		}
		for name, list := range idFlags {
			if f := cmd.LocalFlags().Lookup(name); f != nil {
				if _, taken := cmd.GetFlagCompletionFunc(name); !taken {
					_ = cmd.RegisterFlagCompletionFunc(name, a.completeFlag(list))
				}
			}
		}
		defer noFileNames(cmd)
		if cmd.LocalFlags().Lookup("type") != nil && cmd.Parent() != nil && cmd.Parent().Name() == "instance" {
			_ = cmd.RegisterFlagCompletionFunc("type", func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				region := ""
				if f := cmd.Flags().Lookup("region"); f != nil {
					region = f.Value.String()
				}
				return a.complete(cmd, toComplete, listTypes(region))
			})
		}
	}
	walk(root)
}

// noFileNames makes every flag of cmd that takes a value, but no path, and has no completion of
// its own complete nothing rather than the shell's file names.
func noFileNames(cmd *cobra.Command) {
	flags := cmd.LocalNonPersistentFlags()
	flags.AddFlagSet(cmd.PersistentFlags())
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" || pathFlags[f.Name] {
			return
		}
		if _, taken := cmd.GetFlagCompletionFunc(f.Name); !taken {
			_ = cmd.RegisterFlagCompletionFunc(f.Name, cobra.NoFileCompletions)
		}
	})
}
