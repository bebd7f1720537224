package file_test

import (
	"context"
	"testing"

	compute "github.com/compute-sdk/compute-go"
)

// BenchmarkWait is what a grant costs, at a rate high enough (a million per second) that the
// pacing never waits: the process's own limiter (limiter=process, the baseline), this one
// (limiter=file: a lock, a read and a write of the file), and this one with the pacing from
// responses on (limiter=file-armed: its done writes the response too).
func BenchmarkWait(b *testing.B) {
	const rps = 1e6
	ctx := context.Background()
	run := func(b *testing.B, l compute.Limiter) {
		for b.Loop() {
			done, err := l.Wait(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if done != nil {
				done()
			}
		}
	}
	b.Run("limiter=process", func(b *testing.B) {
		l, err := compute.NewLimiter(rps, 1)
		if err != nil {
			b.Fatal(err)
		}
		run(b, l)
	})
	b.Run("limiter=file", func(b *testing.B) {
		l, _ := newLimiter(b, b.TempDir(), rps)
		run(b, l)
	})
	b.Run("limiter=file-armed", func(b *testing.B) {
		l, _ := newLimiter(b, b.TempDir(), rps)
		l.Throttled(ctx, 0)
		run(b, l)
	})
}
