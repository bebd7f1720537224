data "compute_quotas" "account" {}

output "instances_left" {
  value = data.compute_quotas.account.by_key["instances"]
}
