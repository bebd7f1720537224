package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/instance"
	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/sshkey"
)

// resources are the provider's resources, one package each.
var resources = []func() resource.Resource{
	instance.New,
	sshkey.New,
}

// dataSources are the provider's data sources.
var dataSources = []func() datasource.DataSource{}
