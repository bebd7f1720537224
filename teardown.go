package compute

import (
	"context"
	"errors"
	"net/http"
	"sync"
)

// DeleteOption configures a DeleteAndWait: [RemoveProtection], or a [WaitOption] for its waits
// ([WithPollInterval], [WithMaxWait]).
type DeleteOption interface{ applyDelete(*deleteConfig) }

type deleteConfig struct {
	unprotect bool
	wait      []WaitOption
}

func (f waitOptionFunc) applyDelete(c *deleteConfig) { c.wait = append(c.wait, f) }

type deleteOptionFunc func(*deleteConfig)

func (f deleteOptionFunc) applyDelete(c *deleteConfig) { f(c) }

// RemoveProtection lets [InstancesService.DeleteAndWait] turn termination protection off when the
// delete is refused for it (02038), starting a stopped instance first, since only an active one can
// be updated. Protection is learned from the refusal: responses do not always carry is_protected.
func RemoveProtection() DeleteOption {
	return deleteOptionFunc(func(c *deleteConfig) { c.unprotect = true })
}

// deleteAndWait is every DeleteAndWait, as [InstancesService.DeleteAndWait] describes: it deletes
// the resource w waits on with its kind's delete, trying again while it is refused for its state,
// then waits until it is gone. unprotect, nil for a kind without termination protection, turns the
// protection off. When the context ends or the maximum wait passes, it returns a [*WaitError] with
// the last refusal as LastErr.
func deleteAndWait[T any, S ~string](ctx context.Context, w waiter[T, S], unprotect func(context.Context) error, opts []DeleteOption) error {
	if err := checkPathID(w.idField, w.id); err != nil {
		return err
	}
	if ctx == nil {
		return errNilContext
	}
	var cfg deleteConfig
	for _, o := range opts {
		if o != nil {
			o.applyDelete(&cfg)
		}
	}
	wcfg, err := waitSettings(cfg.wait)
	if err != nil {
		return err
	}
	ctx, cancel := boundWait(ctx, wcfg.maxWait)
	defer cancel()
	werr := &WaitError{Resource: w.resource, ID: w.id, Target: "deleted"}
	// A delete answered with the kind's not-found finds the resource gone already: no failure.
	gone := absent(w.del)
	for n := 0; ; n++ {
		err := send(expectGone(ctx, gone), w.c, request{op: w.del, ids: []string{w.id}})
		switch {
		case err == nil:
			return w.untilGone(ctx, cfg.wait)
		case gone(err):
			return nil // it was gone already
		case errors.Is(err, CodeTerminationProtected) && cfg.unprotect && unprotect != nil:
			if uerr := unprotect(ctx); uerr != nil && !errors.Is(uerr, ErrConflict) && !transient(uerr) {
				return uerr
			}
		case errors.Is(err, CodeTerminationProtected):
			return err
		case ctx.Err() != nil:
		case errors.Is(err, ErrConflict), errors.Is(err, ErrOutcomeUnknown), transient(err):
			// Not deletable yet, or the outcome of the delete is unknown: try again.
		default:
			return err
		}
		werr.LastErr = err
		if serr := sleep(ctx, jitter(wcfg.minInterval, wcfg.maxInterval, n)); serr != nil {
			werr.Err = context.Cause(ctx)
			return werr
		}
	}
}

// absent returns the rule that tells, from the error of a read, that what op deletes is gone: the
// response op's own would take for gone ([operation.missing]). A 404 without a code (a proxy's or a
// gateway's page) proves nothing: a wait for deletion polls through it.
func absent(op operation) func(error) bool {
	return func(err error) bool {
		var e *APIError
		return errors.As(err, &e) && op.missing(e)
	}
}

// uncoded reports whether err is a 404 whose body carried none of the service's codes (no code, or
// one that is not five digits, {"code":"NotFound"}): a proxy's or a gateway's page, which says
// nothing about the resource.
func uncoded(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound && !serviceCode(e.Code)
}

// never is the failure rule of a wait for deletion: no status ends it.
func never[S ~string](S, S) bool { return false }

// WaitAll runs wait for each of ids at once and returns their errors joined; a nil ctx or wait is
// refused before any wait runs. Waits of one kind that run together share their polling (a list
// walk a second, not a GET each):
//
//	err := compute.WaitAll(ctx, ids, func(ctx context.Context, id string) error {
//		_, err := c.Instances.WaitForStatus(ctx, id, compute.InstanceStatusActive)
//		return err
//	})
//
// A wait that panics does not end the program from WaitAll's goroutine: once every wait has
// returned, WaitAll panics with its value in the caller's goroutine, where it can be recovered.
func WaitAll(ctx context.Context, ids []string, wait func(ctx context.Context, id string) error) error {
	if ctx == nil {
		return errNilContext
	}
	if wait == nil {
		return invalid("wait", "must not be nil")
	}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	var once sync.Once
	var panicked any // the first wait's panic
	for i, id := range ids {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { panicked = r })
				}
			}()
			errs[i] = wait(ctx, id)
		})
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
	return errors.Join(errs...)
}
