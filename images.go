package compute

import (
	"context"
	"iter"
	"time"
)

// ImageType is the kind of an image. An unknown value decodes and re-encodes unchanged.
type ImageType string

// Image types of the contract.
const (
	ImageTypeBaseOS        ImageType = "base-os"       // a public image of a basic operating system
	ImageTypeCloudImage    ImageType = "cloud-image"   // a public cloud image, maybe in several versions
	ImageTypePreconfigured ImageType = "preconfigured" // a public image with applications installed
	ImageTypeSnapshot      ImageType = "snapshot"      // an instance backup, visible only to its account
)

// Image is what an instance boots from. Not every image runs on every instance type: the service
// refuses an incompatible pairing with [CodeImageIncompatible] (02035).
type Image struct {
	ID     string    `json:"id"`     // identifies the image
	Name   string    `json:"name"`   // display name
	Type   ImageType `json:"type"`   // kind of image
	Family string    `json:"family"` // operating system family
	// Slug is the image's stable short name, usable in place of the ID ("<slug>:<version>").
	Slug      string    `json:"slug"`
	OSType    string    `json:"os_type"`    // operating system kind
	Versions  []string  `json:"versions"`   // versions of a cloud image; empty for other types
	Regions   []string  `json:"regions"`    // regions where it can be used
	CreatedAt time.Time `json:"created_at"` // when it was created
	UpdatedAt time.Time `json:"updated_at"` // when it last changed
}

// ImageListOptions selects one page of images, optionally of one type.
type ImageListOptions struct {
	// Type, when set, lists only images of that type; any value is sent as it is.
	Type ImageType `url:"type,omitempty"`
	// ListOptions selects the page.
	ListOptions
}

// Validate checks the page options; a nil *ImageListOptions is valid.
func (o *ImageListOptions) Validate() error {
	if o == nil {
		return nil
	}
	return o.ListOptions.Validate()
}

// page is the page asked for.
func (o *ImageListOptions) page() int {
	if o == nil {
		return 1
	}
	return o.ListOptions.page()
}

// pageSize bounds the page.
func (o *ImageListOptions) pageSize() int {
	if o == nil {
		return MaxPerPage
	}
	return o.ListOptions.pageSize()
}

// imagesPage is the response of the image list.
type imagesPage struct {
	Images []Image `json:"images"`
	pageCounts
}

func (p *imagesPage) parts() (*[]Image, *pageCounts) { return &p.Images, &p.pageCounts }

// List reads one page of images: GET /compute/v1/images. A nil opts lists all types with the
// service's default page.
func (s *ImagesService) List(ctx context.Context, opts *ImageListOptions) (*Page[Image], error) {
	return list(ctx, s.c, opListImages, nil, opts, &imagesPage{})
}

// All iterates over every image (of opts.Type, when set), fetching GET /compute/v1/images pages as
// the loop reaches them.
func (s *ImagesService) All(ctx context.Context, opts *ImageListOptions) iter.Seq2[Image, error] {
	var base ImageListOptions
	if opts != nil {
		base = *opts
	}
	return walk(ctx, s.c, &base.ListOptions, func(ctx context.Context, page *ListOptions) (*Page[Image], error) {
		o := base
		o.ListOptions = *page
		return s.List(ctx, &o)
	}, false)
}
