package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// unknownCommand matches cobra's error for a verb or a kind it does not know.
var unknownCommand = regexp.MustCompile(`^unknown command "([^"]*)" for "([^"]*)"`)

// didYouMean returns msg, with the commands whose names are close to a mistyped one when msg is
// cobra's "unknown command" error.
func didYouMean(root *cobra.Command, msg string) string {
	m := unknownCommand.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	cmd := root
	for _, name := range strings.Fields(m[2])[1:] {
		sub, _, err := cmd.Find([]string{name})
		if err != nil || sub == cmd {
			return msg
		}
		cmd = sub
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if suggestions := cmd.SuggestionsFor(m[1]); len(suggestions) > 0 {
		msg += "\n\nDid you mean this?\n    " + strings.Join(suggestions, "\n    ")
	}
	return msg
}

// noTokenFlag explains the refusal of --token.
func noTokenFlag(err error) error {
	if strings.Contains(err.Error(), "unknown flag: --token") && !strings.Contains(err.Error(), "--token-") {
		return usagef("%v: there is no --token flag, as a token on the command line shows in ps and in the shell's history; use --token-file, %s, or a context (compute context create)", err, compute.EnvToken)
	}
	return &usageError{msg: err.Error()}
}

// hints adds to err what the user can do about it in this command's flags: --force for an
// instance that termination protection keeps.
func hints(cmd *cobra.Command, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, compute.CodeTerminationProtected) && cmd.Flags().Lookup("force") != nil && !cmd.Flags().Changed("force") {
		return fmt.Errorf("%w\nhint: termination protection keeps it: pass --force to turn the protection off and delete it", err)
	}
	return err
}

// reasonInFlags rewrites the request fields a reason names ("give ssh_keys or password") into the
// command's flags ("give --ssh-key or --password-file").
func reasonInFlags(cmd *cobra.Command, reason string) string {
	for field, flag := range fieldFlags {
		if cmd.Flags().Lookup(flag) == nil || !strings.Contains(reason, field) {
			continue
		}
		reason = regexp.MustCompile(`\b`+regexp.QuoteMeta(field)+`\b`).ReplaceAllString(reason, "--"+flag)
	}
	return reason
}
