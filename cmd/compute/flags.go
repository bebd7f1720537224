package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// fieldFlags names the flag of each request field whose flag is not the field with dashes for
// underscores (disk_size is --disk-size; ssh_keys is --ssh-key).
var fieldFlags = map[string]string{
	"ssh_keys":                     "ssh-key",
	"security_groups":              "security-group",
	"volumes":                      "volume",
	"password":                     "password-file",
	"metadata.startup_script":      "startup-script-file",
	"metadata.user_data":           "user-data",
	"placement_option":             "placement",
	"reservation_id":               "reservation",
	"reuse_long_term_subscription": "reuse-subscription",
	"is_protected":                 "protected",
	"rules":                        "rule",
	"value":                        "public-key-file",
}

// flagError turns the SDK's *ValidationError, which names request fields in their JSON spelling,
// into a usage error that names the command's flags: "invalid --disk-size: must be at least 80".
// Nothing was sent. Any other error is returned as it is.
func flagError(cmd *cobra.Command, err error) error {
	var ve *compute.ValidationError
	var created *createdError
	if errors.As(err, &created) || !errors.As(err, &ve) {
		return err
	}
	problems := ve.Problems
	if len(problems) == 0 {
		problems = []compute.FieldError{{Field: ve.Field, Reason: ve.Reason}}
	}
	var lines []string
	for _, p := range problems {
		lines = append(lines, fmt.Sprintf("invalid %s: %s", flagFor(cmd, p.Field), reasonInFlags(cmd, p.Reason)))
	}
	return withLines(&usageError{msg: lines[0]}, lines[1:]...)
}

// flagFor names what a request field comes from in cmd: a flag (--disk-size, or "--rule
// (rules[1].port_range_min)" for a part of one), an ID argument (INSTANCE_ID), or the field itself.
func flagFor(cmd *cobra.Command, field string) string {
	head := field
	if i := strings.IndexByte(head, '['); i >= 0 {
		head = head[:i]
	}
	name, ok := fieldFlags[head]
	if !ok {
		top, _, _ := strings.Cut(head, ".")
		if name, ok = fieldFlags[top]; !ok {
			name = strings.ReplaceAll(top, "_", "-")
		}
	}
	if cmd.Flags().Lookup(name) != nil {
		if field == head {
			return "--" + name
		}
		return fmt.Sprintf("--%s (%s)", name, field)
	}
	if strings.HasSuffix(field, "_id") {
		return strings.ToUpper(field)
	}
	return field
}

// The bounds of the files the flags name, which README.md states: what each holds is far shorter,
// and a path given by mistake (a log, /dev/zero) is refused rather than read whole.
const (
	maxPasswordFile  = 4 << 10  // --password-file
	maxScriptFile    = 64 << 10 // --startup-script-file: the service's own bound
	maxUserDataFile  = 64 << 10 // each --user-data file
	maxPublicKeyFile = 16 << 10 // --public-key-file: an RSA key of 16384 bits is under 3 KiB
)

// readFlagFile reads the file a flag names, up to limit bytes and within ctx (--timeout); a failure
// is a usage error naming the flag.
func (a *app) readFlagFile(ctx context.Context, flag, path string, limit int64) (string, error) {
	b, err := readBounded(ctx, path, limit)
	if err != nil {
		return "", a.fileError(flag, err, "")
	}
	return string(b), nil
}

// changed returns a pointer to v when the flag was given, nil otherwise: the "keep" of an update.
func changed[T any](cmd *cobra.Command, flag string, v T) *T {
	if !cmd.Flags().Changed(flag) {
		return nil
	}
	return &v
}

// needOneOf refuses an update that changes nothing, before any request.
func needOneOf(cmd *cobra.Command, flags ...string) error {
	for _, f := range flags {
		if cmd.Flags().Changed(f) {
			return nil
		}
	}
	return usagef("nothing to change: give at least one of --%s", strings.Join(flags, ", --"))
}
