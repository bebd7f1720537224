package main

import (
	"cmp"
	"context"
	"iter"
	"path/filepath"
	"strconv"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var instanceKind = kind{name: "instance", one: "an instance", arg: "INSTANCE_ID",
	get: func(ctx context.Context, c *compute.Client, id string) error {
		_, err := c.Instances.Get(ctx, id)
		return err
	},
	find: refsOf(func(c *compute.Client) func(context.Context, string) ([]compute.Instance, error) {
		return c.Instances.FindByName
	},
		func(v *compute.Instance) string { return v.ID }, func(v *compute.Instance) string { return v.Name })}

var instanceView = view[compute.Instance]{
	headers: []string{"ID", "NAME", "STATUS", "TYPE", "REGION", "IMAGE", "PUBLIC IP", "PROTECTED"},
	row: func(i *compute.Instance) []string {
		return []string{i.ID, i.Name, string(i.Status), i.Type, i.Region, cmp.Or(i.Image.Name, i.Image.ID),
			i.PublicIP, strconv.FormatBool(i.IsProtected)}
	},
	id:   func(i *compute.Instance) string { return i.ID },
	name: func(i *compute.Instance) string { return i.Name },
}

var instanceStatuses = []compute.InstanceStatus{
	compute.InstanceStatusCreating, compute.InstanceStatusPendingPayment, compute.InstanceStatusActive,
	compute.InstanceStatusStopping, compute.InstanceStatusStopped, compute.InstanceStatusStarting,
	compute.InstanceStatusResetting, compute.InstanceStatusError, compute.InstanceStatusDeleting,
}

func instanceStatus(i *compute.Instance) compute.InstanceStatus { return i.Status }

func (a *app) instanceCmd() *cobra.Command {
	cmd := group("instance", "Manage instances (virtual machines)", "  compute instance list", "instances")
	cmd.AddCommand(
		listCmd(a, instanceKind, instanceView, "  compute instance list -o json",
			func(ctx context.Context, c *compute.Client) iter.Seq2[compute.Instance, error] {
				return c.Instances.All(ctx, allPages)
			}),
		getCmd(a, instanceKind, instanceView, "  compute instance get ins-000001 -o json",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Instance, error) {
				return c.Instances.Get(ctx, id)
			}),
		describeCmd(a, instanceKind, "  compute instance describe ins-000001",
			func(ctx context.Context, c *compute.Client, id string) (*compute.Instance, error) {
				return c.Instances.Get(ctx, id)
			}),
		a.instanceCreateCmd(),
		a.instanceUpdateCmd(),
		deleteCmd(a, instanceKind, deleter{
			del: func(ctx context.Context, c *compute.Client, id string) error { return c.Instances.Delete(ctx, id) },
			delWait: func(ctx context.Context, c *compute.Client, id string, opts ...compute.DeleteOption) error {
				return c.Instances.DeleteAndWait(ctx, id, opts...)
			},
			watch: instanceWaiter.watch,
			force: true,
		}, "  compute instance delete ins-000001 --wait\n  compute instance delete ins-000001 --force"),
		a.instanceActionCmd(compute.ActionStart, compute.InstanceStatusActive, "Start a stopped instance"),
		a.instanceActionCmd(compute.ActionStop, compute.InstanceStatusStopped, "Stop an instance (it keeps existing)"),
		a.instanceActionCmd(compute.ActionReset, compute.InstanceStatusActive, "Reset an instance, like a power cycle"),
		a.instanceActionsCmd(),
		a.instanceSnapshotCmd(),
		a.instanceUserMetadataCmd(),
		a.instanceAttachCmd("attach-volume", volumeKind, "vol-data-1", "Attach one volume to an instance", (*compute.InstancesService).AttachVolume),
		a.instanceAttachCmd("detach-volume", volumeKind, "vol-data-1", "Detach one volume from an instance", (*compute.InstancesService).DetachVolume),
		a.instanceAttachCmd("attach-security-group", securityGroupKind, "sg-000001", "Attach one security group to an instance", (*compute.InstancesService).AttachSecurityGroup),
		a.instanceAttachCmd("detach-security-group", securityGroupKind, "sg-000001", "Detach one security group from an instance", (*compute.InstancesService).DetachSecurityGroup),
		waitCmd(a, instanceKind, instanceView, instanceWaiter, "  compute instance wait ins-000001 --status stopped --timeout 5m"),
	)
	return cmd
}

func (a *app) instanceCreateCmd() *cobra.Command {
	var req compute.InstanceCreateRequest
	var passwordFile, scriptFile, billing string
	var userData []string
	var noGroups, wait bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create an instance, or adopt the one a lost create made",
		Long: `Create an instance. The name is the create's key: when an instance with the name already exists in
the region with the type (a rerun after a lost response, a CI job run again), it is adopted and
printed instead of creating a second, billed one. Give each instance a name only its creator uses.

Give --ssh-key or --password-file, not both. With --wait the command returns once the instance is
active, showing its status on a terminal.`,
		Example: `  compute instance create --name web-1 --type vcpu-2_memory-4g --region NORD-NO-KRS-1 \
      --image ubuntu-24.04 --ssh-key key-ci --security-group sg-000001 --wait
  id=$(compute instance create --name ci-runner --type vcpu-2_memory-4g --region NORD-NO-KRS-1 \
      --image debian-12 --ssh-key key-ci -o id)`,
		Args: cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			req.Hostname = cmp.Or(req.Hostname, req.Name)
			req.BillingType = compute.BillingType(billing)
			if noGroups {
				req.SecurityGroups = []string{}
			}
			if passwordFile != "" {
				pw, err := a.readFlagFile(ctx, "password-file", passwordFile, maxPasswordFile)
				if err != nil {
					return err
				}
				req.Password = strings.TrimRight(pw, "\r\n")
			}
			meta, err := a.instanceMetadata(ctx, scriptFile, userData)
			if err != nil {
				return err
			}
			req.Metadata = meta
			// The keys, groups, volumes and floating IP may be given by name.
			var refs refSet
			refs.addAll(sshKeyKind, req.SSHKeys)
			refs.addAll(securityGroupKind, req.SecurityGroups)
			refs.addAll(volumeKind, req.Volumes)
			refs.add(floatingIPKind, &req.FloatingIP)
			var inst *compute.Instance
			err = refs.call(ctx, c, func() error {
				var err error
				inst, err = c.Instances.CreateOnce(ctx, &req, a.once(instanceKind, req.Name))
				return err
			})
			if err != nil {
				return err
			}
			return printCreated(ctx, a, c, instanceKind, instanceView, instanceWaiter, wait, inst, inst.ID, compute.InstanceStatusActive)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the instance's name, which a rerun uses to adopt it (required)")
	f.StringVar(&req.Hostname, "hostname", "", "the host name (default: the name)")
	f.StringVar(&req.Type, "type", "", "the instance type, such as vcpu-2_memory-4g (required)")
	f.StringVar(&req.Region, "region", "", "the region, such as NORD-NO-KRS-1 (required)")
	f.StringVar(&req.Image, "image", "", "an image ID, an image slug (slug:version) or a snapshot ID (required)")
	f.StringSliceVar(&req.SSHKeys, "ssh-key", nil, "an SSH key (ID or name) to install; repeat or separate with commas")
	f.StringVar(&passwordFile, "password-file", "", "read the login password (16 characters or more) from this file, instead of SSH keys")
	f.StringSliceVar(&req.SecurityGroups, "security-group", nil, "a security group (ID or name) to attach; repeat or separate with commas")
	f.BoolVar(&noGroups, "no-security-groups", false, "create the instance with no security group at all")
	f.StringSliceVar(&req.Volumes, "volume", nil, "a volume (ID or name) to attach; repeat or separate with commas")
	f.StringVar(&req.FloatingIP, "floating-ip", "", "a floating IP (ID or name) to attach")
	f.StringVar(&req.PlacementOption, "placement", "", "the placement option (the service's default: AUTO)")
	f.IntVar(&req.DiskSize, "disk-size", 0, "the boot volume in GiB, at least 80 (the service's default: 80)")
	f.BoolVar(&req.IsProtected, "protected", false, "turn termination protection on")
	f.StringVar(&scriptFile, "startup-script-file", "", "run this script or cloud-config file after the first boot (64 KiB at most)")
	f.StringArrayVar(&userData, "user-data", nil, "hand a user data file to the instance, as TYPE=PATH (text/cloud-config=init.yaml); repeatable")
	f.StringVar(&billing, "billing-type", "", "on-demand, prepaid-monthly, prepaid-3-month, prepaid-6-month, prepaid-12-month or reserved")
	f.StringVar(&req.ReservationID, "reservation", "", "a reservation ID to create the instance under")
	f.StringVar(&req.ReuseLongTermSubscription, "reuse-subscription", "", "a long-term subscription ID to bill the instance under")
	f.BoolVar(&req.PublicIPv6, "public-ipv6", false, "give the instance an IPv6 address as well")
	f.BoolVar(&req.DestroyOnShutdown, "destroy-on-shutdown", false, "destroy the instance when it is shut down from inside")
	f.BoolVar(&wait, "wait", false, "wait until the instance is active")
	for _, r := range []string{"name", "type", "region", "image"} {
		_ = cmd.MarkFlagRequired(r)
	}
	cmd.MarkFlagsMutuallyExclusive("security-group", "no-security-groups")
	cmd.MarkFlagsMutuallyExclusive("ssh-key", "password-file")
	registerRegionCompletion(cmd, "region")
	return checkView(a, cmd, instanceView)
}

// instanceMetadata reads the startup script and the user data files, nil when none is given.
func (a *app) instanceMetadata(ctx context.Context, scriptFile string, userData []string) (*compute.InstanceMetadata, error) {
	if scriptFile == "" && len(userData) == 0 {
		return nil, nil
	}
	var meta compute.InstanceMetadata
	if scriptFile != "" {
		s, err := a.readFlagFile(ctx, "startup-script-file", scriptFile, maxScriptFile)
		if err != nil {
			return nil, err
		}
		meta.StartupScript = s
	}
	for _, ud := range userData {
		typ, path, ok := strings.Cut(ud, "=")
		if !ok || typ == "" || path == "" {
			return nil, usagef("invalid --user-data %q: want TYPE=PATH, such as text/cloud-config=init.yaml", ud)
		}
		content, err := a.readFlagFile(ctx, "user-data", path, maxUserDataFile)
		if err != nil {
			return nil, err
		}
		meta.UserData = append(meta.UserData, compute.UserDataItem{Type: typ, Filename: filepath.Base(path), Content: content})
	}
	return &meta, nil
}

func (a *app) instanceUpdateCmd() *cobra.Command {
	var name, reservation string
	var protected, noGroups, noVolumes bool
	var diskSize int
	var groups, volumes []string
	cmd := &cobra.Command{
		Use:   "update " + instanceKind.arg,
		Short: "Rename an instance, protect it, grow its disk, or set its security groups or volumes",
		Long: `Change an active instance. Only the flags given change. --security-group and --volume give the
whole new list (--no-security-groups and --no-volumes empty it); to add or remove one item, use
attach-volume, detach-volume, attach-security-group or detach-security-group.`,
		Example: `  compute instance update ins-000001 --name web-1-old --protected=false
  compute instance update ins-000001 --security-group sg-000001,sg-000002`,
		Args: exactArgs(instanceKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			req := &compute.InstanceUpdateRequest{
				Name:          changed(cmd, "name", name),
				IsProtected:   changed(cmd, "protected", protected),
				DiskSize:      changed(cmd, "disk-size", diskSize),
				ReservationID: changed(cmd, "reservation", reservation),
			}
			switch {
			case noGroups:
				req.SecurityGroups = []string{}
			case cmd.Flags().Changed("security-group"):
				req.SecurityGroups = groups
			}
			switch {
			case noVolumes:
				req.Volumes = []string{}
			case cmd.Flags().Changed("volume"):
				req.Volumes = volumes
			}
			// The instance, the groups and the volumes may be given by name.
			id := args[0]
			var refs refSet
			refs.add(instanceKind, &id)
			refs.addAll(securityGroupKind, req.SecurityGroups)
			refs.addAll(volumeKind, req.Volumes)
			var inst *compute.Instance
			err := refs.call(ctx, c, func() error {
				var err error
				inst, err = c.Instances.Update(ctx, id, req)
				return err
			})
			if err != nil {
				return err
			}
			return printItem(a, instanceView, inst)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the new name (the hostname stays)")
	f.BoolVar(&protected, "protected", false, "turn termination protection on (--protected) or off (--protected=false)")
	f.IntVar(&diskSize, "disk-size", 0, "grow the boot volume to this many GiB")
	f.StringVar(&reservation, "reservation", "", "associate the instance with this reservation ID")
	f.StringSliceVar(&groups, "security-group", nil, "the full list of security groups (IDs or names); repeat or separate with commas")
	f.BoolVar(&noGroups, "no-security-groups", false, "detach every security group")
	f.StringSliceVar(&volumes, "volume", nil, "the full list of volumes (IDs or names); repeat or separate with commas")
	f.BoolVar(&noVolumes, "no-volumes", false, "detach every volume")
	cmd.MarkFlagsMutuallyExclusive("security-group", "no-security-groups")
	cmd.MarkFlagsMutuallyExclusive("volume", "no-volumes")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		return needOneOf(cmd, "name", "protected", "disk-size", "reservation", "security-group", "no-security-groups", "volume", "no-volumes")
	}
	return checkView(a, cmd, instanceView)
}

// instanceActionCmd returns "instance start|stop|reset ID... [--wait]".
func (a *app) instanceActionCmd(action compute.InstanceAction, target compute.InstanceStatus, short string) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   string(action) + " " + many(instanceKind.arg),
		Short: short,
		Long: short + `. It prints nothing unless --wait is given: then it waits until the instance is ` +
			string(target) + ` and prints it.

Given several instances, it acts on them at once (paced as one, their waits sharing their
polling), writes a line on stderr for each as it ends, prints with --wait those that got there
(-o json: an array), and exits with the code of the worst outcome.`,
		Example: "  compute instance " + string(action) + " ins-000001 --wait\n  compute instance " + string(action) + " web-1 web-2 web-3",
		Args:    severalArgs(instanceKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			items, err := fleet(ctx, a, cmd, instanceKind, args, func(ctx context.Context, arg string) outcome[compute.Instance] {
				var id string
				err := withID(ctx, c, instanceKind, arg, func(candidate string) error {
					id = candidate
					return c.Instances.PerformAction(ctx, id, action)
				})
				if err != nil || !wait {
					return outcome[compute.Instance]{arg: arg, id: id, done: string(action) + " requested", err: err}
				}
				inst, err := waitFor(ctx, a, c, instanceKind, instanceWaiter, true, nil, id, target)
				return outcome[compute.Instance]{arg: arg, id: id, done: string(target), item: inst, err: err, waited: true}
			})
			if !wait {
				return err
			}
			return printFleet(a, instanceView, args, items, err)
		}),
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the instance is "+string(target))
	return quiet(a, checkView(a, cmd, instanceView), func() bool { return wait })
}

var actionView = view[compute.InstanceAction]{
	headers: []string{"ACTION"},
	row:     func(s *compute.InstanceAction) []string { return []string{string(*s)} },
	name:    func(s *compute.InstanceAction) string { return string(*s) },
}

func (a *app) instanceActionsCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "actions " + instanceKind.arg,
		Short:   "List the actions an instance accepts now (start, stop, reset)",
		Example: "  compute instance actions ins-000001 -o name",
		Args:    exactArgs(instanceKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			actions, err := callByID(ctx, c, instanceKind, args[0], func(id string) ([]compute.InstanceAction, error) { return c.Instances.Actions(ctx, id) })
			if err != nil {
				return err
			}
			return printItems(a, actionView, actions)
		}),
	}
}

func (a *app) instanceSnapshotCmd() *cobra.Command {
	var req compute.SnapshotCreateRequest
	var wait bool
	cmd := &cobra.Command{
		Use:   "snapshot " + instanceKind.arg,
		Short: "Snapshot an active instance, or adopt the snapshot a lost request made",
		Long: `Snapshot an active instance. The name is the request's key: a snapshot of the instance with the
name that already exists is adopted and printed instead of taking a second one.`,
		Example: "  compute instance snapshot ins-000001 --name web-1-before-upgrade --wait",
		Args:    exactArgs(instanceKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			snap, err := callByID(ctx, c, instanceKind, args[0], func(id string) (*compute.Snapshot, error) {
				return c.Snapshots.CreateOnce(ctx, id, &req, a.once(snapshotKind, req.Name))
			})
			if err != nil {
				return err
			}
			return a.printSnapshotAfter(ctx, c, wait, snap)
		}),
	}
	cmd.Flags().StringVar(&req.Name, "name", "", "the snapshot's name (required)")
	cmd.Flags().StringVar(&req.ReplicatedRegion, "replicated-region", "", "a region to copy the snapshot to as well")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the snapshot is created")
	_ = cmd.MarkFlagRequired("name")
	registerRegionCompletion(cmd, "replicated-region")
	return checkView(a, cmd, snapshotView)
}

// metadataEntry is one key of an instance's user metadata, for the table and -o name.
type metadataEntry struct{ key, value string }

var metadataView = view[metadataEntry]{
	headers: []string{"KEY", "VALUE"},
	row:     func(e *metadataEntry) []string { return []string{e.key, e.value} },
	name:    func(e *metadataEntry) string { return e.key },
}

func (a *app) instanceUserMetadataCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "user-metadata " + instanceKind.arg,
		Short: "Show the user metadata an instance was created with",
		Long: `Show an instance's user metadata, a free-form JSON object: -o json prints it as the service sends
it, the table shows each key with its value as compact JSON.`,
		Example: "  compute instance user-metadata ins-000001 -o json",
		Args:    exactArgs(instanceKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			md, err := callByID(ctx, c, instanceKind, args[0], func(id string) (compute.UserMetadata, error) { return c.Instances.UserMetadata(ctx, id) })
			if err != nil {
				return err
			}
			if a.structured() {
				return a.printData(md)
			}
			var entries []metadataEntry
			for _, k := range sortedKeys(md) {
				entries = append(entries, metadataEntry{key: k, value: compactJSON(md[k])})
			}
			return printItems(a, metadataView, entries)
		}),
	}
}

// instanceAttachCmd returns "instance attach-volume|detach-volume|attach-security-group|
// detach-security-group INSTANCE_ID ITEM_ID", which changes one item without sending the whole
// list. Either argument may be a name.
func (a *app) instanceAttachCmd(use string, item kind, exampleID, short string,
	call func(*compute.InstancesService, context.Context, string, string) (*compute.Instance, error)) *cobra.Command {
	itemArg := item.arg
	return &cobra.Command{
		Use:   use + " " + instanceKind.arg + " " + itemArg,
		Short: short,
		Long: short + `. It changes that one item without reading or sending the whole list. Its response may be
lost after it took effect: then it exits with 7 (outcome unknown); read the instance to know.`,
		Example: "  compute instance " + use + " ins-000001 " + exampleID,
		Args:    exactArgs(instanceKind.arg, itemArg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			inst, err := callByRefs(ctx, c, []ref{{instanceKind, args[0]}, {item, args[1]}}, func(ids []string) (*compute.Instance, error) {
				return call(c.Instances, ctx, ids[0], ids[1])
			})
			if err != nil {
				return err
			}
			return printItem(a, instanceView, inst)
		}),
	}
}

// instanceWaiter waits on instances for the wait command, --wait and delete --wait.
var instanceWaiter = waiter[compute.Instance, compute.InstanceStatus]{
	statuses: instanceStatuses,
	target:   compute.InstanceStatusActive,
	status:   instanceStatus,
	wait: func(ctx context.Context, c *compute.Client, id string, s compute.InstanceStatus, opts ...compute.WaitOption) (*compute.Instance, error) {
		return c.Instances.WaitForStatus(ctx, id, s, opts...)
	},
	gone: func(ctx context.Context, c *compute.Client, id string, opts ...compute.WaitOption) error {
		return c.Instances.WaitForDeletion(ctx, id, opts...)
	},
}
