# By ID:
terraform import compute_filesystem.example 18efeec8-94f0-4776-8ff2-5e9b49c74608

# By name, when exactly one filesystem has it:
terraform import compute_filesystem.example name=example
