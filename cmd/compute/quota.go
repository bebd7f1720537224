package main

import (
	"context"
	"iter"
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
	list := listCmd(a, kind{name: "quota"}, quotaView, "  compute quota list -o json",
		func(ctx context.Context, c *compute.Client) iter.Seq2[compute.Quota, error] {
			return listed(c.Quotas.List(ctx))
		})
	list.Short = "List every quota of the account with how much of it is used"
	cmd.AddCommand(list)
	return cmd
}
