package main

import (
	"context"
	"iter"
	"strconv"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var reservationView = view[compute.Reservation]{
	headers: []string{"ID", "FLAVOR", "REGION", "USED", "CAPACITY"},
	row: func(r *compute.Reservation) []string {
		return []string{r.ID, r.FlavorName, r.Region, strconv.Itoa(r.Quota.Used), strconv.Itoa(r.Quota.Capacity)}
	},
	id: func(r *compute.Reservation) string { return r.ID },
}

func (a *app) reservationCmd() *cobra.Command {
	cmd := group("reservation", "Show the account's reservations", "  compute reservation list", "reservations")
	list := listCmd(a, kind{name: "reservation"}, reservationView, "  compute reservation list -o id",
		func(ctx context.Context, c *compute.Client) iter.Seq2[compute.Reservation, error] {
			return listed(c.Reservations.List(ctx))
		})
	list.Short = "List the account's reservations (pass an ID to instance create --reservation)"
	cmd.AddCommand(list)
	return cmd
}
