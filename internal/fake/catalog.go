package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
	"unicode/utf8"
)

// Catalog is what the fake starts with besides the resources created through the API: the API
// has no endpoint for regions or instance types, so a test discovers them here (and compute-fake
// prints them, and reads a replacement with -catalog). Images are also listed by GET
// /compute/v1/images; the SSH keys and volumes are the account's first keys and volumes, which the
// API then lists, changes and deletes like those it creates; the reservations are listed by GET
// /compute/v1/reservations. Its JSON form is the format of compute-fake's -catalog file.
type Catalog struct {
	// Regions are the region identifiers resources can be created in.
	Regions []Region `json:"regions"`
	// InstanceTypes are the instance types, each offered in some regions.
	InstanceTypes []InstanceType `json:"instance_types"`
	// PlacementOptions are the accepted placement_option values; "AUTO" is the default and always
	// accepted.
	PlacementOptions []string `json:"placement_options"`
	// Images are the public images (base-os, cloud-image, preconfigured). Snapshots taken through
	// the API join them in the image list as type "snapshot".
	Images []Image `json:"images"`
	// SSHKeys are the account's SSH keys, usable in any region.
	SSHKeys []SSHKey `json:"ssh_keys"`
	// Volumes are the account's volumes. Only a volume with status "available" can be attached;
	// one with status "locked" is refused with 02046.
	Volumes []Volume `json:"volumes"`
	// Reservations are the account's reservations, which an instance create or update names in
	// reservation_id.
	Reservations []Reservation `json:"reservations,omitempty"`
}

// Reservation is capacity reserved for one instance type in one region.
type Reservation struct {
	// ID is the identifier used as an instance's reservation_id.
	ID string `json:"id"`
	// FlavorName is the instance type the reservation is for.
	FlavorName string `json:"flavor_name"`
	// Region is where the reservation is.
	Region string `json:"region"`
	// Capacity is how many instances the reservation holds.
	Capacity int `json:"capacity"`
	// Metadata is the reservation's free-form metadata, shown as it is.
	Metadata map[string]json.RawMessage `json:"metadata,omitempty"`
}

// catalogTime is when the default catalogue's images, keys and volumes were made.
var catalogTime = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)

// Region is a region identifier with a display name.
type Region struct {
	// ID is the identifier used in requests, such as "NORD-NO-KRS-1".
	ID string `json:"id"`
	// Name is a display name.
	Name string `json:"name"`
}

// InstanceType is an instance type and where it runs.
type InstanceType struct {
	// ID is the identifier used as an instance's type, such as "vcpu-2_memory-4g".
	ID string `json:"id"`
	// VCPUs is the number of virtual CPUs; the fake only reports it.
	VCPUs int `json:"vcpus"`
	// MemoryGiB is the memory size; the fake only reports it.
	MemoryGiB int `json:"memory_gib"`
	// GPUs is the number of GPUs; the fake only reports it.
	GPUs int `json:"gpus,omitempty"`
	// Regions are the regions the type is offered in; elsewhere a create gets 02020.
	Regions []string `json:"regions"`
	// UnsupportedImages are image IDs that cannot run on this type (a create gets 02035). A snapshot
	// inherits the rule of the image its instance was built from.
	UnsupportedImages []string `json:"unsupported_images,omitempty"`
}

// Image is a public image of the catalogue.
type Image struct {
	// ID is the identifier, usable as a create request's image.
	ID string `json:"id"`
	// Name is the display name.
	Name string `json:"name"`
	// Type is one of ImageTypes except "snapshot".
	Type string `json:"type"`
	// Family is the operating system family, such as "ubuntu".
	Family string `json:"family"`
	// Slug is usable as a create request's image in place of ID; a cloud image's slug may carry a
	// version as "<slug>:<version>".
	Slug string `json:"slug"`
	// OSType is "linux" or "windows".
	OSType string `json:"os_type"`
	// Versions are a cloud image's versions, otherwise empty.
	Versions []string `json:"versions"`
	// Regions are where the image can be used.
	Regions []string `json:"regions"`
	// CreatedAt and UpdatedAt are shown in the image list.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is shown in the image list.
	UpdatedAt time.Time `json:"updated_at"`
}

// ImageTypes are the image types of the API, the values of GET /images?type=.
var ImageTypes = []string{"base-os", "cloud-image", "preconfigured", "snapshot"}

// SSHKey is an SSH key of the account.
type SSHKey struct {
	// ID is the identifier used in a create request's ssh_keys.
	ID string `json:"id"`
	// Name is a display name.
	Name string `json:"name"`
}

// Volume is a volume of the account. The API shows a catalogue volume as a created 10 GiB ssd
// volume.
type Volume struct {
	// ID is the identifier used in a create or update request's volumes.
	ID string `json:"id"`
	// Name is a display name.
	Name string `json:"name"`
	// Region is where the volume lives; attaching it to an instance elsewhere gets 02051.
	Region string `json:"region"`
	// Status is "available" (attachable), "in-use" (attached) or "locked" (never attachable). The
	// API shows the service's "created" for the first two (its volume statuses have no
	// "available") and the instances that hold the volume.
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

// The service's region identifiers (a moment in time: the service adds and retires regions).
var serviceRegions = []Region{
	{ID: "EUC-DE-MUC-1", Name: "Germany, Munich"},
	{ID: "EUW-GB-MNC-1", Name: "United Kingdom, Manchester"},
	{ID: "EUW-NL-AMS-1", Name: "Netherlands, Amsterdam"},
	{ID: "NA-CA-FTS-1", Name: "Canada, FTS-1"},
	{ID: "NA-CA-MNZ-1", Name: "Canada, MNZ-1"},
	{ID: "NA-CA-PRG-1", Name: "Canada, PRG-1"},
	{ID: "NORD-NO-KRS-1", Name: "Norway, Kristiansand"},
}

// DefaultCatalog is the catalogue an engine starts with unless it is given another: the service's
// seven regions; four instance types named as the service names them (three CPU types everywhere, a
// GPU type only in EUC-DE-MUC-1); images of the three public types (a cloud image "ubuntu" with
// versions 22.04 and 24.04, usable as "ubuntu:24.04"; a Windows image that vcpu-2_memory-4g cannot
// run; a CUDA image that only the GPU type can run); two SSH keys, five volumes (one locked) and a
// reservation of two vcpu-2_memory-4g instances in NORD-NO-KRS-1.
func DefaultCatalog() Catalog {
	var all []string
	for _, r := range serviceRegions {
		all = append(all, r.ID)
	}
	img := func(id, name, typ, family, slug, os string, versions []string) Image {
		return Image{ID: id, Name: name, Type: typ, Family: family, Slug: slug, OSType: os,
			Versions: nonNil(versions), Regions: slices.Clone(all), CreatedAt: catalogTime, UpdatedAt: catalogTime}
	}
	const gpu = "vcpu-16_memory-128g_nvidia-h100-1"
	return Catalog{
		Regions: slices.Clone(serviceRegions),
		InstanceTypes: []InstanceType{
			{ID: "vcpu-2_memory-4g", VCPUs: 2, MemoryGiB: 4, Regions: slices.Clone(all),
				UnsupportedImages: []string{"img-windows-2022", "img-cuda-12"}},
			{ID: "vcpu-4_memory-8g", VCPUs: 4, MemoryGiB: 8, Regions: slices.Clone(all),
				UnsupportedImages: []string{"img-cuda-12"}},
			{ID: "vcpu-8_memory-32g", VCPUs: 8, MemoryGiB: 32, Regions: slices.Clone(all),
				UnsupportedImages: []string{"img-cuda-12"}},
			{ID: gpu, VCPUs: 16, MemoryGiB: 128, GPUs: 1, Regions: []string{"EUC-DE-MUC-1"}},
		},
		PlacementOptions: []string{"AUTO", "SPREAD", "PACK"},
		Images: []Image{
			img("img-ubuntu-2404", "Ubuntu 24.04", "base-os", "ubuntu", "ubuntu-24.04", "linux", nil),
			img("img-debian-12", "Debian 12", "base-os", "debian", "debian-12", "linux", nil),
			img("img-windows-2022", "Windows Server 2022", "base-os", "windows", "windows-server-2022", "windows", nil),
			img("img-ubuntu-cloud", "Ubuntu", "cloud-image", "ubuntu", "ubuntu", "linux", []string{"22.04", "24.04"}),
			img("img-docker", "Docker on Ubuntu 24.04", "preconfigured", "ubuntu", "docker", "linux", nil),
			img("img-cuda-12", "Ubuntu 22.04 with NVIDIA CUDA 12", "preconfigured", "ubuntu", "ubuntu-cuda-12", "linux", nil),
		},
		SSHKeys: []SSHKey{{ID: "key-laptop", Name: "laptop"}, {ID: "key-ci", Name: "ci"}},
		Volumes: []Volume{
			{ID: "vol-data-1", Name: "data-1", Region: "NORD-NO-KRS-1", Status: VolumeAvailable},
			{ID: "vol-data-2", Name: "data-2", Region: "NORD-NO-KRS-1", Status: VolumeAvailable},
			{ID: "vol-data-3", Name: "data-3", Region: "EUC-DE-MUC-1", Status: VolumeAvailable},
			{ID: "vol-backup", Name: "backup", Region: "NA-CA-FTS-1", Status: VolumeAvailable},
			{ID: "vol-locked", Name: "locked", Region: "NORD-NO-KRS-1", Status: VolumeLocked},
		},
		Reservations: []Reservation{{ID: "res-krs-small", FlavorName: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1",
			Capacity: 2, Metadata: map[string]json.RawMessage{"term": json.RawMessage(`"12-month"`)}}},
	}
}

// Clone copies every slice, so that an engine never shares memory with its caller's Catalog.
func (c Catalog) Clone() Catalog {
	out := c
	out.Regions = slices.Clone(c.Regions)
	out.PlacementOptions = slices.Clone(c.PlacementOptions)
	out.SSHKeys = slices.Clone(c.SSHKeys)
	out.Volumes = slices.Clone(c.Volumes)
	out.Reservations = slices.Clone(c.Reservations)
	for i, r := range c.Reservations {
		out.Reservations[i].Metadata = maps.Clone(r.Metadata)
	}
	out.InstanceTypes = make([]InstanceType, len(c.InstanceTypes))
	for i, t := range c.InstanceTypes {
		t.Regions = slices.Clone(t.Regions)
		t.UnsupportedImages = slices.Clone(t.UnsupportedImages)
		out.InstanceTypes[i] = t
	}
	out.Images = make([]Image, len(c.Images))
	for i, im := range c.Images {
		im.Versions = slices.Clone(im.Versions)
		im.Regions = slices.Clone(im.Regions)
		out.Images[i] = im
	}
	return out
}

// ParseCatalog reads a catalogue in its JSON form (the format DefaultCatalog marshals to), refusing
// unknown keys and a catalogue that contradicts itself: no region, a duplicate id, a type, image or
// volume in a region the catalogue does not list, an image type other than base-os, cloud-image or
// preconfigured, a volume status other than available or locked, a negative count. An image
// without timestamps gets those of the default catalogue.
func ParseCatalog(b []byte) (Catalog, error) {
	var c Catalog
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		// The reason may quote the file's text (an unknown key): cut.
		return Catalog{}, errors.New("not a catalogue: " + cut(err.Error(), maxQuoted*2))
	}
	if dec.More() {
		return Catalog{}, errors.New("not a catalogue: more than one JSON value")
	}
	if len(c.Regions) == 0 {
		return Catalog{}, errors.New("the catalogue has no regions")
	}
	regions, seen := map[string]bool{}, map[string]bool{}
	// What is wrong with the catalogue: the first problem found, its IDs cut, is reported with how
	// many there are. Only the first is written: a file of 1 MiB can hold a great many problems,
	// each about one long ID.
	var first error
	problems := 0
	problem := func(format string, a ...any) {
		if problems++; problems > 1 {
			return
		}
		for i, v := range a {
			if s, ok := v.(string); ok {
				a[i] = cut(s, maxQuoted)
			}
		}
		first = fmt.Errorf(format, a...)
	}
	// entry checks an entry of a list: it has an id, listed once, and names only listed regions.
	entry := func(kind, id string, in ...string) {
		switch {
		case id == "":
			problem("a %s has no id", kind)
		case seen[kind+"\x00"+id]:
			problem("%s %q is listed twice", kind, id)
		}
		seen[kind+"\x00"+id] = true
		for _, r := range in {
			if !regions[r] {
				problem("%s %q names region %q, which the catalogue does not list", kind, id, r)
			}
		}
	}
	for _, r := range c.Regions {
		entry("region", r.ID)
		regions[r.ID] = true
	}
	for _, t := range c.InstanceTypes {
		entry("instance type", t.ID, t.Regions...)
		if t.VCPUs < 0 || t.MemoryGiB < 0 || t.GPUs < 0 {
			problem("instance type %q has a negative vcpus, memory_gib or gpus", t.ID)
		}
	}
	for i, im := range c.Images {
		entry("image", im.ID, im.Regions...)
		if !slices.Contains(ImageTypes[:3], im.Type) {
			problem("image %q has type %q; it must be base-os, cloud-image or preconfigured", im.ID, im.Type)
		}
		if im.CreatedAt.IsZero() {
			c.Images[i].CreatedAt = catalogTime
		}
		if im.UpdatedAt.IsZero() {
			c.Images[i].UpdatedAt = c.Images[i].CreatedAt
		}
		c.Images[i].Versions = nonNil(im.Versions)
	}
	for _, k := range c.SSHKeys {
		entry("ssh key", k.ID)
	}
	for _, v := range c.Volumes {
		entry("volume", v.ID, v.Region)
		if v.Status != VolumeAvailable && v.Status != VolumeLocked {
			problem("volume %q has status %q; it must be available or locked", v.ID, v.Status)
		}
	}
	for _, r := range c.Reservations {
		entry("reservation", r.ID, r.Region)
		if r.Capacity < 1 {
			problem("reservation %q has capacity %d; it must hold at least one instance", r.ID, r.Capacity)
		}
	}
	switch {
	case problems == 1:
		return Catalog{}, first
	case problems > 1:
		return Catalog{}, fmt.Errorf("%w (and %d more problems)", first, problems-1)
	}
	return c, nil
}

// maxQuoted bounds the text of the file a catalogue's problem quotes: an ID, a region, a type.
const maxQuoted = 64

// cut returns s's first n bytes at most, cut back to a character boundary, with "..." when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
