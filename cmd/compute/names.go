package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	compute "github.com/compute-sdk/compute-go"
)

// findRefs returns every resource of a kind with the given name: its ID and name, and the
// resource itself (a *T of the kind's T).
type findRefs func(ctx context.Context, c *compute.Client, name string) ([]match, error)

// match is a resource that a lookup by name found.
type match struct {
	compute.Ref
	item any // a *T
}

// refsOf makes a kind's FindByName a findRefs.
func refsOf[T any](find func(*compute.Client) func(context.Context, string) ([]T, error), id, name func(*T) string) findRefs {
	return func(ctx context.Context, c *compute.Client, n string) ([]match, error) {
		items, err := find(c)(ctx, n)
		if err != nil {
			return nil, err
		}
		out := make([]match, len(items))
		for i := range items {
			out[i] = match{Ref: compute.Ref{ID: id(&items[i]), Name: name(&items[i])}, item: &items[i]}
		}
		return out, nil
	}
}

// withID runs fn on the resource that arg names: first as an ID; when no resource has that ID (a
// 404, or an ID the SDK refuses before sending), as a name, through the kind's FindByName. A name
// that several resources share is an *ambiguousError, listing them; one that none has is a not
// found error (exit code 3).
func withID(ctx context.Context, c *compute.Client, k kind, arg string, fn func(id string) error) error {
	err := fn(arg)
	if !maybeName(k, err) {
		return err
	}
	m, err := byName(ctx, c, k, arg, err)
	if err != nil || m == nil {
		return err
	}
	return fn(m.ID)
}

// maybeName reports whether err, the failure of arg taken as an ID, leaves arg to be looked up as a
// name: a 404, or an ID the SDK refused before sending.
func maybeName(k kind, err error) bool {
	return err != nil && k.find != nil && (errors.Is(err, compute.ErrNotFound) || errors.Is(err, compute.ErrInvalidRequest))
}

// byName returns the one resource named arg, after idErr, the failure of arg taken as an ID. A name
// that several share is an *ambiguousError, one that none has a *noSuchError; nil and no error
// when idErr is a *goneUnconfirmed and no resource has the name (arg was an ID, now gone).
func byName(ctx context.Context, c *compute.Client, k kind, arg string, idErr error) (*match, error) {
	found, err := k.find(ctx, c, arg)
	var tooMany *compute.TooManyMatchesError
	var unconfirmed *goneUnconfirmed
	switch {
	case err != nil && errors.Is(err, compute.ErrInvalidRequest):
		// Neither an ID nor a name the service could hold.
		return nil, idErr
	case errors.As(err, &tooMany):
		return nil, &ambiguousError{k: k, name: arg, more: tooMany.Limit}
	case err != nil:
		return nil, err
	case len(found) == 1:
		return &found[0], nil
	case len(found) > 1:
		refs := make([]compute.Ref, len(found))
		for i, m := range found {
			refs[i] = m.Ref
		}
		return nil, &ambiguousError{k: k, name: arg, matches: refs}
	case errors.As(idErr, &unconfirmed):
		return nil, nil
	case errors.Is(idErr, compute.ErrNotFound):
		return nil, &noSuchError{k: k, arg: arg, err: idErr}
	}
	return nil, &noSuchError{k: k, arg: arg}
}

// goneUnconfirmed is a write of arg, taken as an ID, that the SDK reported done because a retry met
// a 404 (a DELETE whose lost attempt may have deleted the resource): for an ID that proves it gone,
// but arg may be a name, which is then looked up before the 404 is believed. It matches
// compute.ErrNotFound, so that withID looks the name up.
type goneUnconfirmed struct{ arg string }

func (e *goneUnconfirmed) Error() string {
	return fmt.Sprintf("%q is no ID of a resource that exists now", e.arg)
}

// Is makes a goneUnconfirmed a not found error.
func (e *goneUnconfirmed) Is(target error) bool { return target == compute.ErrNotFound }

// confirmGone returns a *goneUnconfirmed when the call that resp describes, of arg taken as the ID
// id, succeeded through a 404 that a retry met; nil otherwise.
func confirmGone(arg, id string, resp *compute.Response) error {
	if id == arg && resp.StatusCode == http.StatusNotFound {
		return &goneUnconfirmed{arg: arg}
	}
	return nil
}

// ambiguousError is a name that several resources share, where the command needs one.
type ambiguousError struct {
	k       kind
	name    string
	matches []compute.Ref
	// more, when set, is the bound of a lookup that met more resources with the name than it holds:
	// matches is then empty.
	more int
}

func (e *ambiguousError) Error() string {
	if e.more > 0 {
		return fmt.Sprintf("more than %d %ss have the name %q; give the ID of the one you mean", e.more, e.k.name, e.name)
	}
	ids := make([]string, len(e.matches))
	for i, m := range e.matches {
		ids[i] = m.ID
	}
	return fmt.Sprintf("%d %ss have the name %q: %s; give the ID of the one you mean", len(e.matches), e.k.name, e.name, strings.Join(ids, ", "))
}

// noSuchError is an argument that is neither the ID nor the name of any resource of the kind.
type noSuchError struct {
	k   kind
	arg string
	err error // the 404 of arg taken as an ID; nil when the SDK refused it as an ID
}

func (e *noSuchError) Error() string {
	msg := fmt.Sprintf("no %s has the ID or the name %q", e.k.name, e.arg)
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	return msg
}

func (e *noSuchError) Unwrap() error { return e.err }

// Is makes a noSuchError a not found error, as a 404 is.
func (e *noSuchError) Is(target error) bool { return target == compute.ErrNotFound }

// lookupID returns the ID of the resource arg names: arg when a resource has that ID, else the ID
// of the one resource named arg. A name that none has is a *noSuchError (exit code 3), one that
// several share an *ambiguousError.
func lookupID(ctx context.Context, c *compute.Client, k kind, arg string) (string, error) {
	if k.get == nil || k.find == nil {
		return arg, nil
	}
	var id string
	err := withID(ctx, c, k, arg, func(candidate string) error {
		id = candidate
		return k.get(ctx, c, candidate)
	})
	return id, err
}

// resolveID returns the ID of the resource arg names, before a command for which a 404 is no
// failure: arg when a resource has that ID (or none has it as a name either), else the ID of the
// one resource named arg.
func resolveID(ctx context.Context, c *compute.Client, k kind, arg string) (string, error) {
	id, err := lookupID(ctx, c, k, arg)
	var none *noSuchError
	if errors.As(err, &none) && none.err != nil {
		return arg, nil // no such ID nor name: the command meets the 404 itself
	}
	return id, err
}

// unknownRef reports whether err may come of a reference that names no resource by its ID: a 404,
// an ID in a path that the SDK refused (its field is "..._id"), or a 400 of the service that is not
// about a resource's state or a quota (a resource a request refers to is unknown: 02021, 02025,
// 02047...). Another refusal of the SDK sent nothing and is about something else; a write whose
// outcome is unknown is never sent again.
func unknownRef(err error) bool {
	var ve *compute.ValidationError
	switch {
	case err == nil, errors.Is(err, compute.ErrOutcomeUnknown), errors.Is(err, compute.ErrConflict), errors.Is(err, compute.ErrQuotaExceeded):
		return false
	case errors.As(err, &ve):
		return strings.HasSuffix(ve.Field, "_id")
	}
	return errors.Is(err, compute.ErrNotFound) || errors.Is(err, compute.ErrBadRequest)
}

// ref is an argument or a flag value that names a resource of a kind, by its ID or its name.
type ref struct {
	k   kind
	arg string
}

// refSet gathers flag values that name resources, so that callByRefs can put the IDs it finds
// back in place.
type refSet struct {
	refs []ref
	set  []func(id string)
}

// add registers *p, a reference to a resource of kind k, unless it is empty.
func (s *refSet) add(k kind, p *string) {
	if *p == "" {
		return
	}
	s.refs = append(s.refs, ref{k, *p})
	s.set = append(s.set, func(id string) { *p = id })
}

// addAll registers each item of refs.
func (s *refSet) addAll(k kind, refs []string) {
	for i := range refs {
		s.add(k, &refs[i])
	}
}

// call is callByRefs over the set: fn runs with each reference replaced by the ID in use.
func (s *refSet) call(ctx context.Context, c *compute.Client, fn func() error) error {
	_, err := callByRefs(ctx, c, s.refs, func(ids []string) (struct{}, error) {
		for i, id := range ids {
			s.set[i](id)
		}
		return struct{}{}, fn()
	})
	return err
}

// callByRefs runs fn with the references as given, so that IDs cost no more requests than before.
// When the service answers as it does to a reference it does not know (a 404, a refused request),
// each reference is looked up, ID first then name (lookupID), and fn runs again with the IDs found
// if a name stood for one; a name that no resource has exits 3, one that several share exits 11.
// Otherwise fn's first error stands.
func callByRefs[R any](ctx context.Context, c *compute.Client, refs []ref, fn func(ids []string) (R, error)) (R, error) {
	args := make([]string, len(refs))
	for i, r := range refs {
		args[i] = r.arg
	}
	out, err := fn(args)
	if !unknownRef(err) {
		return out, err
	}
	ids := make([]string, len(refs))
	named := false
	for i, r := range refs {
		id, lerr := lookupID(ctx, c, r.k, r.arg)
		if lerr != nil {
			return out, lerr
		}
		ids[i] = id
		named = named || id != r.arg
	}
	if !named {
		return out, err
	}
	return fn(ids)
}

// callByID is withID for a call that returns a result.
func callByID[R any](ctx context.Context, c *compute.Client, k kind, arg string, fn func(id string) (R, error)) (R, error) {
	var out R
	err := withID(ctx, c, k, arg, func(id string) error {
		var err error
		out, err = fn(id)
		return err
	})
	return out, err
}
