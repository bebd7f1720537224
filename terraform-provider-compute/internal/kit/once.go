package kit

import compute "github.com/compute-sdk/compute-go"

// onlyOwn are the CreateOnce options that adopt only what the call itself made, never a resource
// that had the name before it.
func onlyOwn() []compute.OnceOption { return []compute.OnceOption{compute.AdoptOnlyOwn()} }
