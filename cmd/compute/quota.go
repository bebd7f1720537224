package main

import (
	"context"
	"iter"
	"math"
	"strconv"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var quotaView = view[compute.Quota]{
	headers: []string{"KEY", "USED", "CAPACITY"},
	row: func(q *compute.Quota) []string {
		return []string{q.Key, strconv.Itoa(q.Used), capacityText(q.Capacity)}
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

// unlimitedCapacity is the capacity the service gives a quota without a limit: 2^31-1.
const unlimitedCapacity = math.MaxInt32

// capacityText shows a capacity in a table: "unlimited" for a quota without a limit.
func capacityText(n int) string {
	if n >= unlimitedCapacity {
		return "unlimited"
	}
	return strconv.Itoa(n)
}
