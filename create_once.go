package compute

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// ErrNotCreated matches the error of a CreateOnce whose create had an unknown outcome and whose
// resource did not show in the settle time: nothing was created, so calling again is safe
// ([RetryNotCreated]). It does not match [ErrOutcomeUnknown]; errors.As reaches the create's error.
// A create the service answered with a success status whose body was lost is never "not created",
// nor one whose last lookup met a list it could not rely on (see [ErrNameUnchecked]): if its
// resource does not show, the error matches [ErrOutcomeUnknown].
var ErrNotCreated = errors.New("compute: not created")

// DefaultSettleTime is how long CreateOnce looks for the resource of a create whose response was
// lost, since a new resource may show in lists a few seconds late.
const DefaultSettleTime = 30 * time.Second

// OnceOption configures a CreateOnce call.
type OnceOption func(*onceConfig)

type onceConfig struct {
	settle  time.Duration
	retries int
	own     bool          // AdoptOnlyOwn
	maxAge  time.Duration // SharedLookup
	err     error
}

// WithSettleTime sets how long CreateOnce looks for the resource of a create whose response was
// lost (default [DefaultSettleTime]); shorter than the service's listing delay, it could report
// [ErrNotCreated] for a resource that was created.
func WithSettleTime(d time.Duration) OnceOption {
	return func(c *onceConfig) {
		if d <= 0 {
			c.err = invalid("settle_time", "must be positive, got %s", d)
		}
		c.settle = d
	}
}

// RetryNotCreated lets CreateOnce send the create up to n more times instead of returning
// [ErrNotCreated].
func RetryNotCreated(n int) OnceOption {
	return func(c *onceConfig) {
		if n < 0 {
			c.err = invalid("retries", "must not be negative, got %d", n)
		}
		c.retries = n
	}
}

// AdoptOnlyOwn makes CreateOnce adopt only a resource that its own create made: it still looks the
// name up first, notes the resources that hold it already, and creates whatever they are; after a
// create whose response was lost it adopts only a resource with the name that was not there
// before. A Terraform provider or any tool that manages resources on behalf of someone else wants
// this: a colleague's machine that happens to have the name must not be taken over (and later
// changed or deleted) by default. A lookup that cannot rely on the list still refuses with
// [ErrNameUnchecked], since an unseen resource could later pass for the one created; more than
// [MaxFindMatches] resources with the name are a [*TooManyMatchesError].
func AdoptOnlyOwn() OnceOption {
	return func(c *onceConfig) { c.own = true }
}

// SharedLookup lets CreateOnce's lookup before its create take its answer from a walk of the kind's
// list that the client started at most maxAge before the call, whether it has ended or is still
// under way, instead of waiting for one that starts after it: a job that creates hundreds of
// resources one after another, such as a Terraform apply, then walks the list about once per maxAge
// rather than every few creates. The lookups after a create whose response was lost always walk the
// list afresh. The cost is what the walk cannot have seen: a resource that got the name elsewhere
// within maxAge before the call. Without [AdoptOnlyOwn], a second resource with the name is then
// made, as when one is made between a lookup and its create; with it, a lost response finds two new
// resources with the name and ends with a [*NameError] instead of adopting either. A walk of more
// than 10,000 resources is not kept.
func SharedLookup(maxAge time.Duration) OnceOption {
	return func(c *onceConfig) {
		if maxAge <= 0 {
			c.err = invalid("max_age", "must be positive, got %s", maxAge)
		}
		c.maxAge = maxAge
	}
}

// NameError is the error of CreateOnce when several resources have the request's name, or the one
// that has it is not what the request would make or is going away. It matches [ErrConflict].
// Nothing was created, unless the error also matches [ErrOutcomeUnknown]: then a create's response
// was lost, and what has the name (IDs) may be what it made, failed or in error.
type NameError struct {
	Kind   string   // "instance", "volume", ...
	Name   string   // the name looked up
	IDs    []string // the resources found with it (the lookup stops at two)
	Reason string   // why none can be adopted
}

// Error reads "compute: cannot adopt the instance named "web-1": " and the reason.
func (e *NameError) Error() string {
	return fmt.Sprintf("compute: cannot adopt the %s named %q: %s", e.Kind, e.Name, e.Reason)
}

// Is makes errors.Is(err, ErrConflict) hold.
func (e *NameError) Is(target error) bool { return target == ErrConflict }

// once describes one kind of resource to createOnce.
type once[T any] struct {
	kind string
	name string // the request's
	list func(context.Context, *ListOptions) (*Page[T], error)
	// limit is how many resources with the name a lookup keeps (set by createOnce).
	limit int
	// before, with AdoptOnlyOwn, holds the IDs that held the name before the create: never adopted.
	before map[string]bool
	// finder, when set, shares the lookup's walks with the kind's other lookups in flight.
	finder *finder[T]
	// maxAge, when positive, lets the finder answer from a walk that started up to maxAge before.
	maxAge time.Duration
	create func(context.Context) (*T, error)
	// mismatch says why found cannot be the request's resource, or "" when it can.
	mismatch func(found *T) string
}

// createOnce makes the request's name the create's idempotency key, as
// [InstancesService.CreateOnce] describes.
func createOnce[T any](ctx context.Context, c *Client, o once[T], opts []OnceOption) (*T, error) {
	cfg := onceConfig{settle: DefaultSettleTime}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if ctx == nil {
		return nil, errNilContext
	}
	o.limit = 2 // two with the name already decide it
	o.maxAge = cfg.maxAge
	if cfg.own {
		o.limit = MaxFindMatches + 1
		found, unsure, err := lookUp(ctx, c, o)
		switch {
		case err != nil:
			return nil, err
		case unsure:
			// An unseen resource that was there could pass for the one created.
			return nil, &NameCheckError{Kind: o.kind, Name: c.transport.cred.outside(o.name), Walks: lookUpWalks}
		case len(found) > MaxFindMatches:
			return nil, &TooManyMatchesError{Kind: o.kind, Name: c.transport.cred.outside(o.name), Limit: MaxFindMatches}
		}
		o.before = map[string]bool{}
		for _, v := range found {
			id, _ := stringField(v, "ID")
			o.before[id] = true
		}
	} else {
		v, unsure, err := adopt(ctx, c, o)
		switch {
		case v != nil || err != nil:
			return v, err
		case unsure:
			// Never create when unsure: the resource may be there, on a page the walks missed.
			return nil, &NameCheckError{Kind: o.kind, Name: c.transport.cred.outside(o.name), Walks: lookUpWalks}
		}
	}
	o.maxAge = 0 // what the create made shows only in a walk that starts after it
	for tries := 0; ; tries++ {
		v, err := o.create(ctx)
		if !errors.Is(err, ErrOutcomeUnknown) {
			return v, err
		}
		deadline := time.Now().Add(cfg.settle)
		var unsure bool
		for n := 0; ; n++ {
			var found *T
			var lookErr error
			found, unsure, lookErr = adopt(ctx, c, o)
			var nameErr *NameError
			switch {
			case found != nil:
				return found, nil
			case errors.As(lookErr, &nameErr):
				return nil, fmt.Errorf("%w (after a create whose outcome is unknown: %w)", lookErr, err)
			case lookErr != nil:
				return nil, fmt.Errorf("%w; looking the name up again failed too: %w", err, lookErr)
			}
			if !time.Now().Before(deadline) {
				break
			}
			if sleepErr := sleep(ctx, min(jitter(time.Second, 5*time.Second, n), time.Until(deadline))); sleepErr != nil {
				return nil, fmt.Errorf("%w; the context ended while looking for the %s: %w", err, o.kind, sleepErr)
			}
		}
		if unsure {
			return nil, &NameCheckError{Kind: o.kind, Name: c.transport.cred.outside(o.name), Walks: lookUpWalks, Err: err}
		}
		if errors.As(err, new(accepted)) {
			// The service answered the create with a success status: it made something, which
			// its name does not find.
			return nil, fmt.Errorf("%w; the service accepted the create, but no %s named %q showed within %s: look before creating it again",
				err, o.kind, c.transport.cred.outside(o.name), cfg.settle)
		}
		if tries >= cfg.retries {
			return nil, &notCreatedError{kind: o.kind, name: c.transport.cred.outside(o.name), settle: cfg.settle, cause: err}
		}
	}
}

// adopt returns the one resource named o.name that matches the request, nil when there is none,
// and a *NameError when what has the name cannot be adopted; unsure reports a lookup whose pages
// could not rely on the list (see lookUp). The resources of o.before are not looked at.
func adopt[T any](ctx context.Context, c *Client, o once[T]) (v *T, unsure bool, err error) {
	found, unsure, err := lookUp(ctx, c, o)
	if err != nil {
		return nil, unsure, err
	}
	if o.before != nil {
		if len(found) > MaxFindMatches {
			// The one created may be past the matches kept.
			return nil, unsure, &TooManyMatchesError{Kind: o.kind, Name: c.transport.cred.outside(o.name), Limit: MaxFindMatches}
		}
		var fresh []T // a new slice: found may be shared with the walk's other callers
		for _, v := range found {
			if id, _ := stringField(v, "ID"); !o.before[id] {
				fresh = append(fresh, v)
			}
		}
		found = fresh
	}
	if len(found) == 0 {
		return nil, unsure, nil
	}
	var ids []string
	for _, v := range found {
		id, _ := stringField(v, "ID")
		ids = append(ids, c.transport.cred.outside(id))
	}
	nameErr := &NameError{Kind: o.kind, Name: c.transport.cred.outside(o.name), IDs: ids}
	if len(found) > 1 {
		nameErr.Reason = fmt.Sprintf("several have the name (%s and maybe more)", strings.Join(ids, ", "))
		return nil, false, nameErr
	}
	if why := o.mismatch(&found[0]); why != "" {
		nameErr.Reason = fmt.Sprintf("%s %s %s", o.kind, ids[0], c.transport.cred.outside(why))
		return nil, false, nameErr
	}
	return &found[0], false, nil
}

// notCreatedError is ErrNotCreated's error: it unwraps to the create's failure without
// ErrOutcomeUnknown, since the outcome is now known.
type notCreatedError struct {
	kind, name string
	settle     time.Duration
	cause      error
}

func (e *notCreatedError) Error() string {
	return fmt.Sprintf("compute: not created: no %s named %q showed within %s of a create whose response was lost, so creating it again is safe (the create: %v)",
		e.kind, e.name, e.settle, e.cause)
}

func (e *notCreatedError) Is(target error) bool { return target == ErrNotCreated }

func (e *notCreatedError) Unwrap() []error {
	var errs []error
	for _, err := range unwrap(e.cause) {
		if err != ErrOutcomeUnknown {
			errs = append(errs, err)
		}
	}
	return errs
}

// stringField reads the string field name of a resource; ok is false for a type without one.
func stringField(v any, name string) (string, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return "", false
	}
	f := rv.FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.String {
		return "", false
	}
	return f.String(), true
}

// why collects the reasons a resource found by name cannot be adopted.
type why []string

// add records the reason the format says when cond holds.
func (w *why) add(cond bool, format string, args ...any) {
	if cond {
		*w = append(*w, fmt.Sprintf(format, args...))
	}
}

func (w why) String() string { return strings.Join(w, ", ") }
