package main

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a terminal, a wait shows each status as it changes with the time waited, then the end; the
// result still goes to stdout alone. Transitions take 5 s of synctest's fake time.
func TestProgressOnATerminal(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now),
			computetest.WithDurations(computetest.UniformDurations(5*time.Second)))
		h.tty = true
		r := h.run(append(createWeb2, "--wait", "-o", "id")...)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "ins-000001\n", r.stdout)
		assert.Regexp(t, regexp.MustCompile(`^instance ins-000001: creating \(([5-9]|1[0-9])s\)\n`+
			`instance ins-000001: active \(([5-9]|1[0-9])s\)\n`+
			`instance ins-000001 is active after ([5-9]|1[0-9])s\n$`), screen(r.stderr))
		assert.Contains(t, r.stderr, "instance ins-000001: creating (0s)\r\x1b[Kinstance ins-000001: creating (1s)\r\x1b[Kinstance ins-000001: creating (2s)",
			"the line of a status shows the time waited every second")

		r = h.run("instance", "stop", "ins-000001", "--wait", "-o", "id")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Regexp(t, `^instance ins-000001: stopping \(\d+s\)\ninstance ins-000001: stopped \(\d+s\)\ninstance ins-000001 is stopped after \d+s\n$`, screen(r.stderr))

		r = h.run("instance", "delete", "ins-000001", "--wait")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Empty(t, r.stdout)
		assert.Regexp(t, `^instance ins-000001: deleting \(\d+s\)\ninstance ins-000001 is deleted after \d+s\n$`, screen(r.stderr))

		r = h.run("volume", "delete", "vol-data-1")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "volume vol-data-1: delete requested\n", r.stderr, "a command with no result says what it did")
	})
}

// Off a terminal the same wait writes nothing on stderr.
func TestNoProgressOffATerminal(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork(), computetest.WithClock(time.Now),
			computetest.WithDurations(computetest.UniformDurations(5*time.Second)))
		r := h.run(append(createWeb2, "--wait", "-o", "id")...)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "ins-000001\n", r.stdout)
		assert.Empty(t, r.stderr)
		r = h.run("instance", "stop", "ins-000001")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Empty(t, r.stdout+r.stderr)
	})
}

// screen is what a terminal shows of out: each line as its last rewrite (after "\r\x1b[K") left it.
func screen(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if j := strings.LastIndex(l, "\r\x1b[K"); j >= 0 {
			lines[i] = l[j+len("\r\x1b[K"):]
		}
	}
	return strings.Join(lines, "\n")
}
