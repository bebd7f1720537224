package file

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// Hooks for the tests of package file_test.

// SetRecheck sets how long after a failure l tries the file again.
func SetRecheck(l *Limiter, d time.Duration) { l.recheck = d }

// WaitGrant is Wait, which also returns the grant's due time and number in the budget (zero when
// the fallback granted).
func WaitGrant(ctx context.Context, l *Limiter) (done func(), due time.Time, seq uint64, err error) {
	done, g, err := l.wait(ctx)
	return done, g.due, g.seq, err
}

// LockPath opens the file at path and takes its lock as the limiter does, waiting up to lockTimeout.
func LockPath(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lock(context.Background(), f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = unlock(f); _ = f.Close() }, nil
}

// Budget is what a budget's record holds, for the tests.
type Budget struct {
	Step, Tat, Until, Sent, Resp, MinRTT, WideAt, Wide int64
	Seq                                                uint64
	Armed                                              bool
}

// Encode returns b as the file's record.
func (b Budget) Encode() []byte {
	return state{step: b.Step, tat: b.Tat, until: b.Until, sent: b.Sent, resp: b.Resp, minRTT: b.MinRTT,
		wideAt: b.WideAt, wide: b.Wide, seq: b.Seq, armed: b.Armed}.encode()
}

// ReadBudget reads the budget in the file at path, at the current time.
func ReadBudget(path string) (Budget, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Budget{}, err
	}
	s, err := decode(b, time.Now().UnixNano())
	return Budget{s.step, s.tat, s.until, s.sent, s.resp, s.minRTT, s.wideAt, s.wide, s.seq, s.armed}, err
}

// Step is the interval at rps with its headroom.
func Step(rps float64) time.Duration { return time.Duration(spacing(intervalOf(rps), 0)) }

// RecordSize is the size of the file.
const RecordSize = recordSize

// WithDirPath is the path of token's file in dir.
func WithDirPath(dir, token string) string { return filepath.Join(dir, Name(token)) }
