package main

import (
	"context"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

var imageView = view[compute.Image]{
	headers: []string{"ID", "NAME", "TYPE", "SLUG", "VERSIONS", "REGIONS"},
	row: func(i *compute.Image) []string {
		return []string{i.ID, i.Name, string(i.Type), i.Slug, strings.Join(i.Versions, ","), strings.Join(i.Regions, ",")}
	},
	id:   func(i *compute.Image) string { return i.ID },
	name: func(i *compute.Image) string { return i.Name },
}

func (a *app) imageCmd() *cobra.Command {
	cmd := group("image", "List the images instances boot from", "  compute image list --type base-os", "images")
	var typ string
	list := &cobra.Command{
		Use:   "list",
		Short: "List every image, or those of one type (all pages)",
		Long: `List every image (all pages), or with --type only those of one type: base-os, cloud-image,
preconfigured or snapshot (your own snapshots). Pass an image's ID or slug (slug:version for a
cloud image) to "compute instance create --image".`,
		Example: "  compute image list --type cloud-image -o json",
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			opts := &compute.ImageListOptions{Type: compute.ImageType(typ), ListOptions: *allPages}
			return printList(a, imageView, c.Images.All(ctx, opts))
		}),
	}
	list.Flags().StringVar(&typ, "type", "", "list only images of this type: base-os, cloud-image, preconfigured or snapshot")
	_ = list.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{string(compute.ImageTypeBaseOS),
		string(compute.ImageTypeCloudImage), string(compute.ImageTypePreconfigured), string(compute.ImageTypeSnapshot)},
		cobra.ShellCompDirectiveNoFileComp))
	cmd.AddCommand(list)
	return cmd
}
