package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allCommands walks the command tree.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// Every command has a one-line summary and an example, and its --help shows them (exit 0, on
// stdout).
func TestEveryCommandHasHelpWithAnExample(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	root := (&app{}).rootCmd()
	cmds := allCommands(root)
	require.Greater(t, len(cmds), 70)
	for _, c := range cmds {
		path := strings.Fields(c.CommandPath())[1:]
		assert.NotEmpty(t, c.Short, "%s has a summary", c.CommandPath())
		assert.NotEmpty(t, c.Example, "%s has an example", c.CommandPath())
		r := h.run(append(path, "--help")...)
		assert.Equal(t, exitOK, r.code, "%s --help: %s", c.CommandPath(), r.stderr)
		assert.Contains(t, r.stdout, "Examples:", c.CommandPath())
		assert.Contains(t, r.stdout, c.Example, c.CommandPath())
	}
	assert.Empty(t, h.requests(), "help sends nothing")
}

func TestHelpAndTopics(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run()
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "Available Commands:")
	for _, kind := range []string{"instance", "security-group", "floating-ip", "volume", "filesystem", "ssh-key",
		"snapshot", "image", "quota", "reservation", "availability", "version", "completion"} {
		assert.Contains(t, r.stdout, "\n  "+kind+" ", "compute lists %s", kind)
	}

	r = h.run("instance")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "compute instance [command]")

	r = h.run("help", "exit-codes")
	assert.Equal(t, exitOK, r.code)
	for _, e := range exitCodeTable {
		assert.Contains(t, r.stdout, e.name)
	}
}

// There is no --token: a token on the command line would show in ps and in the shell's history.
func TestNoTokenFlag(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run("ssh-key", "list", "--token", "abc")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "unknown flag: --token")
	for _, c := range allCommands((&app{}).rootCmd()) {
		assert.Nil(t, c.Flags().Lookup("token"), c.CommandPath())
		assert.Nil(t, c.Flags().Lookup("password"), c.CommandPath())
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := h.run("completion", shell)
		assert.Equal(t, exitOK, r.code, shell)
		assert.Contains(t, r.stdout, "compute", shell)
	}
	r := h.run("__complete", "instance", "create", "--region", "")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, compute.RegionNORDNOKRS1+"\n")
	r = h.run("__complete", "instance", "")
	assert.Contains(t, r.stdout, "create\t")
	assert.Contains(t, r.stdout, "attach-volume\t")
	r = h.run("__complete", "instance", "list", "-o", "")
	assert.Contains(t, r.stdout, "yaml\n")
	assert.Empty(t, h.requests())
}

func TestVersion(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	r := h.run("version", "-o", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var v map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	assert.Equal(t, map[string]string{"cli": "devel", "sdk": compute.Version, "go": runtime.Version()}, v)
	r = h.run("version")
	assert.Contains(t, r.stdout, compute.Version)
	h.env = map[string]string{}
	assert.Equal(t, exitOK, h.run("version").code, "version needs no configuration")
}
