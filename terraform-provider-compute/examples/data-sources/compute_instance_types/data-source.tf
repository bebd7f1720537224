data "compute_instance_types" "krs" {
  region = "NORD-NO-KRS-1"
}

output "available_types" {
  value = data.compute_instance_types.krs.available
}
