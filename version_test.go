package compute

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// changelogHead returns the first "## " heading of CHANGELOG.md and the lines of its section.
func changelogHead(t *testing.T) (heading string, section []string) {
	t.Helper()
	b, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			if heading != "" {
				break
			}
			heading = line
			continue
		}
		if heading != "" {
			section = append(section, line)
		}
	}
	require.NotEmpty(t, heading, "CHANGELOG.md has no \"## \" heading")
	return heading, section
}

// headingVersion is the version a CHANGELOG heading names: "## Unreleased (v0.2.0)" for the next
// release, or "## v0.2.0 (2026-11-28)" once released.
var headingVersion = regexp.MustCompile(`^## (?:Unreleased \((v\d+\.\d+\.\d+)\)|(v\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\))$`)

// TestVersionIsTheChangelogsHead holds Version to the version of CHANGELOG.md's head section, the
// release under way or the last one, so that the User-Agent and the CLI tell the version honestly.
func TestVersionIsTheChangelogsHead(t *testing.T) {
	t.Parallel()
	heading, _ := changelogHead(t)
	m := headingVersion.FindStringSubmatch(heading)
	require.NotNil(t, m, "CHANGELOG.md's head %q is neither \"## Unreleased (vX.Y.Z)\" nor \"## vX.Y.Z (YYYY-MM-DD)\"", heading)
	require.Equal(t, m[1]+m[2], "v"+Version, "Version and CHANGELOG.md's head disagree")
}
