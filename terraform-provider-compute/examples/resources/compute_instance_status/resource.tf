resource "compute_instance" "example" {
  name     = "example"
  region   = "NORD-NO-KRS-1"
  image    = "ubuntu:22.04"
  type     = "vcpu-2_memory-4g"
  password = "Correct-Horse-Battery-9" # write-only: never stored in the state
}

resource "compute_instance_status" "example" {
  instance_id = compute_instance.example.id
  status      = "stopped"
}
