resource "compute_ssh_key" "alice" {
  name       = "alice"
  public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn alice@example.com"
}

resource "compute_instance" "example" {
  name   = "example"
  region = "NORD-NO-KRS-1"

  image = "ubuntu:22.04"
  type  = "vcpu-2_memory-4g"

  ssh_key_ids = [compute_ssh_key.alice.id]

  timeouts = {
    create = "10m"
    delete = "10m"
  }
}
