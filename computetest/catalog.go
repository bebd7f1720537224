package computetest

import (
	"slices"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// Catalog is what the fake offers besides the resources created through the API: the contract has no
// endpoint for regions, instance types, SSH keys or volumes, so a test discovers them here (and
// compute-fake prints them). Images are also listed by GET /compute/v1/images.
type Catalog struct {
	// Regions are the region identifiers resources can be created in.
	Regions []Region `json:"regions"`
	// InstanceTypes are the instance types, each offered in some regions.
	InstanceTypes []InstanceType `json:"instance_types"`
	// PlacementOptions are the accepted placement_option values; "AUTO" is the default.
	PlacementOptions []string `json:"placement_options"`
	// Images are the public images (base-os, cloud-image, preconfigured). Snapshots taken through
	// the API join them in the image list as type "snapshot".
	Images []compute.Image `json:"images"`
	// SSHKeys are the account's SSH keys, usable in any region.
	SSHKeys []SSHKey `json:"ssh_keys"`
	// Volumes are the account's volumes. Only a volume with status "available" can be attached;
	// one with status "locked" is refused with 02046.
	Volumes []Volume `json:"volumes"`
}

// Region is a region identifier with a display name.
type Region struct {
	// ID is the identifier used in requests, such as "eu-west-1".
	ID string `json:"id"`
	// Name is a display name.
	Name string `json:"name"`
}

// InstanceType is an instance type and where it runs.
type InstanceType struct {
	// ID is the identifier used as an instance's type, such as "std.small".
	ID string `json:"id"`
	// VCPUs is the number of virtual CPUs; the fake only reports it.
	VCPUs int `json:"vcpus"`
	// MemoryGiB is the memory size; the fake only reports it.
	MemoryGiB int `json:"memory_gib"`
	// Regions are the regions the type is offered in; elsewhere a create gets 02020.
	Regions []string `json:"regions"`
	// UnsupportedImages are image IDs that cannot run on this type (a create gets 02035). A snapshot
	// inherits the rule of the image its instance was built from.
	UnsupportedImages []string `json:"unsupported_images,omitempty"`
}

// SSHKey is an SSH key of the account.
type SSHKey struct {
	// ID is the identifier used in a create request's ssh_keys.
	ID string `json:"id"`
	// Name is a display name.
	Name string `json:"name"`
}

// Volume is a volume of the account.
type Volume struct {
	// ID is the identifier used in a create or update request's volumes.
	ID string `json:"id"`
	// Name is a display name.
	Name string `json:"name"`
	// Region is where the volume lives; attaching it to an instance elsewhere gets 02051.
	Region string `json:"region"`
	// Status is "available" (attachable), "in-use" (attached) or "locked" (never attachable).
	Status string `json:"status"`
}

// The statuses of a Volume.
const (
	// VolumeAvailable is a volume that can be attached.
	VolumeAvailable = "available"
	// VolumeInUse is a volume attached to an instance.
	VolumeInUse = "in-use"
	// VolumeLocked is a volume that cannot be attached or detached (02046).
	VolumeLocked = "locked"
)

// DefaultCatalog is the catalogue a Server starts with unless WithCatalog replaces it: three regions,
// four instance types (the GPU one only in us-east-1), images of the three public types (a cloud image
// with two versions; a Windows image that std.small cannot run; a CUDA image that only gpu.a100 can
// run), two SSH keys and five volumes (one locked).
func DefaultCatalog() Catalog {
	t0 := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	all := []string{"eu-west-1", "us-east-1", "ap-south-1"}
	img := func(id, name string, typ compute.ImageType, family, slug, os string, versions []string) compute.Image {
		if versions == nil {
			versions = []string{}
		}
		return compute.Image{ID: id, Name: name, Type: typ, Family: family, Slug: slug, OSType: os,
			Versions: versions, Regions: slices.Clone(all), CreatedAt: t0, UpdatedAt: t0}
	}
	return Catalog{
		Regions: []Region{
			{ID: "eu-west-1", Name: "Amsterdam"},
			{ID: "us-east-1", Name: "New York"},
			{ID: "ap-south-1", Name: "Mumbai"},
		},
		InstanceTypes: []InstanceType{
			{ID: "std.small", VCPUs: 2, MemoryGiB: 4, Regions: slices.Clone(all),
				UnsupportedImages: []string{"img-windows-2022", "img-cuda-12"}},
			{ID: "std.medium", VCPUs: 4, MemoryGiB: 8, Regions: slices.Clone(all),
				UnsupportedImages: []string{"img-cuda-12"}},
			{ID: "std.large", VCPUs: 8, MemoryGiB: 32, Regions: slices.Clone(all),
				UnsupportedImages: []string{"img-cuda-12"}},
			{ID: "gpu.a100", VCPUs: 16, MemoryGiB: 128, Regions: []string{"us-east-1"}},
		},
		PlacementOptions: []string{"AUTO", "SPREAD", "PACK"},
		Images: []compute.Image{
			img("img-ubuntu-2404", "Ubuntu 24.04", compute.ImageTypeBaseOS, "ubuntu", "ubuntu-24.04", "linux", nil),
			img("img-debian-12", "Debian 12", compute.ImageTypeBaseOS, "debian", "debian-12", "linux", nil),
			img("img-windows-2022", "Windows Server 2022", compute.ImageTypeBaseOS, "windows", "windows-2022", "windows", nil),
			img("img-ubuntu-cloud", "Ubuntu Cloud", compute.ImageTypeCloudImage, "ubuntu", "ubuntu-cloud", "linux", []string{"22.04", "24.04"}),
			img("img-docker", "Docker on Ubuntu", compute.ImageTypePreconfigured, "ubuntu", "docker", "linux", nil),
			img("img-cuda-12", "CUDA 12 on Ubuntu", compute.ImageTypePreconfigured, "ubuntu", "cuda-12", "linux", nil),
		},
		SSHKeys: []SSHKey{{ID: "key-laptop", Name: "laptop"}, {ID: "key-ci", Name: "ci"}},
		Volumes: []Volume{
			{ID: "vol-data-1", Name: "data-1", Region: "eu-west-1", Status: VolumeAvailable},
			{ID: "vol-data-2", Name: "data-2", Region: "eu-west-1", Status: VolumeAvailable},
			{ID: "vol-data-3", Name: "data-3", Region: "us-east-1", Status: VolumeAvailable},
			{ID: "vol-backup", Name: "backup", Region: "ap-south-1", Status: VolumeAvailable},
			{ID: "vol-locked", Name: "locked", Region: "eu-west-1", Status: VolumeLocked},
		},
	}
}

// clone copies every slice, so a Server never shares memory with the caller's Catalog.
func (c Catalog) clone() Catalog {
	out := c
	out.Regions = slices.Clone(c.Regions)
	out.PlacementOptions = slices.Clone(c.PlacementOptions)
	out.SSHKeys = slices.Clone(c.SSHKeys)
	out.Volumes = slices.Clone(c.Volumes)
	out.InstanceTypes = make([]InstanceType, len(c.InstanceTypes))
	for i, t := range c.InstanceTypes {
		t.Regions = slices.Clone(t.Regions)
		t.UnsupportedImages = slices.Clone(t.UnsupportedImages)
		out.InstanceTypes[i] = t
	}
	out.Images = make([]compute.Image, len(c.Images))
	for i, im := range c.Images {
		im.Versions = slices.Clone(im.Versions)
		im.Regions = slices.Clone(im.Regions)
		out.Images[i] = im
	}
	return out
}
