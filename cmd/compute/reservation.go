package main

import (
	"context"
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
	cmd.AddCommand(&cobra.Command{
		Use:     "list",
		Short:   "List the account's reservations (pass an ID to instance create --reservation)",
		Example: "  compute reservation list -o id",
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			reservations, err := c.Reservations.List(ctx)
			if err != nil {
				return err
			}
			return printItems(a, reservationView, reservations)
		}),
	})
	return cmd
}
