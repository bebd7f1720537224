package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// The exit codes, stable so that scripts can branch on them. README.md has them as a table.
const (
	exitOK = 0
	// exitOther is any other failure: a 5xx after the retries, a network error, a 401 or 403,
	// a wait that timed out or met a failure status.
	exitOther = 1
	// exitUsage is input refused before any request was sent: a flag, an argument, the
	// configuration, or a value the SDK's own checks refuse. Nothing reached the service.
	exitUsage = 2
	// exitNotFound is a 404: the resource does not exist.
	exitNotFound = 3
	// exitConflict is a refusal because of a resource's state (in use, protected, not active yet),
	// or a name that several resources share so that a create cannot adopt one.
	exitConflict = 4
	// exitQuota is a refusal because an account quota is full.
	exitQuota = 5
	// exitRateLimited is a 429 that the retries did not get past.
	exitRateLimited = 6
	// exitOutcomeUnknown is a write whose response was lost: it may have taken effect. Look the
	// resource up before trying again (a rerun of create does that).
	exitOutcomeUnknown = 7
	// exitInvalid is a request the service refused as invalid (400 or 422 that is not a state or
	// quota refusal): an unknown image, a type not offered in the region, ...
	exitInvalid = 8
	// exitNotCreated is a create whose response was lost and after which nothing showed: nothing was
	// made, so running the command again is safe.
	exitNotCreated = 9
	// exitCreatedWaitFailed is a create that made the resource, and a --wait after it that failed
	// (a failure status, --timeout, an interruption, an error): the resource exists and is billed.
	// -o id and -o name printed it already; other formats print it as the create returned it.
	exitCreatedWaitFailed = 10
	// exitAmbiguous is a name given where an ID goes that several resources share: the message
	// lists their IDs.
	exitAmbiguous = 11
	// exitInterrupted is a run stopped by SIGINT or SIGTERM.
	exitInterrupted = 130
)

// usageError is input refused before any request: it exits with exitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCode maps an error to the exit code of the table above. The order matters where an error
// matches several sentinels: an outcome unknown wraps the status that caused it, and quota and
// state refusals are also 400s.
func exitCode(err error) int {
	var u *usageError
	var created *createdError
	var ambiguous *ambiguousError
	var reported *reportedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &reported):
		return reported.code
	case errors.As(err, &created):
		return exitCreatedWaitFailed
	case errors.As(err, &ambiguous):
		return exitAmbiguous
	case errors.As(err, &u), errors.Is(err, compute.ErrInvalidRequest):
		return exitUsage
	case errors.Is(err, compute.ErrOutcomeUnknown):
		return exitOutcomeUnknown
	case errors.Is(err, compute.ErrNotCreated):
		return exitNotCreated
	case errors.Is(err, compute.ErrRateLimited):
		return exitRateLimited
	case errors.Is(err, compute.ErrQuotaExceeded):
		return exitQuota
	case errors.Is(err, compute.ErrConflict):
		return exitConflict
	case errors.Is(err, compute.ErrNotFound):
		return exitNotFound
	case errors.Is(err, compute.ErrBadRequest):
		return exitInvalid
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitOther
}

// exitCodeTable is the table of exit codes that "compute help exit-codes" prints and README.md
// repeats (a test keeps the two equal).
var exitCodeTable = []struct {
	code          int
	name, meaning string
}{
	{exitOK, "ok", "The command did what it was asked."},
	{exitOther, "other", "Any other failure: a server error after the retries, a network error, a 401 or 403, a wait that timed out or saw a failure status (error, deleting)."},
	{exitUsage, "usage", "Input refused before any request: a flag, an argument, the configuration (no token, no URL), or a value the SDK refuses (a disk under 80 GiB). Nothing was sent."},
	{exitNotFound, "not found", "The service answered 404: no such resource."},
	{exitConflict, "conflict", "The resource's state refused it (in use, termination protected, not active yet), or several resources share the name a create would adopt."},
	{exitQuota, "quota", "An account quota is full."},
	{exitRateLimited, "rate limited", "The service still answered 429 after the retries."},
	{exitOutcomeUnknown, "outcome unknown", "A write's response was lost: it may have taken effect. Look before trying again; a create run again adopts what it made."},
	{exitInvalid, "validation", "The service refused the request as invalid (400 or 422): an unknown image, a type not offered in the region, ..."},
	{exitNotCreated, "not created", "A create was lost each time it was sent (it is sent again twice when nothing with its name shows) and nothing with its name showed afterwards: nothing was made, running it again is safe."},
	{exitCreatedWaitFailed, "created not ready", "A create made the resource, but the --wait after it failed (a failure status, --timeout, an interruption). It exists and is billed: -o id and -o name printed it at once, other formats print it as the create returned it."},
	{exitAmbiguous, "ambiguous name", "A name given where an ID goes is shared by several resources, however many; the message lists their IDs (past 1,000 it says so instead). Nothing was changed."},
	{exitInterrupted, "interrupted", "SIGINT or SIGTERM stopped the command (stopping a write already sent exits 7: it may have taken effect)."},
}

// exitCodesTopic is "compute help exit-codes".
func exitCodesTopic() *cobra.Command {
	var b strings.Builder
	b.WriteString("compute ends with one of these exit codes, so that a script can branch on the failure:\n\n")
	for _, e := range exitCodeTable {
		fmt.Fprintf(&b, "  %3d  %-16s %s\n", e.code, e.name, e.meaning)
	}
	// A help topic has no usage section to show its example in, so the text carries it.
	example := "  compute instance get ins-000001 >/dev/null 2>&1; [ $? -eq 3 ] && echo gone"
	b.WriteString("\nExamples:\n" + example)
	return &cobra.Command{
		Use:     "exit-codes",
		Short:   "The exit codes and what each means",
		Long:    b.String(),
		Example: example,
	}
}
