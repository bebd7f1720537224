package main

import (
	"errors"
	"io"
	"os"

	"github.com/compute-sdk/compute-go/internal/fake"
)

// maxCatalogBytes bounds a -catalog file: far more than any catalogue needs, so that a wrong path (a
// log, a device) fails at once instead of filling the memory.
const maxCatalogBytes = 1 << 20

// readCatalog reads and checks the catalogue file at path, refusing one larger than maxCatalogBytes.
func readCatalog(path string) (fake.Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return fake.Catalog{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCatalogBytes+1))
	switch {
	case err != nil:
		return fake.Catalog{}, err
	case len(b) > maxCatalogBytes:
		return fake.Catalog{}, errors.New("larger than 1 MiB, more than any catalogue needs")
	}
	return fake.ParseCatalog(b)
}
