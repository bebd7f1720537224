data "compute_images" "cloud-images" {
  filter = {
    type = "cloud-image"
  }
}

data "compute_images" "snapshots" {
  filter = {
    type   = "snapshot"
    region = "NORD-NO-KRS-1"
  }
}

data "compute_images" "preconfigured-images" {
  filter = {
    type = "preconfigured"
  }
}
