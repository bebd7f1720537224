package main

import (
	"context"
	"strconv"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var quotaView = view[compute.Quota]{
	headers: []string{"KEY", "USED", "CAPACITY"},
	row: func(q *compute.Quota) []string {
		return []string{q.Key, strconv.Itoa(q.Used), strconv.Itoa(q.Capacity)}
	},
	name: func(q *compute.Quota) string { return q.Key },
}

func (a *app) quotaCmd() *cobra.Command {
	cmd := group("quota", "Show the account's quotas", "  compute quota list", "quotas")
	cmd.AddCommand(&cobra.Command{
		Use:     "list",
		Short:   "List every quota of the account with how much of it is used",
		Example: "  compute quota list -o json",
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			quotas, err := c.Quotas.List(ctx)
			if err != nil {
				return err
			}
			return printItems(a, quotaView, quotas)
		}),
	})
	return cmd
}
