// Command release is compute-go's release tool, run from the repository's root with go run ./release
// (RELEASING.md has the whole procedure; release/release.sh runs it):
//
//	go run ./release version                  print the version of CHANGELOG.md's head section
//	go run ./release bump vX.Y.Z [-date DATE] set Version, CHANGELOG.md's head, the siblings' requirements
//	go run ./release proxy -o DIR             write the working tree's modules as a file module proxy
//	go run ./release build -o DIR             cross-compile compute, compute-fake and terraform-provider-compute, with SHA256SUMS
//
// It is a module of its own, so that the SDK's go.mod keeps its four libraries.
package main

import (
	"errors"
	"fmt"
	"os"
)

const usage = `usage: go run ./release <command> [flags], from the repository's root
	version                  print the version of CHANGELOG.md's head section
	bump vX.Y.Z [-date DATE] set Version, CHANGELOG.md's head and the siblings' requirements to vX.Y.Z
	proxy -o DIR [-version V] write every module of the working tree at V as a file module proxy
	build -o DIR [-version V] [-targets os/arch,...]
	                         cross-compile compute, compute-fake and terraform-provider-compute with the version, and SHA256SUMS
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("no command")
	}
	if _, err := os.Stat("go.work"); err != nil {
		return fmt.Errorf("run it from the repository's root (no go.work here): %w", err)
	}
	switch args[0] {
	case "version":
		v, _, err := changelogVersion(".")
		if err != nil {
			return err
		}
		fmt.Println(v)
		return nil
	case "bump":
		return bumpCmd(args[1:])
	case "proxy":
		return proxyCmd(args[1:])
	case "build":
		return buildCmd(args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return nil
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
