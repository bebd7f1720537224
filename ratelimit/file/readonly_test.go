package file_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
)

func isDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

// readOnlyResult is what readOnlyScenario saw.
type readOnlyResult struct {
	WaitErrors []string
	Reports    []string // "" for a nil report
	Took       time.Duration
	Size       int64 // the file's, once the directory could be written again
	SizeErr    string
}

// readOnlyScenario makes dir read-only, lets a limiter at 100 per second grant 5 attempts in it
// (by the fallback: the file cannot be created, also when it is tried again every 10 ms
// meanwhile), makes dir writable again and lets it grant once more after its recheck period. The
// caller checks what it saw.
func readOnlyScenario(dir string) (res readOnlyResult, err error) {
	if err := os.Chmod(dir, 0o500); err != nil {
		return res, err
	}
	l, err := ratelimitfile.New(testToken, ratelimitfile.WithDir(dir), ratelimitfile.WithRate(100),
		ratelimitfile.WithErrorHandler(func(err error) {
			if err == nil {
				res.Reports = append(res.Reports, "")
			} else {
				res.Reports = append(res.Reports, err.Error())
			}
		}))
	if err != nil {
		return res, err
	}
	defer l.Close()
	ratelimitfile.SetRecheck(l, 10*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	for range 5 {
		if err := wait(ctx, l); err != nil {
			res.WaitErrors = append(res.WaitErrors, err.Error())
		}
	}
	res.Took = time.Since(start)
	if err := os.Chmod(dir, 0o700); err != nil {
		return res, err
	}
	time.Sleep(20 * time.Millisecond) // the recheck period
	if err := wait(ctx, l); err != nil {
		res.WaitErrors = append(res.WaitErrors, err.Error())
	}
	fi, err := os.Stat(l.Path())
	if err != nil {
		res.SizeErr = err.Error()
	} else {
		res.Size = fi.Size()
	}
	return res, nil
}

// readOnlyChild runs readOnlyScenario in envDir and prints what it saw.
func readOnlyChild() error {
	res, err := readOnlyScenario(os.Getenv(envDir))
	if err != nil {
		return fmt.Errorf("read-only scenario: %w", err)
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
