package main

import (
	"context"
	"strconv"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var availabilityView = view[compute.InstanceTypeAvailability]{
	headers: []string{"TYPE", "AVAILABLE", "COUNT"},
	row: func(t *compute.InstanceTypeAvailability) []string {
		var count string
		if t.Count != nil {
			count = strconv.FormatFloat(*t.Count, 'f', -1, 64)
		}
		return []string{t.Type, strconv.FormatBool(t.Available), count}
	},
	name: func(t *compute.InstanceTypeAvailability) string { return t.Type },
}

func (a *app) availabilityCmd() *cobra.Command {
	cmd := group("availability", "Show which instance types a region can create now", "  compute availability get NORD-NO-KRS-1")
	var placement string
	get := &cobra.Command{
		Use:   "get REGION",
		Short: "Show which instance types a region can create now",
		Long: `Show which instance types the region can create now. The table and -o name list the types; -o json
prints the service's whole report.`,
		Example: "  compute availability get NORD-NO-KRS-1\n  compute availability get EUC-DE-MUC-1 -o json",
		Args:    exactArgs("REGION"),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			av, err := c.Availability.Instances(ctx, args[0], &compute.AvailabilityOptions{Placement: placement})
			if err != nil {
				return err
			}
			if a.structured() {
				return a.printData(av)
			}
			return printItems(a, availabilityView, av.InstanceTypes)
		}),
		ValidArgsFunction: cobra.FixedCompletions(regions, cobra.ShellCompDirectiveNoFileComp),
	}
	get.Flags().StringVar(&placement, "placement", "", "the placement to report on")
	cmd.AddCommand(get)
	return cmd
}
