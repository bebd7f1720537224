package image_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// TestAccImages lists the images of a type, in a region, as the official provider's examples ask.
func TestAccImages(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: acctest.Provider(srv) + `
data "compute_images" "cloud-images" {
  filter = {
    type = "cloud-image"
  }
}

data "compute_images" "base" {
  filter = {
    type   = "base-os"
    region = "NORD-NO-KRS-1"
  }
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.compute_images.cloud-images", tfjsonpath.New("images"), knownvalue.ListSizeExact(1)),
				statecheck.ExpectKnownValue("data.compute_images.cloud-images", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("slug"), knownvalue.StringExact("ubuntu")),
				statecheck.ExpectKnownValue("data.compute_images.cloud-images", tfjsonpath.New("images").AtSliceIndex(0).AtMapKey("versions"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("22.04"), knownvalue.StringExact("24.04")})),
				statecheck.ExpectKnownValue("data.compute_images.base", tfjsonpath.New("images"), knownvalue.ListSizeExact(3)),
			},
		}},
	})
}

// TestAccImage finds one image by ID, slug, slug and version, or name, and refuses a lookup that
// finds none.
func TestAccImage(t *testing.T) {
	srv := acctest.Server(t)
	acctest.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: acctest.Provider(srv) + `
data "compute_image" "slug" {
  lookup = "ubuntu-24.04"
}
data "compute_image" "versioned" {
  lookup = "ubuntu:22.04"
  region = "NORD-NO-KRS-1"
}
data "compute_image" "id" {
  lookup = "img-debian-12"
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.compute_image.slug", tfjsonpath.New("id"), knownvalue.StringExact("img-ubuntu-2404")),
					statecheck.ExpectKnownValue("data.compute_image.versioned", tfjsonpath.New("id"), knownvalue.StringExact("img-ubuntu-cloud")),
					statecheck.ExpectKnownValue("data.compute_image.id", tfjsonpath.New("slug"), knownvalue.StringExact("debian-12")),
				},
			},
			{
				Config:      acctest.Provider(srv) + `data "compute_image" "none" { lookup = "plan9" }`,
				ExpectError: regexp.MustCompile(`No image has the ID, slug or name "plan9"`),
			},
		},
	})
}
