package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A -catalog file is read up to a bound: one past it is refused with the reason, however valid, and
// one just under it is read.
func TestCatalogFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	valid := `{"regions":[{"id":"LAB-1","name":"Lab"}]}`
	write := func(name string, size int) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, []byte(valid+strings.Repeat(" ", size-len(valid))), 0o600))
		return f
	}

	f := write("big.json", maxCatalogBytes+1)
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, run(context.Background(), []string{"-catalog", f, "-print-catalog"}, noEnv, &stdout, &stderr))
	require.Contains(t, stderr.String(), "-catalog "+f+": larger than 1 MiB")
	require.Empty(t, stdout.String())

	f = write("fits.json", maxCatalogBytes)
	stderr.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"-catalog", f, "-print-catalog"}, noEnv, &stdout, &stderr), stderr.String())
	require.Contains(t, stdout.String(), "LAB-1")
}
