package main

import (
	"runtime"
	"runtime/debug"
	"strings"

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
// go install ...@vX.Y.Z, or "devel" for a build from a checkout, with its VCS revision when Go
// recorded it.
func cliVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf is cliVersion given the release build's version and the binary's build information. A
// build from a checkout carries its VCS revision, which it names: the version Go derives for it from
// the nearest tag (v0.2.0, v0.2.1-0.2026...) is not a release it is.
func versionOf(release string, bi *debug.BuildInfo) string {
	if release != "" {
		return release
	}
	if bi == nil {
		return "devel"
	}
	var revision, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case revision != "" && modified == "true":
		return "devel " + revision[:min(len(revision), 12)] + " (modified)"
	case revision != "":
		return "devel " + revision[:min(len(revision), 12)]
	case bi.Main.Version != "" && bi.Main.Version != "(devel)":
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

// userAgentVersion is cliVersion as one token of a User-Agent: "devel-a8ef8760f06b+dirty".
func userAgentVersion() string {
	return strings.NewReplacer(" (modified)", "+dirty", " ", "-").Replace(cliVersion())
}
