package main

import (
	"cmp"
	"context"
	"iter"
	"strconv"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var snapshotKind = kind{name: "snapshot", one: "a snapshot", arg: "SNAPSHOT_ID",
	get: func(ctx context.Context, c *compute.Client, id string) error {
		_, err := c.Snapshots.Get(ctx, id)
		return err
	},
	find: refsOf(func(c *compute.Client) func(context.Context, string) ([]compute.Snapshot, error) {
		return c.Snapshots.FindByName
	},
		func(v *compute.Snapshot) string { return v.ID }, func(v *compute.Snapshot) string { return v.Name })}

var snapshotView = view[compute.Snapshot]{
	headers: []string{"ID", "NAME", "STATUS", "SIZE GIB", "REGION", "SOURCE"},
	row: func(s *compute.Snapshot) []string {
		return []string{s.ID, s.Name, string(s.Status), strconv.FormatInt(s.Size, 10), s.Region,
			cmp.Or(s.SourceInstanceID, s.SourceSnapshotID)}
	},
	id:   func(s *compute.Snapshot) string { return s.ID },
	name: func(s *compute.Snapshot) string { return s.Name },
}

func snapshotStatus(s *compute.Snapshot) compute.SnapshotStatus { return s.Status }

func (a *app) snapshotCmd() *cobra.Command {
	cmd := group("snapshot", "Manage snapshots: list, rename, delete, clone, import", "  compute snapshot list", "snapshots")
	cmd.AddCommand(
		a.snapshotListCmd(),
		getCmd(a, snapshotKind, snapshotView, "  compute snapshot get snap-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Snapshot, error) {
				return c.Snapshots.Get(ctx, id)
			}),
		describeCmd(a, snapshotKind, "  compute snapshot describe snap-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Snapshot, error) {
				return c.Snapshots.Get(ctx, id)
			}),
		a.snapshotUpdateCmd(),
		deleteCmd(a, snapshotKind, deleter{
			del: func(ctx context.Context, c *compute.Client, id string) error { return c.Snapshots.Delete(ctx, id) },
			delWait: func(ctx context.Context, c *compute.Client, id string, opts ...compute.DeleteOption) error {
				return c.Snapshots.DeleteAndWait(ctx, id, opts...)
			},
			watch: snapshotWaiter.watch,
		}, "  compute snapshot delete snap-000001 --wait"),
		a.snapshotCloneCmd(),
		a.snapshotImportCmd(),
		waitCmd(a, snapshotKind, snapshotView, snapshotWaiter, "  compute snapshot wait snap-000002"),
	)
	return cmd
}

// snapshotListCmd lists the account's snapshots, or one instance's with --instance.
func (a *app) snapshotListCmd() *cobra.Command {
	var instance string
	cmd := listCmd(a, snapshotKind, snapshotView, "  compute snapshot list\n  compute snapshot list --instance ins-000001 -o json",
		func(ctx context.Context, c *compute.Client) iter.Seq2[compute.Snapshot, error] {
			if instance != "" {
				return snapshotsOf(ctx, c, instance)
			}
			return c.Snapshots.All(ctx, allPages)
		})
	cmd.Short = "List every snapshot of the account, or of one instance (all pages)"
	cmd.Flags().StringVar(&instance, "instance", "", "list only this instance's snapshots (its ID or name)")
	return cmd
}

func (a *app) snapshotUpdateCmd() *cobra.Command {
	var req compute.SnapshotUpdateRequest
	cmd := &cobra.Command{
		Use:     "update " + snapshotKind.arg,
		Short:   "Rename a snapshot",
		Example: "  compute snapshot update snap-000001 --name golden-image",
		Args:    exactArgs(snapshotKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			snap, err := callByID(ctx, c, snapshotKind, args[0], func(id string) (*compute.Snapshot, error) { return c.Snapshots.Update(ctx, id, &req) })
			if err != nil {
				return err
			}
			return printItem(a, snapshotView, snap)
		}),
	}
	cmd.Flags().StringVar(&req.Name, "name", "", "the new name (required)")
	_ = cmd.MarkFlagRequired("name")
	return checkView(a, cmd, snapshotView)
}

// snapshotsOf lists the snapshots of the instance that arg names: tried as an ID, and when the
// first page says no instance has it, as a name (lookupID).
func snapshotsOf(ctx context.Context, c *compute.Client, arg string) iter.Seq2[compute.Snapshot, error] {
	return func(yield func(compute.Snapshot, error) bool) {
		first := true
		for s, err := range c.Snapshots.AllByInstance(ctx, arg, allPages) {
			if err != nil && first && unknownRef(err) {
				id, lerr := lookupID(ctx, c, instanceKind, arg)
				switch {
				case lerr != nil:
					err = lerr
				case id != arg:
					for s, err := range c.Snapshots.AllByInstance(ctx, id, allPages) {
						if !yield(s, err) {
							return
						}
					}
					return
				}
			}
			first = false
			if !yield(s, err) {
				return
			}
		}
	}
}

func (a *app) snapshotCloneCmd() *cobra.Command {
	var req compute.SnapshotCloneRequest
	var wait bool
	cmd := &cobra.Command{
		Use:   "clone " + snapshotKind.arg,
		Short: "Copy a snapshot, possibly to another region, or adopt the copy a lost request made",
		Long: `Copy a snapshot. The name is the request's key: a copy of the snapshot with the name in the region
that already exists is adopted and printed instead of making a second one.`,
		Example: "  compute snapshot clone snap-000001 --name golden-image-muc --region EUC-DE-MUC-1 --wait",
		Args:    exactArgs(snapshotKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			snap, err := callByID(ctx, c, snapshotKind, args[0], func(id string) (*compute.Snapshot, error) {
				return c.Snapshots.CloneOnce(ctx, id, &req, a.once(snapshotKind, req.Name))
			})
			if err != nil {
				return err
			}
			return a.printSnapshotAfter(ctx, c, wait, snap)
		}),
	}
	cmd.Flags().StringVar(&req.Name, "name", "", "the copy's name (required)")
	cmd.Flags().StringVar(&req.Region, "region", "", "the copy's region (required)")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the copy is created")
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("region")
	registerRegionCompletion(cmd, "region")
	return checkView(a, cmd, snapshotView)
}

func (a *app) snapshotImportCmd() *cobra.Command {
	var req compute.SnapshotImportRequest
	var wait bool
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Make a snapshot from a raw disk image at a URL, or adopt the one a lost request made",
		Long: `Make a snapshot from a raw disk image (or a zstd-compressed one) that the service downloads from
--url. The name is the request's key: a snapshot with the name in the region that already exists is
adopted and printed instead of importing a second one.`,
		Example: `  compute snapshot import --name debian-custom --region NORD-NO-KRS-1 --size 20 \
      --url https://images.example.com/debian-custom.raw.zst --wait`,
		Args: cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			snap, err := c.Snapshots.ImportOnce(ctx, &req, a.once(snapshotKind, req.Name))
			if err != nil {
				return err
			}
			return a.printSnapshotAfter(ctx, c, wait, snap)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the snapshot's name (required)")
	f.StringVar(&req.Region, "region", "", "the region to make it in (required)")
	f.IntVar(&req.Size, "size", 0, "its size in GiB, at least 1 (required)")
	f.StringVar(&req.URL, "url", "", "where the service downloads the raw disk image from (required)")
	f.StringVar(&req.OSType, "os-type", "", "linux or windows (the service's default if not given)")
	f.BoolVar(&wait, "wait", false, "wait until the snapshot is created")
	for _, r := range []string{"name", "region", "size", "url"} {
		_ = cmd.MarkFlagRequired(r)
	}
	registerRegionCompletion(cmd, "region")
	_ = cmd.RegisterFlagCompletionFunc("os-type", cobra.FixedCompletions([]string{compute.OSTypeLinux, compute.OSTypeWindows}, cobra.ShellCompDirectiveNoFileComp))
	return checkView(a, cmd, snapshotView)
}

// printSnapshotAfter waits for a new snapshot when --wait is given, then prints it.
func (a *app) printSnapshotAfter(ctx context.Context, c *compute.Client, wait bool, snap *compute.Snapshot) error {
	return printCreated(ctx, a, c, snapshotKind, snapshotView, snapshotWaiter, wait, snap, snap.ID, compute.SnapshotStatusCreated)
}

// snapshotWaiter waits on snapshots for the wait command, --wait and delete --wait.
var snapshotWaiter = waiter[compute.Snapshot, compute.SnapshotStatus]{
	statuses: []compute.SnapshotStatus{compute.SnapshotStatusCreating, compute.SnapshotStatusCreated,
		compute.SnapshotStatusPendingDelete, compute.SnapshotStatusDeleting, compute.SnapshotStatusError},
	target: compute.SnapshotStatusCreated,
	status: snapshotStatus,
	wait: func(ctx context.Context, c *compute.Client, id string, s compute.SnapshotStatus, opts ...compute.WaitOption) (*compute.Snapshot, error) {
		return c.Snapshots.WaitForStatus(ctx, id, s, opts...)
	},
	gone: func(ctx context.Context, c *compute.Client, id string, opts ...compute.WaitOption) error {
		return c.Snapshots.WaitForDeletion(ctx, id, opts...)
	},
}
