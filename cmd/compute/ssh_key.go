package main

import (
	"context"
	"iter"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var sshKeyKind = kind{name: "SSH key", one: "an SSH key", arg: "SSH_KEY_ID",
	get: func(ctx context.Context, c *compute.Client, id string) error {
		_, err := c.SSHKeys.Get(ctx, id)
		return err
	},
	find: refsOf(func(c *compute.Client) func(context.Context, string) ([]compute.SSHKey, error) {
		return c.SSHKeys.FindByName
	},
		func(v *compute.SSHKey) string { return v.ID }, func(v *compute.SSHKey) string { return v.Name })}

var sshKeyView = view[compute.SSHKey]{
	headers: []string{"ID", "NAME", "TYPE", "FINGERPRINT"},
	row:     func(k *compute.SSHKey) []string { return []string{k.ID, k.Name, k.Type, k.Fingerprint} },
	id:      func(k *compute.SSHKey) string { return k.ID },
	name:    func(k *compute.SSHKey) string { return k.Name },
}

func (a *app) sshKeyCmd() *cobra.Command {
	cmd := group("ssh-key", "Manage the SSH public keys instances are created with", "  compute ssh-key list", "ssh-keys")
	cmd.AddCommand(
		listCmd(a, sshKeyKind, sshKeyView, "  compute ssh-key list -o name",
			func(ctx context.Context, c *compute.Client) iter.Seq2[compute.SSHKey, error] {
				return c.SSHKeys.All(ctx, allPages)
			}),
		getCmd(a, sshKeyKind, sshKeyView, "  compute ssh-key get key-ci -o json",
			func(ctx context.Context, c *compute.Client, id string) (*compute.SSHKey, error) {
				return c.SSHKeys.Get(ctx, id)
			}),
		describeCmd(a, sshKeyKind, "  compute ssh-key describe key-ci",
			func(ctx context.Context, c *compute.Client, id string) (*compute.SSHKey, error) {
				return c.SSHKeys.Get(ctx, id)
			}),
		a.sshKeyCreateCmd(),
		a.sshKeyUpdateCmd(),
		deleteCmd(a, sshKeyKind, deleter{
			del: func(ctx context.Context, c *compute.Client, id string) error { return c.SSHKeys.Delete(ctx, id) },
			delWait: func(ctx context.Context, c *compute.Client, id string, opts ...compute.DeleteOption) error {
				return c.SSHKeys.DeleteAndWait(ctx, id, opts...)
			},
			// An SSH key has no status to show while its deletion is awaited.
			watch: func(*progress) []compute.WaitOption { return nil },
		}, "  compute ssh-key delete key-000001"),
	)
	return cmd
}

func (a *app) sshKeyCreateCmd() *cobra.Command {
	var name, keyFile string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Store an SSH public key, or adopt the one a lost create stored",
		Long: `Store an SSH public key from a file (such as ~/.ssh/id_ed25519.pub). The name is the create's key:
a key with the name that holds the same public key is adopted and printed instead of storing it
twice. A private key is refused before anything is sent.`,
		Example: "  compute ssh-key create --name laptop --public-key-file ~/.ssh/id_ed25519.pub -o id",
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			value, err := a.readFlagFile(ctx, "public-key-file", keyFile, maxPublicKeyFile)
			if err != nil {
				return err
			}
			k, err := c.SSHKeys.CreateOnce(ctx, &compute.SSHKeyCreateRequest{Name: name, Value: strings.TrimSpace(value)}, a.once(sshKeyKind, name))
			if err != nil {
				return err
			}
			return printItem(a, sshKeyView, k)
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", "the key's name, which a rerun uses to adopt it (required)")
	cmd.Flags().StringVar(&keyFile, "public-key-file", "", "the file holding the public key (required)")
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("public-key-file")
	return checkView(a, cmd, sshKeyView)
}

func (a *app) sshKeyUpdateCmd() *cobra.Command {
	var req compute.SSHKeyUpdateRequest
	cmd := &cobra.Command{
		Use:     "update " + sshKeyKind.arg,
		Short:   "Rename an SSH key (its value cannot change)",
		Example: "  compute ssh-key update key-000001 --name laptop-2026",
		Args:    exactArgs(sshKeyKind.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			k, err := callByID(ctx, c, sshKeyKind, args[0], func(id string) (*compute.SSHKey, error) { return c.SSHKeys.Update(ctx, id, &req) })
			if err != nil {
				return err
			}
			return printItem(a, sshKeyView, k)
		}),
	}
	cmd.Flags().StringVar(&req.Name, "name", "", "the new name (required)")
	_ = cmd.MarkFlagRequired("name")
	return checkView(a, cmd, sshKeyView)
}
