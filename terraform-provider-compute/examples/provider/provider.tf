terraform {
  required_providers {
    compute = {
      source = "compute-sdk/compute"
    }
  }
}

# endpoint and token default to COMPUTE_API_URL and COMPUTE_API_TOKEN.
provider "compute" {
  # rate      = 10                          # requests per second, all resources together
  # redis_url = "redis://127.0.0.1:6379/0"  # share the rate with every process on the token
}

locals {
  region = "NORD-NO-KRS-1"
}

resource "compute_ssh_key" "alice" {
  name       = "alice"
  public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn alice@example.com"
}

resource "compute_security_group" "allow-ssh" {
  name   = "allow-ssh"
  region = local.region
  rules = [
    {
      direction      = "ingress"
      protocol       = "tcp"
      port_range_min = 22
      port_range_max = 22
    },
  ]
}

resource "compute_floating_ip" "web" {
  name   = "web"
  region = local.region
}

resource "compute_instance" "web" {
  name   = "web"
  region = local.region
  image  = "ubuntu:22.04"
  type   = "vcpu-2_memory-4g"

  ssh_key_ids        = [compute_ssh_key.alice.id]
  security_group_ids = [compute_security_group.allow-ssh.id]
  floating_ip_id     = compute_floating_ip.web.id

  disk_size = 128

  metadata = {
    startup_script = <<-EOF
      #!/bin/bash
      set -eo pipefail
      echo "hello from $(hostname)"
    EOF
  }
}

output "connect" {
  value = "ssh ubuntu@${compute_instance.web.public_ip}"
}
