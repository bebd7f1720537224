package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// allPages is the page size of every list walk: the largest, for the fewest requests.
var allPages = &compute.ListOptions{PerPage: compute.MaxPerPage}

// kind names a resource kind in the commands that every kind shares.
type kind struct {
	name string // "instance", in messages
	one  string // "an instance", the name with its article
	arg  string // "INSTANCE_ID", the ID argument in usage lines
	// find looks resources up by name, so that a name is accepted wherever an ID is (nil: IDs only).
	find findRefs
	// get reads the resource with an ID, for resolveID.
	get func(ctx context.Context, c *compute.Client, id string) error
}

// listCmd returns "<kind> list": every item, every page.
func listCmd[T any](a *app, k kind, v view[T], example string, all func(context.Context, *compute.Client) iter.Seq2[T, error]) *cobra.Command {
	var filters listFilters
	cmd := checkView(a, &cobra.Command{
		Use:     "list",
		Short:   fmt.Sprintf("List every %s (all pages)", k.name),
		Example: example,
		Args:    cobra.NoArgs,
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, _ []string) error {
			if err := filters.check(v.headers); err != nil {
				return err
			}
			return printList(a, v, applyFilters(a, &filters, v, all(ctx, c)))
		}),
	}, v)
	filters.addFlags(cmd, v.headers)
	return cmd
}

// listed is a list that comes whole (not in pages), or its error, as the sequence listCmd reads.
func listed[T any](items []T, err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if err != nil {
			var zero T
			yield(zero, err)
			return
		}
		for _, v := range items {
			if !yield(v, nil) {
				return
			}
		}
	}
}

// getCmd returns "<kind> get ID...".
func getCmd[T any](a *app, k kind, v view[T], example string, get func(context.Context, *compute.Client, string) (*T, error)) *cobra.Command {
	return checkView(a, &cobra.Command{
		Use:   "get " + many(k.arg),
		Short: fmt.Sprintf("Show %s, or several (by ID or name)", k.one),
		Long: fmt.Sprintf(`Show %s by its ID or its name. Given several, it reads them at once and prints those it
finds in the order given (-o json: an array), each failure on a line of stderr, and exits with
the code of the worst.`, k.one),
		Example: example,
		Args:    severalArgs(k.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			items, err := fleet(ctx, a, cmd, k, args, func(ctx context.Context, arg string) outcome[T] {
				item, err := getByIDOrName(ctx, c, k, arg, get)
				return outcome[T]{arg: arg, item: item, err: err}
			})
			return printFleet(a, v, args, items, err)
		}),
	}, v)
}

// printFleet prints what a command on the resources of args has to print: one resource as one (a
// JSON object), several as a list (a JSON array) of those that succeeded; err, the fleet's, is
// returned after.
func printFleet[T any](a *app, v view[T], args []string, items []*T, err error) error {
	if len(unique(args)) == 1 {
		if err != nil || len(items) == 0 {
			return err
		}
		return printItem(a, v, items[0])
	}
	list := make([]T, len(items))
	for i, item := range items {
		list[i] = *item
	}
	if perr := printItems(a, v, list); perr != nil {
		return perr
	}
	return err
}

// getByIDOrName gets the resource that arg names, by its ID or its name (withID). A name costs two
// requests: the 404 of arg taken as an ID, and the list, whose item is the result.
func getByIDOrName[T any](ctx context.Context, c *compute.Client, k kind, arg string, get func(context.Context, *compute.Client, string) (*T, error)) (*T, error) {
	item, err := get(ctx, c, arg)
	if !maybeName(k, err) {
		return item, err
	}
	m, err := byName(ctx, c, k, arg, err)
	if err != nil {
		return nil, err
	}
	if found, ok := m.item.(*T); ok {
		return found, nil
	}
	return get(ctx, c, m.ID)
}

// describeCmd returns "<kind> describe ID": every field of one resource, for a person.
func describeCmd[T any](a *app, k kind, example string, get func(context.Context, *compute.Client, string) (*T, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "describe " + k.arg,
		Short: fmt.Sprintf("Show every field of %s, for a person (by ID or name)", k.one),
		Long: fmt.Sprintf(`Show every field of %s for a person, nested ones indented under their label. -o json,
-o yaml and -o format= print the same resource for a program, as get does.`, k.one),
		Example: example,
		Args:    exactArgs(k.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, _ *cobra.Command, args []string) error {
			item, err := getByIDOrName(ctx, c, k, args[0], get)
			if err != nil {
				return err
			}
			switch a.output {
			case "json", "yaml":
				return a.printData(item)
			case "format":
				return printItem(a, view[T]{}, item)
			}
			_, err = io.WriteString(a.stdout, a.describe(item))
			return err
		}),
	}
	a.addCheck(cmd, func() error {
		if a.output == "table" && (a.noHeader || a.columns != nil) || !slices.Contains([]string{"table", "json", "yaml", "format"}, a.output) {
			return usagef("invalid --output: describe prints every field for a person, or with -o json, yaml or format= for a program")
		}
		return checkTemplate[T](a)
	})
	return cmd
}

// deleter is what deleteCmd needs of a kind.
type deleter struct {
	del     func(context.Context, *compute.Client, string) error
	delWait func(context.Context, *compute.Client, string, ...compute.DeleteOption) error
	// watch returns the progress option of the wait for deletion, given a progress.
	watch func(*progress) []compute.WaitOption
	// force, when set, adds --force, which lets the delete remove termination protection.
	force bool
}

// deleteCmd returns "<kind> delete ID... [--wait]". It prints nothing on stdout: a delete has no
// result. With --wait it deletes as soon as the service lets it and waits until the resource is
// gone; a resource already gone is then success. Several resources are deleted at once.
func deleteCmd(a *app, k kind, d deleter, example string) *cobra.Command {
	var wait, force bool
	cmd := &cobra.Command{
		Use:   "delete " + many(k.arg),
		Short: "Delete " + k.one + ", or several",
		Long: fmt.Sprintf(`Delete %s. With --wait, the delete is tried again while the service refuses it for the
%s's state (in use, still starting), and the command returns once the %s is gone; %s that is
already gone is then success. Without --wait, %s that does not exist exits with 3.

Given several, it deletes them at once (paced as one, their waits sharing their polling), writes a
line on stderr for each as it ends, and exits with the code of the worst outcome.`, k.one, k.name, k.name, k.one, k.one),
		Example: example,
		Args:    severalArgs(k.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			_, err := fleet(ctx, a, cmd, k, args, func(ctx context.Context, arg string) outcome[struct{}] {
				if !wait && !force {
					id, err := deleteNow(ctx, c, k, d, arg)
					return outcome[struct{}]{arg: arg, id: id, done: "delete requested", err: err}
				}
				id, err := deleteAndWait(ctx, a, c, k, d, arg, force)
				return outcome[struct{}]{arg: arg, id: id, done: "deleted", err: err, waited: true}
			})
			return err
		}),
	}
	cmd.Flags().BoolVar(&wait, "wait", false, fmt.Sprintf("wait until the %s is gone", k.name))
	if d.force {
		cmd.Flags().BoolVar(&force, "force", false, "turn termination protection off if the service refuses the delete for it (implies --wait)")
	}
	return quiet(a, cmd, nil)
}

// deleteNow deletes the resource arg names, by its ID or its name, and returns its ID.
func deleteNow(ctx context.Context, c *compute.Client, k kind, d deleter, arg string) (string, error) {
	deleted := arg
	err := withID(ctx, c, k, arg, func(id string) error {
		var resp compute.Response
		if err := d.del(compute.CaptureResponse(ctx, &resp), c, id); err != nil {
			return err
		}
		deleted = id
		// A 404 met by a retry proves an ID gone, not a name: the name is looked up first.
		return confirmGone(arg, id, &resp)
	})
	return deleted, err
}

// deleteAndWait deletes the resource arg names and waits until it is gone, and returns its ID.
// Here a 404 is success (already gone), so a name is looked up first.
func deleteAndWait(ctx context.Context, a *app, c *compute.Client, k kind, d deleter, arg string, force bool) (string, error) {
	id, err := resolveID(ctx, c, k, arg)
	if err != nil {
		return arg, err
	}
	p := a.progress(k.name, id)
	defer p.stop()
	var opts []compute.DeleteOption
	for _, o := range d.watch(p) {
		opts = append(opts, o)
	}
	if force {
		opts = append(opts, compute.RemoveProtection())
	}
	if err := d.delWait(ctx, c, id, opts...); err != nil {
		return id, err
	}
	p.done("deleted")
	return id, nil
}

// waiter is what waitCmd needs of a kind whose resources have a status S.
type waiter[T any, S ~string] struct {
	statuses []S // the statuses --status accepts
	target   S   // the default --status
	status   func(*T) S
	wait     func(context.Context, *compute.Client, string, S, ...compute.WaitOption) (*T, error)
	gone     func(context.Context, *compute.Client, string, ...compute.WaitOption) error
}

// watch is the option that shows each status the wait sees on p.
func (w waiter[T, S]) watch(p *progress) []compute.WaitOption {
	return watch(p, func(t *T) string { return string(w.status(t)) })
}

// waitCmd returns "<kind> wait ID [--status S | --deleted]".
func waitCmd[T any, S ~string](a *app, k kind, v view[T], w waiter[T, S], example string) *cobra.Command {
	var status string
	var deleted bool
	var names []string
	for _, s := range w.statuses {
		names = append(names, string(s))
	}
	cmd := &cobra.Command{
		Use:   "wait " + k.arg,
		Short: fmt.Sprintf("Wait until %s has a status, or is gone", k.one),
		Long: fmt.Sprintf(`Wait until %s has the status --status (%s by default), then print it; or, with
--deleted, until it is gone. A status from which the awaited one cannot follow (error, deleting)
ends the wait with exit code 1; so does --timeout. On a terminal, stderr shows each status as it
changes and the time waited.`, k.one, w.target),
		Example: example,
		Args:    exactArgs(k.arg),
		RunE: a.runner(func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error {
			if deleted {
				if cmd.Flags().Changed("status") {
					return usagef("--deleted and --status cannot be used together")
				}
				// A name cannot be looked up once it is gone: --deleted takes the ID as given.
				p := a.progress(k.name, args[0])
				defer p.stop()
				if err := w.gone(ctx, c, args[0], w.watch(p)...); err != nil {
					return err
				}
				p.done("deleted")
				return nil
			}
			if !slices.Contains(names, status) {
				return usagef("invalid --status %q: want one of %s", status, strings.Join(names, ", "))
			}
			var item *T
			err := withID(ctx, c, k, args[0], func(id string) error {
				p := a.progress(k.name, id)
				defer p.stop()
				var err error
				if item, err = w.wait(ctx, c, id, S(status), w.watch(p)...); err != nil {
					return err
				}
				p.done(status)
				return nil
			})
			if err != nil {
				return err
			}
			return printItem(a, v, item)
		}),
	}
	cmd.Flags().StringVar(&status, "status", string(w.target), "the status to wait for: "+strings.Join(names, ", "))
	cmd.Flags().BoolVar(&deleted, "deleted", false, fmt.Sprintf("wait until the %s is gone (the service answers 404)", k.name))
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
	return quiet(a, checkView(a, cmd, v), func() bool { return !deleted })
}

// waitFor waits after a create or an action when --wait is given, with progress on a terminal, and
// returns the resource as it is then; without --wait it returns item as it is.
func waitFor[T any, S ~string](ctx context.Context, a *app, c *compute.Client, k kind, w waiter[T, S], on bool, item *T, id string, target S) (*T, error) {
	if !on {
		return item, nil
	}
	p := a.progress(k.name, id)
	defer p.stop()
	got, err := w.wait(ctx, c, id, target, w.watch(p)...)
	if err != nil {
		return nil, err
	}
	p.done(string(target))
	return got, nil
}

// printCreated prints what a create returned; with --wait it waits for target first. -o id and -o
// name print at once, so that a script holds the ID even when the wait then fails; the other
// formats print the resource after the wait, or as the create returned it when the wait failed.
// A failed wait is a *createdError: the resource exists, and is billed.
func printCreated[T any, S ~string](ctx context.Context, a *app, c *compute.Client, k kind, v view[T], w waiter[T, S], wait bool, item *T, id string, target S) error {
	if !wait {
		return printItem(a, v, item)
	}
	early := a.output == "id" || a.output == "name"
	if early {
		if err := printItem(a, v, item); err != nil {
			return err
		}
	}
	got, err := waitFor(ctx, a, c, k, w, true, item, id, target)
	if err != nil {
		if !early {
			_ = printItem(a, v, item)
		}
		return &createdError{what: k.name + " " + id, target: string(target), err: err}
	}
	if early {
		return nil
	}
	return printItem(a, v, got)
}

// createdError is a wait that failed after its create made the resource: it exits with
// exitCreatedWaitFailed, never as if nothing had been sent.
type createdError struct {
	what, target string // "instance ins-000001", "active"
	err          error
}

func (e *createdError) Error() string {
	return fmt.Sprintf("%s was created, but the wait for %s failed (delete it if it is not wanted): %v", e.what, e.target, e.err)
}

func (e *createdError) Unwrap() error { return e.err }

// exactArgs accepts exactly the named arguments and names the missing or extra ones.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return usagef("missing %s", strings.Join(names[len(args):], " and "))
		case len(args) > len(names):
			return usagef("unexpected argument %q: want only %s", args[len(names)], strings.Join(names, " "))
		}
		for i, a := range args {
			if a == "" {
				return usagef("%s is empty", names[i])
			}
		}
		return nil
	}
}
