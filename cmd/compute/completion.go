package main

import (
	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// regions are the region IDs that completion offers; any other is accepted.
var regions = []string{
	compute.RegionEUCDEMUC1, compute.RegionEUWGBMNC1, compute.RegionEUWNLAMS1, compute.RegionNACAFTS1,
	compute.RegionNACAMNZ1, compute.RegionNACAPRG1, compute.RegionNORDNOKRS1,
}

// registerRegionCompletion completes a region flag with the known regions.
func registerRegionCompletion(cmd *cobra.Command, flag string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(regions, cobra.ShellCompDirectiveNoFileComp))
}
