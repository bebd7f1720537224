package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/compute-sdk/compute-go/internal/fakelog"
)

// mainStep applies N instances, plans with nothing to change and destroys them.
func (h *harness) mainStep(ctx context.Context, f *fakeServer) error {
	s, n := h.s, h.s.instances
	dir := filepath.Join(h.tmp, "main")
	if err := writeStack(dir, h.stack(f, 0, n, "scalerun")); err != nil {
		return err
	}
	env := tfEnv(h.cli, ourTokenEnv+"="+f.token)

	apply, err := h.measure(ctx, f, "apply", s.applyFloor(n), func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(s.applyFloor(n)), h.applyArgs()...)}
	})
	if err != nil {
		return err
	}
	apply.row.ratioMax = s.ratio
	apply.row.issueFloor = s.issueApplyFloor(n)
	apply.row.checkCommon(s)
	apply.row.want(apply.row.web == n, "%d web-* instances, not %d", apply.row.web, n)
	h.rows = append(h.rows, apply.row)
	h.addErrorNote("apply", apply.results...)

	plan, err := h.measure(ctx, f, "plan", s.planFloor(n), func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(s.planFloor(n)), "plan", "-detailed-exitcode", "-input=false", "-no-color")}
	})
	if err != nil {
		return err
	}
	// plan -detailed-exitcode ends with 2 when there are changes.
	if p := plan.results[0]; p.code == 2 {
		plan.row.want(false, "the plan has changes: %s", strings.Join(p.tail(1), ""))
		plan.row.errors-- // not an error, a change: counted once above
	}
	plan.row.checkCommon(s)
	plan.row.want(plan.row.c.total <= planRequests(n), "%d requests, over %d", plan.row.c.total, planRequests(n))
	h.rows = append(h.rows, plan.row)
	h.addErrorNote("plan", plan.results...)

	destroy, err := h.measure(ctx, f, "destroy", s.destroyFloor(n), func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(s.destroyFloor(n)), h.destroyArgs()...)}
	})
	if err != nil {
		return err
	}
	destroy.row.ratioMax = s.ratio
	destroy.row.checkCommon(s)
	destroy.row.want(destroy.all == 0, "%d instances left", destroy.all)
	h.rows = append(h.rows, destroy.row)
	h.addErrorNote("destroy", destroy.results...)
	return nil
}

// stack is a configuration of ours against f.
func (h *harness) stack(f *fakeServer, first, count int, name string) stackConfig {
	return stackConfig{fl: h.ours, url: f.url, rate: h.s.rate, first: first, count: count, name: name}
}

// killEvery is how often the crash step's first apply reads the request log to kill it once half
// the creates were sent (a create every 100 ms at the rate).
const killEvery = 100 * time.Millisecond

// crashStep applies N instances with adopt_existing, kills terraform and the provider once about
// half the creates were sent, and applies again: the account must then hold exactly N instances,
// made once each, with no error. A destroy cleans up.
func (h *harness) crashStep(ctx context.Context, f *fakeServer) error {
	s, n := h.s, h.s.instances
	dir := filepath.Join(h.tmp, "crash")
	cfg := h.stack(f, 0, n, "scalerun")
	cfg.adoptExisting = true
	if err := writeStack(dir, cfg); err != nil {
		return err
	}
	env := tfEnv(h.cli, ourTokenEnv+"="+f.token)

	var creates, tfPID int
	var providers []int
	first, err := h.measure(ctx, f, "crash: the killed apply", 0, func(w *logWatch) []tfResult {
		p, err := startTerraform(s.terraform, dir, env, h.applyArgs()...)
		if err != nil {
			return []tfResult{{code: -1, out: "Error: " + err.Error() + "\n"}}
		}
		tfPID = p.cmd.Process.Pid
		tick := time.NewTicker(killEvery)
		defer tick.Stop()
	watch:
		for creates < (n+1)/2 {
			select {
			case <-p.done:
				break watch
			case <-ctx.Done():
				break watch
			case <-tick.C:
				w.read() // more often than logEvery: this apply is killed, not timed
				creates = w.counts().instances
			}
		}
		if creates >= (n+1)/2 {
			providers = p.crash()
		}
		return []tfResult{p.wait(ctx, commandBound(s.applyFloor(n)))}
	})
	if err != nil {
		return err
	}
	if providers == nil {
		h.note("crash: the apply was not killed: it ended before %d creates were sent", (n+1)/2)
	} else {
		h.note("crash: terraform (PID %d) and the provider (PID %v) killed with SIGKILL once %d instance creates were sent; the account then held %d web-* instances",
			tfPID, providers, creates, first.row.web)
	}

	second, err := h.measure(ctx, f, "crash: apply again", 0, func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(s.applyFloor(n)), h.applyArgs()...)}
	})
	if err != nil {
		return err
	}
	r := second.row
	r.step = "crash (apply again)"
	both := count(append(append([]fakelog.Entry(nil), first.log.All...), second.log.All...))
	r.c.duplicates = both.duplicates // over both applies
	r.checkCommon(s)
	r.want(providers != nil, "the apply was not killed halfway")
	r.want(r.web == n, "%d web-* instances, not %d", r.web, n)
	h.rows = append(h.rows, r)
	h.addErrorNote("crash (apply again)", second.results...)
	h.note("crash: the second apply's last lines:")
	for _, l := range second.results[0].tail(3) {
		h.note("    %s", l)
	}
	h.note("crash: web-* instances after it: %d (of %d), made by both applies: %d + %d creates, duplicates %d",
		r.web, n, first.row.c.instances, second.row.c.instances, both.duplicates)
	return h.cleanUp(ctx, f, "crash", dir, env)
}

// cleanUp destroys what a step made, recording a row only when it fails.
func (h *harness) cleanUp(ctx context.Context, f *fakeServer, step, dir string, env []string) error {
	d, err := h.measure(ctx, f, step+": destroy", 0, func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(h.s.destroyFloor(h.s.instances)), h.destroyArgs()...)}
	})
	if err != nil {
		return err
	}
	d.row.want(d.row.errors == 0, "%d errors", d.row.errors)
	d.row.want(d.all == 0, "%d instances left", d.all)
	if len(d.row.problems) > 0 {
		h.rows = append(h.rows, d.row)
		h.addErrorNote(step+": destroy", d.results...)
	}
	return nil
}

// lostStep applies N instances while the fake drops the responses of some creates after
// processing them: the apply must succeed with exactly N instances, none made twice.
func (h *harness) lostStep(ctx context.Context, f *fakeServer) error {
	s, n := h.s, h.s.instances
	dir := filepath.Join(h.tmp, "lost")
	if err := writeStack(dir, h.stack(f, 0, n, "scalerun")); err != nil {
		return err
	}
	env := tfEnv(h.cli, ourTokenEnv+"="+f.token)
	if err := f.loseCreateResponses(s.lostShare); err != nil {
		return err
	}
	m, err := h.measure(ctx, f, "lost", s.applyFloor(n), func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(s.applyFloor(n)), h.applyArgs()...)}
	})
	if err != nil {
		return err
	}
	r := m.row
	r.issueFloor = s.issueApplyFloor(n)
	r.step = fmt.Sprintf("lost (%d responses dropped)", r.c.dropped)
	r.checkCommon(s)
	r.want(r.c.dropped > 0, "no create response was dropped")
	r.want(r.web == n, "%d web-* instances, not %d", r.web, n)
	h.rows = append(h.rows, r)
	h.addErrorNote("lost", m.results...)
	if err := f.clearFaults(); err != nil {
		return err
	}
	return h.cleanUp(ctx, f, "lost", dir, env)
}

// stacksStep applies several state directories at once on one token, each with its share of the
// N instances and a provider sharing the budget through Redis, which is killed midway through the
// apply and started again; then destroys them at once.
func (h *harness) stacksStep(ctx context.Context, f *fakeServer) error {
	s, n := h.s, h.s.instances
	rs, err := startRedis(s.redisServer)
	if err != nil {
		return err
	}
	defer rs.kill()
	env := tfEnv(h.cli, ourTokenEnv+"="+f.token)
	dirs := make([]string, s.stacks)
	for i := range dirs {
		first, last := i*n/s.stacks, (i+1)*n/s.stacks
		dirs[i] = filepath.Join(h.tmp, fmt.Sprintf("stack-%d", i))
		cfg := h.stack(f, first, last-first, fmt.Sprintf("stack-%d", i))
		cfg.redisURL = rs.url()
		if err := writeStack(dirs[i], cfg); err != nil {
			return err
		}
	}
	all := func(args []string, bound time.Duration) []tfResult {
		results := make([]tfResult, len(dirs))
		var wg sync.WaitGroup
		for i, dir := range dirs {
			wg.Go(func() { results[i] = h.terraform(ctx, dir, env, bound, args...) })
		}
		wg.Wait()
		return results
	}

	var killedAt, backAt time.Duration
	var redisErr error
	apply, err := h.measure(ctx, f, fmt.Sprintf("stacks: %d applies at once", s.stacks), s.applyFloor(n), func(*logWatch) []tfResult {
		start := time.Now()
		stop := make(chan struct{})
		var bg sync.WaitGroup
		bg.Go(func() {
			select {
			case <-stop:
				return
			case <-time.After(s.applyFloor(n) / 2):
			}
			rs.kill()
			killedAt = time.Since(start)
			select {
			case <-stop:
			case <-time.After(s.down):
			}
			redisErr = rs.restart()
			backAt = time.Since(start)
		})
		results := all(h.applyArgs(), commandBound(s.applyFloor(n)))
		close(stop)
		bg.Wait()
		return results
	})
	if err != nil {
		return err
	}
	apply.row.ratioMax = s.ratio
	apply.row.issueFloor = s.issueApplyFloor(n)
	apply.row.checkCommon(s)
	apply.row.want(apply.row.web == n, "%d web-* instances, not %d", apply.row.web, n)
	apply.row.want(killedAt > 0 && killedAt < apply.row.wall, "Redis was not restarted during the apply")
	apply.row.want(redisErr == nil, "Redis did not start again: %v", redisErr)
	h.rows = append(h.rows, apply.row)
	h.addErrorNote("stacks: apply", apply.results...)
	if killedAt > 0 {
		h.note("stacks: Redis killed %.1f s into the apply, back at %.1f s", killedAt.Seconds(), backAt.Seconds())
	}
	destroy, err := h.measure(ctx, f, fmt.Sprintf("stacks: %d destroys at once", s.stacks), s.destroyFloor(n), func(*logWatch) []tfResult {
		return all(h.destroyArgs(), commandBound(s.destroyFloor(n)))
	})
	if err != nil {
		return err
	}
	destroy.row.ratioMax = s.ratio
	destroy.row.checkCommon(s)
	destroy.row.want(destroy.all == 0, "%d instances left", destroy.all)
	h.rows = append(h.rows, destroy.row)
	h.addErrorNote("stacks: destroy", destroy.results...)
	return nil
}

// officialRow runs the service's own provider on the same configuration against a fake of its
// own: how far its apply gets and in what time, and what its destroy leaves behind. Its bounds are
// not checked.
func (h *harness) officialRow(ctx context.Context) error {
	s, n := h.s, h.s.instances
	f, err := startFake(h.fakeBin, s, h.stderr)
	if err != nil {
		return err
	}
	defer f.stop()
	dir := filepath.Join(h.tmp, "official")
	cfg := stackConfig{fl: h.official, url: f.url, first: 0, count: n, name: "scalerun"}
	if err := writeStack(dir, cfg); err != nil {
		return err
	}
	env := tfEnv(h.cli, officialToken+"="+f.token)
	apply, err := h.measure(ctx, f, "official provider: apply", s.applyFloor(n), func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(s.applyFloor(n)), h.applyArgs()...)}
	})
	if err != nil {
		return err
	}
	apply.row.ours = false
	h.rows = append(h.rows, apply.row)
	destroy, err := h.measure(ctx, f, "official provider: destroy", s.destroyFloor(n), func(*logWatch) []tfResult {
		return []tfResult{h.terraform(ctx, dir, env, commandBound(s.destroyFloor(n)), h.destroyArgs()...)}
	})
	if err != nil {
		return err
	}
	destroy.row.ours = false
	h.rows = append(h.rows, destroy.row)
	h.note("official provider: its apply created %d of %d instances in %.1f s with %d errors; its destroy left %d behind",
		apply.row.web, n, apply.row.wall.Seconds(), apply.row.errors, destroy.all)
	h.addErrorNote("official provider: apply", apply.results...)
	h.addErrorNote("official provider: destroy", destroy.results...)
	return nil
}
