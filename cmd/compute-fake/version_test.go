package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionFlag(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"", "compute-fake devel\n"},
		{"v1.2.3", "compute-fake v1.2.3\n"},
	} {
		old := version
		version = tc.set
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"-version"}, func(string) string { return "" }, &stdout, &stderr)
		version = old
		require.Equal(t, 0, code, stderr.String())
		require.Equal(t, tc.want, stdout.String())
	}
}
