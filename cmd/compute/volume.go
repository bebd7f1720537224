package main

import (
	"context"
	"iter"
	"strconv"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var volumeKind = kind{name: "volume", one: "a volume", arg: "VOLUME_ID",
	get: func(ctx context.Context, c *compute.Client, id string) error {
		_, err := c.Volumes.Get(ctx, id)
		return err
	},
	find: refsOf(func(c *compute.Client) func(context.Context, string) ([]compute.Volume, error) {
		return c.Volumes.FindByName
	},
		func(v *compute.Volume) string { return v.ID }, func(v *compute.Volume) string { return v.Name })}

var volumeView = view[compute.Volume]{
	headers: []string{"ID", "NAME", "STATUS", "SIZE GIB", "TYPE", "REGION", "INSTANCES"},
	row: func(v *compute.Volume) []string {
		return []string{v.ID, v.Name, string(v.Status), strconv.Itoa(v.Size), string(v.Type), v.Region, refs(v.Instances)}
	},
	id:   func(v *compute.Volume) string { return v.ID },
	name: func(v *compute.Volume) string { return v.Name },
}

func volumeStatus(v *compute.Volume) compute.VolumeStatus { return v.Status }

func (a *app) volumeCmd() *cobra.Command {
	cmd := group("volume", "Manage block storage volumes", "  compute volume list", "volumes")
	cmd.AddCommand(
		listCmd(a, volumeKind, volumeView, "  compute volume list -o json",
			func(ctx context.Context, c *compute.Client) iter.Seq2[compute.Volume, error] {
				return c.Volumes.All(ctx, allPages)
			}),
		getCmd(a, volumeKind, volumeView, "  compute volume get vol-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Volume, error) {
				return c.Volumes.Get(ctx, id)
			}),
		describeCmd(a, volumeKind, "  compute volume describe vol-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Volume, error) {
				return c.Volumes.Get(ctx, id)
			}),
		a.volumeCreateCmd(),
		a.volumeUpdateCmd(),
		deleteCmd(a, volumeKind, deleter{
			del: func(ctx context.Context, c *compute.Client, id string) error { return c.Volumes.Delete(ctx, id) },
			delWait: func(ctx context.Context, c *compute.Client, id string, opts ...compute.DeleteOption) error {
				return c.Volumes.DeleteAndWait(ctx, id, opts...)
			},
			watch: volumeWaiter.watch,
		}, "  compute volume delete vol-000001 --wait"),
		waitCmd(a, volumeKind, volumeView, volumeWaiter, "  compute volume wait vol-000001"),
	)
	return cmd
}

func (a *app) volumeCreateCmd() *cobra.Command {
	var req compute.VolumeCreateRequest
	var typ string
	var wait bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a volume, or adopt the one a lost create made",
		Long: `Create a volume. The name is the create's key: a volume with the name in the region, of the size
(and type, when given), that already exists is adopted and printed instead of creating a second
one. Attach it with "compute instance attach-volume" once it is created.`,
		Example: "  compute volume create --name data --region NORD-NO-KRS-1 --size 50 --type ssd --wait",
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			req.Type = compute.VolumeType(typ)
			v, err := c.Volumes.CreateOnce(ctx, &req, a.once(volumeKind, req.Name))
			if err != nil {
				return err
			}
			return printCreated(ctx, a, c, volumeKind, volumeView, volumeWaiter, wait, v, v.ID, compute.VolumeStatusCreated)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the volume's name, which a rerun uses to adopt it (required)")
	f.StringVar(&req.Region, "region", "", "the region (required)")
	f.IntVar(&req.Size, "size", 0, "the size in GiB, at least 1 (required)")
	f.StringVar(&typ, "type", "", "hdd or ssd (the service's default if not given)")
	f.StringVar(&req.Description, "description", "", "a description")
	f.BoolVar(&wait, "wait", false, "wait until the volume is created")
	for _, r := range []string{"name", "region", "size"} {
		_ = cmd.MarkFlagRequired(r)
	}
	registerRegionCompletion(cmd, "region")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{string(compute.VolumeTypeHDD), string(compute.VolumeTypeSSD)}, cobra.ShellCompDirectiveNoFileComp))
	return checkView(a, cmd, volumeView)
}

func (a *app) volumeUpdateCmd() *cobra.Command {
	var name, description string
	var size int
	cmd := &cobra.Command{
		Use:     "update " + volumeKind.arg,
		Short:   "Rename a volume, change its description, or grow it",
		Example: "  compute volume update vol-000001 --size 100",
		Args:    exactArgs(volumeKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			v, err := callByID(ctx, c, volumeKind, args[0], func(id string) (*compute.Volume, error) {
				return c.Volumes.Update(ctx, id, &compute.VolumeUpdateRequest{
					Name:        changed(cmd, "name", name),
					Description: changed(cmd, "description", description),
					Size:        changed(cmd, "size", size),
				})
			})
			if err != nil {
				return err
			}
			return printItem(a, volumeView, v)
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", "the new name")
	cmd.Flags().StringVar(&description, "description", "", "the new description (\"\" clears it)")
	cmd.Flags().IntVar(&size, "size", 0, "the new size in GiB (a volume only grows)")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return needOneOf(cmd, "name", "description", "size") }
	return checkView(a, cmd, volumeView)
}

// volumeWaiter waits on volumes for the wait command, --wait and delete --wait.
var volumeWaiter = waiter[compute.Volume, compute.VolumeStatus]{
	statuses: []compute.VolumeStatus{compute.VolumeStatusCreating, compute.VolumeStatusCreated,
		compute.VolumeStatusPendingDelete, compute.VolumeStatusDeleting, compute.VolumeStatusError},
	target: compute.VolumeStatusCreated,
	status: volumeStatus,
	wait: func(ctx context.Context, c *compute.Client, id string, s compute.VolumeStatus, opts ...compute.WaitOption) (*compute.Volume, error) {
		return c.Volumes.WaitForStatus(ctx, id, s, opts...)
	},
	gone: func(ctx context.Context, c *compute.Client, id string, opts ...compute.WaitOption) error {
		return c.Volumes.WaitForDeletion(ctx, id, opts...)
	},
}
