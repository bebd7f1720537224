package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// operationRow is one row of the SDK's operations table (docs/operations.md, once in its README).
type operationRow struct {
	n            int
	method, path string
	commands     []string // the CLI column's code spans
}

func operationRows(t *testing.T) []operationRow {
	t.Helper()
	readme, err := os.ReadFile("../../docs/operations.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| (\\d+) \\| ([A-Z]+) \\| `([^`]+)` \\| (.+) \\|$")
	span := regexp.MustCompile("`(compute [^`]+)`")
	var rows []operationRow
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		n, _ := strconv.Atoi(m[1])
		cells := strings.Split(m[4], " | ")
		r := operationRow{n: n, method: m[2], path: m[3]}
		if len(cells) == 2 {
			for _, s := range span.FindAllStringSubmatch(cells[1], -1) {
				r.commands = append(r.commands, s[1])
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// allCases are the command cases of every kind, whose requests the tests check.
func allCases(t *testing.T) []cmdCase {
	var out []cmdCase
	for _, cases := range [][]cmdCase{instanceCases(t), securityGroupCases(t), floatingIPCases(t), volumeCases(t),
		filesystemCases(t), sshKeyCases(t), snapshotCases(t), readOnlyCases(t)} {
		out = append(out, cases...)
	}
	return out
}

// Every operation of the README's table names, in its CLI column, commands that exist with the
// flags named; a tested run of each sends the row's operation; and every command that talks to the
// service is named by some row.
func TestReadmeOperationsTableNamesACommandForEveryOperation(t *testing.T) {
	t.Parallel()
	rows := operationRows(t)
	require.Len(t, rows, 45, "the README's operations table has a row per operation")
	root := (&app{}).rootCmd()
	cases := allCases(t)
	named := map[string]bool{}
	for _, row := range rows {
		if !assert.NotEmpty(t, row.commands, "operation %d (%s %s) has no command in the CLI column", row.n, row.method, row.path) {
			continue
		}
		marked := regexp.QuoteMeta(regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(row.path, "ID"))
		op := regexp.MustCompile("^" + row.method + " " + strings.ReplaceAll(marked, "ID", `[^/?]+`) + `(\?|$)`)
		for _, span := range row.commands {
			var words, flags []string
			for _, f := range strings.Fields(span)[1:] {
				if strings.HasPrefix(f, "--") {
					flags = append(flags, f)
				} else {
					words = append(words, f)
				}
			}
			cmd, rest, err := root.Find(words)
			if !assert.NoError(t, err, span) || !assert.Empty(t, rest, "%s names a command that does not exist", span) ||
				!assert.Equal(t, span[:len("compute ")+len(strings.Join(words, " "))], cmd.CommandPath(), span) {
				continue
			}
			named[cmd.CommandPath()] = true
			for _, f := range flags {
				assert.NotNil(t, cmd.Flags().Lookup(strings.TrimPrefix(f, "--")), "%s: %s has no flag %s", span, cmd.CommandPath(), f)
			}
			sent := false
			for _, c := range cases {
				if slices.Equal(c.args[:min(len(words), len(c.args))], words) && hasAll(c.args, flags) &&
					slices.ContainsFunc(c.reqs, op.MatchString) {
					sent = true
				}
			}
			assert.True(t, sent, "row %d: no tested run of %s sends %s %s", row.n, span, row.method, row.path)
		}
	}
	for _, c := range allCommands(root) {
		if isServiceCommand(c) {
			path := c.CommandPath()
			if c.Name() == "describe" {
				// describe sends what get sends; it prints for a person.
				path = strings.TrimSuffix(path, "describe") + "get"
			}
			assert.True(t, named[path], "%s is named by no row of the README's operations table", c.CommandPath())
		}
	}
}

// isServiceCommand reports a command that sends requests: a verb of a resource kind.
func isServiceCommand(c *cobra.Command) bool {
	if !c.Runnable() || c.HasSubCommands() || !c.HasParent() || !c.Parent().HasParent() {
		return false
	}
	switch c.Parent().Name() {
	case "completion", "help", "context":
		return false
	}
	return true
}

func hasAll(args, flags []string) bool {
	for _, f := range flags {
		if !slices.Contains(args, f) {
			return false
		}
	}
	return true
}

// The exit codes table of README.md is the one the command prints (compute help exit-codes).
func TestReadmeExitCodes(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	var rows []string
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| ([a-z ]+) \| (.+) \|$`).FindAllStringSubmatch(string(readme), -1) {
		rows = append(rows, m[1]+" "+m[2]+": "+m[3])
	}
	var want []string
	for _, e := range exitCodeTable {
		want = append(want, strconv.Itoa(e.code)+" "+e.name+": "+e.meaning)
	}
	assert.Equal(t, want, rows)
}

// The README's worked example is what e2e.sh runs: each of its compute command lines is in the
// script, word for word.
func TestReadmeWorkedExampleIsRunByE2E(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	script, err := os.ReadFile("e2e.sh")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "## A worked example")
	require.True(t, ok)
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")
	var checked int
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		// Starting the fake, waiting for it, pointing at it and stopping it are the script's own
		// (e2e.sh also runs the whole block as a script, and once with its fake's port taken).
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "go build ") ||
			strings.HasPrefix(line, "/tmp/compute-fake ") || strings.HasPrefix(line, "fake=") ||
			strings.HasPrefix(line, "for _ in ") || strings.HasPrefix(line, "grep -q ") ||
			strings.HasPrefix(line, "kill ") || strings.HasPrefix(line, "export ") ||
			line == "set -eu" || strings.HasPrefix(line, "url=") || strings.HasPrefix(line, `[ -n "$url" ]`) {
			continue
		}
		checked++
		assert.Contains(t, string(script), line, "e2e.sh runs the README's line")
	}
	assert.Greater(t, checked, 8)
	assert.Contains(t, string(script), `sed -n '/^## A worked example/,/^`+"```"+`$/p' "$here/README.md"`, "e2e.sh runs the block whole")
}
