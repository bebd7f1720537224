//go:build !unix

package compute

import (
	"io/fs"
	"os"
)

// listUnrecorded is os.ReadDir where syscall.Open cannot open a directory: the listing is
// recorded, so a change of the top directory runs the tests again there.
func listUnrecorded(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
