package main

import (
	"fmt"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// progress shows a wait to a person at a terminal: each status as it changes, with the time waited.
// Off a terminal it says nothing, so that a script's stderr holds only warnings and errors.
type progress struct {
	a     *app
	what  string // "instance ins-000001"
	start time.Time
	last  string
}

func (a *app) progress(kind, id string) *progress {
	return &progress{a: a, what: kind + " " + a.safe(id), start: time.Now()}
}

// seen reports the status of a poll; it prints only a change.
func (p *progress) seen(status string) {
	if !p.a.stderrTTY || status == p.last {
		return
	}
	p.last = status
	fmt.Fprintf(p.a.stderr, "%s: %s (%s)\n", p.what, p.a.safe(status), p.elapsed())
}

// done reports the end of a wait, such as "active" or "deleted".
func (p *progress) done(state string) {
	p.a.note("%s is %s after %s", p.what, state, p.elapsed())
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start).Round(time.Second) }

// watch returns the wait option that feeds p from every poll of a T.
func watch[T any](p *progress, status func(*T) string) compute.WaitOption {
	return compute.OnUpdate(func(v *T) { p.seen(status(v)) })
}
