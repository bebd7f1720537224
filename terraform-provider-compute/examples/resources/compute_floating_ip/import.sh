# By ID:
terraform import compute_floating_ip.example 18efeec8-94f0-4776-8ff2-5e9b49c74608

# By name, when exactly one floating IP has it:
terraform import compute_floating_ip.example name=example
