package main

import (
	"fmt"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// progress shows a wait to a person at a terminal: each status on a line of its own, the line of
// the current one rewritten every second with the time waited, so that a long transition still
// looks alive. Off a terminal it says nothing, so that a script's stderr holds only warnings and
// errors.
type progress struct {
	a     *app
	what  string // "instance ins-000001", made safe
	start time.Time

	// fleet is set for one wait among several at once (a command on several resources): each status
	// then gets a whole line when it changes, no line is rewritten in place, and the end is the
	// fleet's line for the resource.
	fleet bool

	mu     sync.Mutex
	last   string // the current status, made safe; "" before the first poll
	open   bool   // the current status's line waits for its end
	ticker *time.Ticker
	quit   chan struct{}
	exited chan struct{}
}

// tick is how often the line of the current status shows the time waited anew.
const tick = time.Second

func (a *app) progress(kind, id string) *progress {
	p := &progress{a: a, what: kind + " " + a.safe(id), start: time.Now(), fleet: a.fleetMode}
	if a.stderrTTY && !p.fleet {
		p.ticker = time.NewTicker(tick)
		p.quit, p.exited = make(chan struct{}), make(chan struct{})
		go p.run()
	}
	return p
}

// run rewrites the current line at every tick until stop.
func (p *progress) run() {
	defer close(p.exited)
	for {
		select {
		case <-p.quit:
			return
		case <-p.ticker.C:
			p.mu.Lock()
			if p.open {
				// \r and "erase to the end of the line" rewrite the line in place.
				fmt.Fprintf(p.a.stderr, "\r\x1b[K%s: %s (%s)", p.what, p.last, p.elapsed())
			}
			p.mu.Unlock()
		}
	}
}

// seen reports the status of a poll; a change starts a line of its own.
func (p *progress) seen(status string) {
	if !p.a.stderrTTY {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	status = p.a.safe(status)
	if status == p.last && p.open {
		return
	}
	if p.fleet {
		if status != p.last {
			p.last = status
			fmt.Fprintf(p.a.stderr, "%s: %s (%s)\n", p.what, status, p.elapsed())
		}
		return
	}
	if p.open {
		fmt.Fprintln(p.a.stderr)
	}
	p.last, p.open = status, true
	fmt.Fprintf(p.a.stderr, "%s: %s (%s)", p.what, status, p.elapsed())
}

// stop ends the rewriting and the current line; the wait is over, however it ended. It is safe to
// call more than once.
func (p *progress) stop() {
	if p.ticker == nil {
		return
	}
	p.mu.Lock()
	if p.open {
		fmt.Fprintln(p.a.stderr)
		p.open = false
	}
	p.mu.Unlock()
	select {
	case <-p.quit:
	default:
		close(p.quit)
		p.ticker.Stop()
	}
	<-p.exited
}

// done reports the end of a wait, such as "active" or "deleted"; in a fleet, its line does.
func (p *progress) done(state string) {
	p.stop()
	if !p.fleet {
		p.a.note("%s is %s after %s", p.what, state, p.elapsed())
	}
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start).Round(time.Second) }

// watch returns the wait options that feed p from every poll of a T, with --poll-interval.
func watch[T any](p *progress, status func(*T) string) []compute.WaitOption {
	opts := []compute.WaitOption{compute.OnUpdate(func(v *T) { p.seen(status(v)) })}
	if d := p.a.pollInterval; d > 0 {
		opts = append(opts, compute.WithPollInterval(d, d))
	}
	return opts
}
