package file

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAFullDiskFallsBackOnceAndReturns: a write that fails (a full disk) makes the limiter pace its
// process alone, reported once however often it tries the file again meanwhile; once writes
// succeed, it goes back to the file and reports it with nil.
func TestAFullDiskFallsBackOnceAndReturns(t *testing.T) {
	var full atomic.Bool
	full.Store(true)
	writeAt = func(f *os.File, b []byte, off int64) (int, error) {
		if full.Load() {
			return 0, syscall.ENOSPC
		}
		return f.WriteAt(b, off)
	}
	t.Cleanup(func() { writeAt = (*os.File).WriteAt })
	var mu sync.Mutex
	var reports []error
	l, err := New("tok-SECRET", WithDir(t.TempDir()), WithRate(100), WithErrorHandler(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, err)
	}))
	require.NoError(t, err)
	defer l.Close()
	l.recheck = 20 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	for range 10 { // 100 ms at the rate: the file is tried again several times
		_, err := l.Wait(ctx)
		require.NoError(t, err)
	}
	assert.GreaterOrEqual(t, time.Since(start), 9*time.Second/100*99/100, "the fallback paces at the rate")
	mu.Lock()
	require.Len(t, reports, 1, "%v", reports)
	require.Error(t, reports[0])
	assert.Contains(t, reports[0].Error(), "pacing this process alone")
	assert.Contains(t, reports[0].Error(), "no space left on device")
	assert.NotErrorIs(t, reports[0], ErrRefused)
	assert.NotContains(t, reports[0].Error(), "SECRET")
	assert.Equal(t, 1, strings.Count(reports[0].Error(), "ratelimit/file:"), "one prefix: %v", reports[0])
	mu.Unlock()

	full.Store(false)
	time.Sleep(30 * time.Millisecond)
	_, g, err := l.wait(ctx)
	require.NoError(t, err)
	assert.NotZero(t, g.seq, "granted by the file")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, reports, 2, "%v", reports)
	assert.NoError(t, reports[1], "back on the file")
}
