package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The version a binary tells: the release build's; a go install ...@vX.Y.Z's module version; for a
// build from a checkout, its VCS revision (Go derives a version from the nearest tag, v0.2.0 say,
// which that build is not).
func TestVersionOf(t *testing.T) {
	t.Parallel()
	checkout := func(version, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: version}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "a8ef8760f06b1169880b952a35129a8bb38b6520"},
			{Key: "vcs.modified", Value: modified}}}
	}
	for _, tc := range []struct {
		release string
		bi      *debug.BuildInfo
		want    string
	}{
		{"v0.3.0", checkout("v0.2.0", "false"), "v0.3.0"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, "v0.2.0"},
		{"", checkout("v0.2.0", "false"), "devel a8ef8760f06b"},
		{"", checkout("v0.2.0+dirty", "true"), "devel a8ef8760f06b (modified)"},
		{"", checkout("v0.2.1-0.20261129035254-a8ef8760f06b", "false"), "devel a8ef8760f06b"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"", nil, "devel"},
	} {
		assert.Equal(t, tc.want, versionOf(tc.release, tc.bi), "%+v", tc.bi)
	}
}

// compute --version prints the version, as compute version does.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run("--version")
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "compute "+cliVersion()+"\n", r.stdout)
}
