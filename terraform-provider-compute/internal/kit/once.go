package kit

import compute "github.com/compute-sdk/compute-go"

// onlyOwn are the CreateOnce options that adopt only what the call itself made.
func onlyOwn() []compute.OnceOption { return nil }
