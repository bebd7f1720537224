resource "compute_volume" "example" {
  name   = "example"
  region = "NORD-NO-KRS-1"
  size   = 50
  type   = "hdd"
}
