package main

import "runtime/debug"

// version is the release version, set by the release build (-ldflags "-X main.version=vX.Y.Z").
var version string

// buildVersion is the version the provider was built as: the release build's, the module version
// of a go install ...@vX.Y.Z, or "devel" for a build from a checkout.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
