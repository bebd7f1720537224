# By ID:
terraform import compute_snapshot.example 18efeec8-94f0-4776-8ff2-5e9b49c74608

# By name, when exactly one snapshot has it:
terraform import compute_snapshot.example name=example
