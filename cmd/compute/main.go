// Command compute manages the resources of the Compute Resource Management API from a shell or a
// script in any language, on top of the compute-go SDK: it never sends a create twice (a rerun
// after a lost response adopts what the first run made), paces its requests under the account's
// rate (shared by every process of the user on the machine through a file, or through Redis by
// processes on many machines when COMPUTE_REDIS_URL is set), waits for statuses,
// and ends with an exit code that tells failures apart.
//
// Usage:
//
//	compute <kind> <verb> [arguments] [flags]
//
// For example:
//
//	export COMPUTE_API_URL=https://api.example.com COMPUTE_API_TOKEN=...
//	compute instance create --name web-1 --type vcpu-2_memory-4g --region NORD-NO-KRS-1 \
//	    --image ubuntu-24.04 --ssh-key key-ci --wait
//	compute instance list -o json
//
// "compute --help" lists the kinds, "compute <kind> --help" their verbs, and README.md beside this
// file has the exit codes and a worked example.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	compute "github.com/compute-sdk/compute-go"
	"golang.org/x/term"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, a second one kills the process the default way.
	context.AfterFunc(ctx, stop)
	a := &app{
		stdout:          os.Stdout,
		stderr:          os.Stderr,
		getenv:          os.Getenv,
		stderrTTY:       isTerminal(os.Stderr),
		newClient:       compute.NewClient,
		newRedisLimiter: newRedisLimiter,
		newFileLimiter:  newFileLimiter,
	}
	code := a.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// isTerminal reports whether f is a terminal, where progress is shown: not any character device
// (/dev/null is one), but one that answers as a terminal.
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}
