package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// row is one line of the table: a step, or a part of one.
type row struct {
	step     string
	ours     bool          // a step of our provider, whose bounds are checked
	wall     time.Duration // 0: not timed
	floor    time.Duration // 0: none
	ratioMax float64       // the bound on wall / floor; 0: not checked
	c        counts
	overrun  bool // the request log overran: counts are lower bounds
	errors   int  // error diagnostics of the step's terraform commands
	web      int  // instances named web-* the account held at the end; -1 not counted
	// issueFloor, when set, is an apply's floor as the issue states it, without the security
	// group's transition that every instance create waits for. It is shown, not checked.
	issueFloor time.Duration
	problems   []string
}

// want records a broken bound unless ok.
func (r *row) want(ok bool, format string, a ...any) {
	if !ok {
		r.problems = append(r.problems, fmt.Sprintf(format, a...))
	}
}

// ratio is wall / floor, 0 without either.
func (r *row) ratio() float64 {
	if r.wall <= 0 || r.floor <= 0 {
		return 0
	}
	return r.wall.Seconds() / r.floor.Seconds()
}

// checkCommon checks the bounds of every step of ours: the time against the floor, the 429s after
// the first, no duplicate create and no error, and a whole request log.
func (r *row) checkCommon(s settings) {
	if s.ratio > 0 && r.ratioMax > 0 && r.floor > 0 {
		r.want(r.ratio() <= r.ratioMax, "took %.2f x the floor, over %.2f", r.ratio(), r.ratioMax)
	}
	if s.max429 >= 0 {
		r.want(r.c.later429s() <= s.max429, "%d 429s after the first, over %d", r.c.later429s(), s.max429)
	}
	r.want(r.c.duplicates == 0, "%d duplicate creates", r.c.duplicates)
	r.want(r.errors == 0, "%d errors", r.errors)
	r.want(!r.overrun, "the request log overran")
}

// cells are the row's cells, in the table's order.
func (r *row) cells() []string {
	dur := func(d time.Duration) string {
		if d <= 0 {
			return ""
		}
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	ratio := ""
	if x := r.ratio(); x > 0 {
		ratio = fmt.Sprintf("%.2f", x)
		if r.ratioMax > 0 {
			ratio += fmt.Sprintf(" (<= %.2f)", r.ratioMax)
		}
	}
	requests := fmt.Sprintf("%d: %d / %d / %d / %d", r.c.total, r.c.lists, r.c.gets, r.c.creates, r.c.deletes)
	if r.c.other > 0 {
		requests += fmt.Sprintf(" + %d", r.c.other)
	}
	if r.overrun {
		requests = ">= " + requests
	}
	web := ""
	if r.web >= 0 {
		web = fmt.Sprint(r.web)
	}
	verdict := "ok"
	switch {
	case !r.ours:
		verdict = "(not ours)"
	case len(r.problems) > 0:
		verdict = "**" + strings.Join(r.problems, "; ") + "**"
	}
	return []string{r.step, dur(r.wall), dur(r.floor), ratio, requests, fmt.Sprint(r.c.later429s()),
		fmt.Sprint(r.c.duplicates), fmt.Sprint(r.errors), web, verdict}
}

// header is the table's first line.
var header = []string{"step", "took", "floor", "x floor", "requests: lists / GETs / creates / deletes",
	"429s after the first", "duplicate creates", "errors", "web-* instances", "bounds"}

// printTable writes rows as a Markdown table.
func printTable(w io.Writer, rows []*row) {
	line := func(cells []string) { fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")) }
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
		if i > 0 && i < len(header)-1 {
			sep[i] = "---:"
		}
	}
	line(sep)
	for _, r := range rows {
		line(r.cells())
	}
}

// issueNotes are the lines under the table that weigh each apply against the issue's floor, N/r +
// T, which leaves out the security group's transition (the table's floor, N/r + 2T, counts it).
func issueNotes(rows []*row) []string {
	var out []string
	for _, r := range rows {
		if r.issueFloor > 0 && r.wall > 0 {
			out = append(out, fmt.Sprintf("%s: against the issue's floor N/r + T = %.1f s, which leaves out the security group's transition that every instance create waits for: took %.2f x that",
				r.step, r.issueFloor.Seconds(), r.wall.Seconds()/r.issueFloor.Seconds()))
		}
	}
	return out
}
