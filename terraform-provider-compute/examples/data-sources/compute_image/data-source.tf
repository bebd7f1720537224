data "compute_image" "ubuntu" {
  lookup = "ubuntu:22.04"
  region = "NORD-NO-KRS-1"
}

output "ubuntu_image_id" {
  value = data.compute_image.ubuntu.id
}
