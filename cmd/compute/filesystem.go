package main

import (
	"context"
	"iter"
	"strconv"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var filesystemKind = kind{name: "filesystem", one: "a filesystem", arg: "FILESYSTEM_ID",
	get: func(ctx context.Context, c *compute.Client, id string) error {
		_, err := c.Filesystems.Get(ctx, id)
		return err
	},
	find: refsOf(func(c *compute.Client) func(context.Context, string) ([]compute.Filesystem, error) {
		return c.Filesystems.FindByName
	},
		func(v *compute.Filesystem) string { return v.ID }, func(v *compute.Filesystem) string { return v.Name })}

var filesystemView = view[compute.Filesystem]{
	headers: []string{"ID", "NAME", "STATUS", "SIZE GIB", "TYPE", "REGION", "MOUNT PATH"},
	row: func(f *compute.Filesystem) []string {
		return []string{f.ID, f.Name, string(f.Status), strconv.Itoa(f.Size), string(f.Type), f.Region, f.MountBasePath}
	},
	id:   func(f *compute.Filesystem) string { return f.ID },
	name: func(f *compute.Filesystem) string { return f.Name },
}

func filesystemStatus(f *compute.Filesystem) compute.FilesystemStatus { return f.Status }

func (a *app) filesystemCmd() *cobra.Command {
	cmd := group("filesystem", "Manage shared filesystems", "  compute filesystem list", "filesystems", "fs")
	cmd.AddCommand(
		listCmd(a, filesystemKind, filesystemView, "  compute filesystem list -o json",
			func(ctx context.Context, c *compute.Client) iter.Seq2[compute.Filesystem, error] {
				return c.Filesystems.All(ctx, allPages)
			}),
		getCmd(a, filesystemKind, filesystemView, "  compute filesystem get fs-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Filesystem, error) {
				return c.Filesystems.Get(ctx, id)
			}),
		describeCmd(a, filesystemKind, "  compute filesystem describe fs-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Filesystem, error) {
				return c.Filesystems.Get(ctx, id)
			}),
		a.filesystemCreateCmd(),
		a.filesystemUpdateCmd(),
		deleteCmd(a, filesystemKind, deleter{
			del: func(ctx context.Context, c *compute.Client, id string) error { return c.Filesystems.Delete(ctx, id) },
			delWait: func(ctx context.Context, c *compute.Client, id string, opts ...compute.DeleteOption) error {
				return c.Filesystems.DeleteAndWait(ctx, id, opts...)
			},
			watch: filesystemWaiter.watch,
		}, "  compute filesystem delete fs-000001 --wait"),
		waitCmd(a, filesystemKind, filesystemView, filesystemWaiter, "  compute filesystem wait fs-000001"),
	)
	return cmd
}

func (a *app) filesystemCreateCmd() *cobra.Command {
	var req compute.FilesystemCreateRequest
	var typ string
	var wait bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a filesystem, or adopt the one a lost create made",
		Long: `Create a shared filesystem. The name is the create's key: a filesystem with the name in the region,
of the size (and type, when given), that already exists is adopted and printed instead of creating
a second one. Its mount path is set once it is created: --wait waits for it.`,
		Example: "  compute filesystem create --name shared --region NORD-NO-KRS-1 --size 100 --wait",
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			req.Type = compute.FilesystemType(typ)
			f, err := c.Filesystems.CreateOnce(ctx, &req, a.once(filesystemKind, req.Name))
			if err != nil {
				return err
			}
			return printCreated(ctx, a, c, filesystemKind, filesystemView, filesystemWaiter, wait, f, f.ID, compute.FilesystemStatusCreated)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the filesystem's name, which a rerun uses to adopt it (required)")
	f.StringVar(&req.Region, "region", "", "the region (required)")
	f.IntVar(&req.Size, "size", 0, "the size in GiB, at least 1 (required)")
	f.StringVar(&typ, "type", "", "vast (the service's default if not given)")
	f.StringVar(&req.Description, "description", "", "a description")
	f.BoolVar(&wait, "wait", false, "wait until the filesystem is created")
	for _, r := range []string{"name", "region", "size"} {
		_ = cmd.MarkFlagRequired(r)
	}
	registerRegionCompletion(cmd, "region")
	return checkView(a, cmd, filesystemView)
}

func (a *app) filesystemUpdateCmd() *cobra.Command {
	var name, description string
	var size int
	cmd := &cobra.Command{
		Use:     "update " + filesystemKind.arg,
		Short:   "Rename a filesystem, change its description, or grow it",
		Example: "  compute filesystem update fs-000001 --size 200",
		Args:    exactArgs(filesystemKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			f, err := callByID(ctx, c, filesystemKind, args[0], func(id string) (*compute.Filesystem, error) {
				return c.Filesystems.Update(ctx, id, &compute.FilesystemUpdateRequest{
					Name:        changed(cmd, "name", name),
					Description: changed(cmd, "description", description),
					Size:        changed(cmd, "size", size),
				})
			})
			if err != nil {
				return err
			}
			return printItem(a, filesystemView, f)
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", "the new name")
	cmd.Flags().StringVar(&description, "description", "", "the new description (\"\" clears it)")
	cmd.Flags().IntVar(&size, "size", 0, "the new size in GiB (a filesystem only grows)")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return needOneOf(cmd, "name", "description", "size") }
	return checkView(a, cmd, filesystemView)
}

// filesystemWaiter waits on filesystems for the wait command, --wait and delete --wait.
var filesystemWaiter = waiter[compute.Filesystem, compute.FilesystemStatus]{
	statuses: []compute.FilesystemStatus{compute.FilesystemStatusCreating, compute.FilesystemStatusCreated,
		compute.FilesystemStatusDeleting, compute.FilesystemStatusError},
	target: compute.FilesystemStatusCreated,
	status: filesystemStatus,
	wait: func(ctx context.Context, c *compute.Client, id string, s compute.FilesystemStatus, opts ...compute.WaitOption) (*compute.Filesystem, error) {
		return c.Filesystems.WaitForStatus(ctx, id, s, opts...)
	},
	gone: func(ctx context.Context, c *compute.Client, id string, opts ...compute.WaitOption) error {
		return c.Filesystems.WaitForDeletion(ctx, id, opts...)
	},
}
