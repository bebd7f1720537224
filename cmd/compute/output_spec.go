package main

import (
	"slices"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
)

// The -o values that are not a format of their own: they shape the table, or print a template.
const (
	noHeaderOption = "noheader"
	columnsOption  = "columns="
	formatOption   = "format="
)

// parseOutput reads the -o flags (repeatable: -o noheader -o columns=id,name) into a.output (one of
// outputFormats, or "format"), a.noHeader, a.columns and a.template. Nothing has been sent yet.
func (a *app) parseOutput() error {
	a.output, a.noHeader, a.columns, a.template = "", false, nil, nil
	set := func(f string) error {
		if a.output != "" && a.output != f {
			return usagef("invalid --output: -o %s and -o %s cannot be used together", a.output, f)
		}
		a.output = f
		return nil
	}
	for _, o := range a.outputs {
		var err error
		// The names are read in any case (-o JSON, -o Columns=ID); a template is kept as written.
		lower := strings.ToLower(o)
		switch {
		case lower == noHeaderOption:
			a.noHeader = true
		case strings.HasPrefix(lower, columnsOption):
			a.columns = nil
			for _, c := range strings.Split(o[len(columnsOption):], ",") {
				if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
					a.columns = append(a.columns, c)
				}
			}
			if len(a.columns) == 0 {
				return usagef("invalid --output %q: name the columns, such as -o columns=id,name,status", o)
			}
		case strings.HasPrefix(lower, formatOption):
			text := o[len(formatOption):]
			if a.template, err = template.New("format").Option("missingkey=error").Parse(text); err != nil {
				return usagef("invalid --output format: %v", err)
			}
			err = set("format")
		case slices.Contains(outputFormats, lower):
			err = set(lower)
		default:
			return usagef("invalid --output %q: want %s, %s, %s or %s", o, strings.Join(outputFormats, ", "),
				noHeaderOption, columnsOption+"ID,NAME,...", formatOption+"'{{.ID}} {{.Name}}'")
		}
		if err != nil {
			return err
		}
	}
	if a.output == "" {
		a.output = "table"
	}
	if (a.noHeader || a.columns != nil) && a.output != "table" {
		return usagef("invalid --output: -o %s and -o %s shape a table, not -o %s", noHeaderOption, columnsOption, a.output)
	}
	return nil
}

// columnName is how -o columns= and --sort name a table's column: its header in lower case, with
// underscores for spaces ("PUBLIC IP" is public_ip).
func columnName(header string) string {
	return strings.ReplaceAll(strings.ToLower(header), " ", "_")
}

// columnIndex returns the index of the column named name in headers.
func columnIndex(headers []string, name string) (int, error) {
	var names []string
	for i, h := range headers {
		if columnName(h) == name {
			return i, nil
		}
		names = append(names, columnName(h))
	}
	return 0, usagef("invalid --output: no column %q here: want some of %s", name, strings.Join(names, ","))
}

// selectColumns returns the indexes of the columns -o columns= names in headers, or all of them.
func (a *app) selectColumns(headers []string) ([]int, error) {
	if a.columns == nil {
		idx := make([]int, len(headers))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	var idx []int
	for _, c := range a.columns {
		i, err := columnIndex(headers, c)
		if err != nil {
			return nil, err
		}
		idx = append(idx, i)
	}
	return idx, nil
}

// checkTemplate runs -o format= on a zero item, so that a field the kind does not have is refused
// before anything is sent; an error of a value (a nil pointer) is left for the real items.
func checkTemplate[T any](a *app) error {
	if a.template == nil {
		return nil
	}
	var zero T
	err := a.template.Execute(discard{}, &zero)
	if err != nil && strings.Contains(err.Error(), "can't evaluate field") {
		return usagef("invalid --output format: %v", err)
	}
	return nil
}

// discard is an io.Writer that keeps nothing.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// addCheck registers, for cmd, a check of -o that the runner makes before anything is sent.
func (a *app) addCheck(cmd *cobra.Command, check func() error) {
	if a.viewChecks == nil {
		a.viewChecks = map[*cobra.Command][]func() error{}
	}
	a.viewChecks[cmd] = append(a.viewChecks[cmd], check)
}

// checkOutput makes cmd's checks of -o; a failure is a usage error.
func (a *app) checkOutput(cmd *cobra.Command) error {
	for _, check := range a.viewChecks[cmd] {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkView registers, for cmd, the check that -o columns= and -o format= fit what it prints (a
// view of T): the runner makes it before anything is sent. It returns cmd.
func checkView[T any](a *app, cmd *cobra.Command, v view[T]) *cobra.Command {
	a.addCheck(cmd, func() error {
		if _, err := a.selectColumns(v.headers); err != nil {
			return err
		}
		return checkTemplate[T](a)
	})
	return cmd
}

// quiet registers, for cmd, the refusal of -o when the command prints nothing: always when prints is
// nil, else when prints says so (start without --wait). It returns cmd.
func quiet(a *app, cmd *cobra.Command, prints func() bool) *cobra.Command {
	a.addCheck(cmd, func() error {
		if cmd.Flags().Changed("output") && (prints == nil || !prints()) {
			return usagef("invalid --output: %s prints nothing here, so -o does not apply", cmd.CommandPath())
		}
		return nil
	})
	return cmd
}
