package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	compute "github.com/compute-sdk/compute-go"
)

// createSends is how many times a create command sends its create at most: once, and again twice
// when a send was lost and nothing with its name showed after it.
const createSends = 3

// createWatch follows the sends of a create command's create, through the client's Observer: it
// tells a person at a terminal when a send is lost and when the create is sent again, while it
// happens, and words the end of a create lost each time it was sent.
type createWatch struct {
	a          *app
	kind, name string

	mu    sync.Mutex
	sends int   // creates sent so far
	lost  int   // of them, those whose outcome was unknown
	last  error // the last lost send's error
}

// once starts following the create of the resource of kind k named name, and returns the options of
// the create command's CreateOnce call.
func (a *app) once(k kind, name string) compute.OnceOption {
	a.creating = &createWatch{a: a, kind: k.name, name: name}
	return compute.RetryNotCreated(createSends - 1)
}

// observer tells the command's create watch, if any, about the create's sends. A create command's
// only POST is its create; its lookups by name are GETs.
func (a *app) observer() compute.Observer {
	return compute.Observer{
		CallStart: func(ctx context.Context, call compute.Call) context.Context {
			if w := a.creating; w != nil && call.Method == http.MethodPost {
				w.sent()
			}
			return nil
		},
		CallEnd: func(_ context.Context, resp compute.Response, err error) {
			if w := a.creating; w != nil && resp.Method == http.MethodPost && errors.Is(err, compute.ErrOutcomeUnknown) {
				w.lostSend(err)
			}
		},
	}
}

// sent records a send; from the second on, it says so.
func (w *createWatch) sent() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sends++
	if w.sends > 1 {
		w.a.note("%s %s: nothing named %q showed: sent again, %d of %d", w.kind, w.name, w.name, w.sends, createSends)
	}
}

// lostSend records a send whose outcome is unknown, and says what comes next: the lookup by name.
func (w *createWatch) lostSend(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lost++
	w.last = err
	w.a.note("%s %s: the create's response was lost (send %d of %d): looking for %s named %q for up to %s",
		w.kind, w.name, w.sends, createSends, article(w.kind), w.name, compute.DefaultSettleTime)
}

// ended words err, the end of the create command, when the create was lost each time it was sent
// (compute.ErrNotCreated): how many sends were lost, and what was checked after each.
func (w *createWatch) ended(err error) error {
	if w == nil || !errors.Is(err, compute.ErrNotCreated) {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return &notCreatedError{kind: w.kind, name: w.name, sends: w.sends, last: w.last, err: err}
}

// notCreatedError is a create lost each time it was sent, after which nothing with its name showed:
// nothing was made. It wraps the SDK's error, which matches compute.ErrNotCreated.
type notCreatedError struct {
	kind, name string
	sends      int
	last       error // the last lost send's error
	err        error
}

func (e *notCreatedError) Error() string {
	sends := fmt.Sprintf("the create was sent %d times and each send was lost", e.sends)
	if e.sends == 1 {
		sends = "the create was sent once and lost"
	}
	last := ""
	if e.last != nil {
		last = " (the last: " + errorText(e.last) + ")"
	}
	return fmt.Sprintf("no %s was created: %s%s; after each, the %ss were searched for the name %q for %s, and none showed; running the command again is safe",
		e.kind, sends, last, e.kind, e.name, compute.DefaultSettleTime)
}

func (e *notCreatedError) Unwrap() error { return e.err }

// article returns "an instance", "a volume": the kind named with its article.
func article(kind string) string {
	switch kind[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + kind
	}
	if kind == "SSH key" {
		return "an SSH key"
	}
	return "a " + kind
}
