resource "compute_instance" "target" {
  name        = "target"
  region      = "NORD-NO-KRS-1"
  image       = "ubuntu:22.04"
  type        = "vcpu-2_memory-4g"
  ssh_key_ids = ["key-ci"]
}

resource "compute_snapshot" "example" {
  name               = "example"
  source_instance_id = compute_instance.target.id

  retain_on_delete = false # true keeps the snapshot when the resource is destroyed
}

# A copy of the snapshot in another region.
resource "compute_snapshot" "copy" {
  name               = "example-muc"
  source_snapshot_id = compute_snapshot.example.id
  region             = "EUC-DE-MUC-1"
}
