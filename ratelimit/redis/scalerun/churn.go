package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// churnReport is what the churn process prints when it ends.
type churnReport struct {
	During  int64    `json:"during"`  // requests it sent before the workers ended
	After   int64    `json:"after"`   // requests of its cleanup, after the workers ended
	Created int      `json:"created"` // instances it created
	Failed  int      `json:"failed"`  // its calls that failed
	Errors  []string `json:"errors"`
}

// churn is another job on the account during the run: at about a tenth of the rate it creates
// instances of names of its own, and deletes each once it is active (j.Settle after its create),
// one request a tick, until its standard input closes (the workers ended). Then it deletes what it still
// has, waiting for each to be gone.
func (j job) churn(c *compute.Client, sent func() int64, stop <-chan struct{}) churnReport {
	var rep churnReport
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		rep.Failed++
		if len(rep.Errors) < 5 {
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, j.Deadline))
	defer cancel()
	time.Sleep(time.Until(time.Unix(0, j.Start)))
	type live struct {
		id string
		at time.Time
	}
	var alive []live
	tick := time.NewTicker(time.Duration(float64(time.Second) / j.ChurnRate))
	defer tick.Stop()
	create := true
loop:
	for n := 0; ; {
		select {
		case <-stop:
			break loop
		case <-ctx.Done():
			break loop
		case <-tick.C:
		}
		if create || len(alive) == 0 || time.Since(alive[0].at) < j.Settle {
			name := fmt.Sprintf("churn-%s-%04d", j.RunID, n)
			n++
			inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{Name: name, Hostname: name,
				Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1", Image: "debian-12", SSHKeys: []string{"key-ci"}})
			if err != nil {
				fail(fmt.Errorf("churn create: %w", err))
			} else {
				rep.Created++
				alive = append(alive, live{inst.ID, time.Now()})
			}
		} else {
			if err := c.Instances.Delete(ctx, alive[0].id); err != nil {
				fail(fmt.Errorf("churn delete: %w", err))
			} else {
				alive = alive[1:]
			}
		}
		create = !create
	}
	rep.During = sent()
	// Clean up: every instance it still has, once active, deleted and waited for.
	ids := make([]string, len(alive))
	for i, a := range alive {
		ids[i] = a.id
	}
	_ = compute.WaitAll(ctx, ids, func(ctx context.Context, id string) error {
		if _, err := c.Instances.WaitForStatus(ctx, id, compute.InstanceStatusActive); err != nil {
			fail(fmt.Errorf("churn cleanup: %w", err))
			return err
		}
		if err := c.Instances.DeleteAndWait(ctx, id); err != nil {
			fail(fmt.Errorf("churn cleanup: %w", err))
			return err
		}
		return nil
	})
	rep.After = sent() - rep.During
	return rep
}

// untilEOF returns a channel closed when r reaches its end (or fails).
func untilEOF(r io.Reader) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(r))
		close(ch)
	}()
	return ch
}
