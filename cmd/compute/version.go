package main

import (
	"runtime"
	"runtime/debug"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// versionInfo is what "compute version" prints.
type versionInfo struct {
	CLI string `json:"cli"`
	SDK string `json:"sdk"`
	Go  string `json:"go"`
}

// version is the release version, set by the release build (-ldflags "-X main.version=vX.Y.Z").
var version string

// cliVersion is the version the binary was built as: the release build's, the module version of a
// go install ...@vX.Y.Z, or "devel" for a build from a checkout.
func cliVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

var versionView = view[versionInfo]{
	headers: []string{"CLI", "SDK", "GO"},
	row:     func(v *versionInfo) []string { return []string{v.CLI, v.SDK, v.Go} },
	name:    func(v *versionInfo) string { return v.CLI },
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the versions of the command, of the SDK it is built on, and of Go",
		Example: "  compute version\n  compute version -o json",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			a.running = true
			return printItem(a, versionView, &versionInfo{CLI: cliVersion(), SDK: compute.Version, Go: runtime.Version()})
		},
	}
}
