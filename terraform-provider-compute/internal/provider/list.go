package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/availability"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/filesystem"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/floatingip"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/image"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/instance"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/instancestatus"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/quota"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/securitygroup"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/snapshot"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/sshkey"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/volume"
)

// resources are the provider's resources, one package each: the official provider's eight.
var resources = []func() resource.Resource{
	instance.New,
	instancestatus.New,
	securitygroup.New,
	floatingip.New,
	sshkey.New,
	volume.New,
	filesystem.New,
	snapshot.New,
}

// dataSources are the provider's data sources: the official provider's compute_images, and one
// image, the instance types of a region and the quotas.
var dataSources = []func() datasource.DataSource{
	image.NewList,
	image.New,
	availability.New,
	quota.New,
}
