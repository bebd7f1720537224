//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A -catalog that names a pipe (or a device) is read no further than one byte past the bound: the
// writer, which would send 8 MiB, is cut off after about a pipe's buffer more.
func TestCatalogFromAPipeIsReadUpToTheBound(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	const offered = 8 << 20
	written := make(chan int, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			written <- -1
			return
		}
		defer w.Close()
		chunk := make([]byte, 64<<10)
		for i := range chunk {
			chunk[i] = ' '
		}
		n := 0
		for n < offered {
			m, err := w.Write(chunk)
			n += m
			if err != nil { // the reader closed its end: EPIPE
				break
			}
		}
		written <- n
	}()
	_, err := readCatalog(fifo)
	require.Error(t, err)
	require.Contains(t, err.Error(), "larger than 1 MiB")
	n := <-written
	require.Positive(t, n)
	require.Less(t, n, maxCatalogBytes+(2<<20), "the reader stopped one byte past the bound and closed the pipe")
}
