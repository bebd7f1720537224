package compute

import (
	"context"
	"sync"
	"time"
)

// writeNote tells the limiter that let an attempt go when the attempt's request was written to
// its connection, or that the attempt ended without being written. The transport passes one to
// the limiter's Wait in the context; the default limiter spaces the next attempt from that instant
// rather than from its grant, since a request that a busy process writes late reaches the service
// late, and the next one, let go on time, would reach it less than an interval after. It also
// tells whether the request went on a new connection, which the service reads later still: it
// accepts the connection first.
type writeNote struct {
	mu    sync.Mutex
	f     func(at time.Time, traced, fresh bool) // set by the limiter that let the attempt go
	fired bool
}

// writeNoteKey is the context key of an attempt's writeNote.
type writeNoteKey struct{}

// withWriteNote returns ctx carrying n for the limiter's Wait.
func withWriteNote(ctx context.Context, n *writeNote) context.Context {
	return context.WithValue(ctx, writeNoteKey{}, n)
}

// writeNoteOf returns the writeNote in ctx, or nil.
func writeNoteOf(ctx context.Context) *writeNote {
	n, _ := ctx.Value(writeNoteKey{}).(*writeNote)
	return n
}

// on sets what the note calls when it fires.
func (n *writeNote) on(f func(at time.Time, traced, fresh bool)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.f = f
}

// fire calls the note's function once: at is when the request was written, traced whether the
// transport said so (false: the attempt ended, written or not, with no word of when), fresh
// whether it was written on a new connection.
func (n *writeNote) fire(at time.Time, traced, fresh bool) {
	n.mu.Lock()
	f, fired := n.f, n.fired
	n.fired = true
	n.mu.Unlock()
	if f != nil && !fired {
		f(at, traced, fresh)
	}
}

// OnWritten arranges for f to be called once with the time the attempt's request was written to
// its connection, for a [Limiter] of another package that paces from that instant (a request a
// busy process writes late reaches the service late), and whether it went on a new connection
// (newConn), which the service reads later still, since it accepts the connection first. ctx is
// the context the client passed to the limiter's Wait; call OnWritten before Wait returns. f is
// not called for an attempt that ended with no word of its write (a transport without the
// standard trace hooks). OnWritten reports whether ctx came from a client's attempt.
func OnWritten(ctx context.Context, f func(at time.Time, newConn bool)) bool {
	n := writeNoteOf(ctx)
	if n == nil || f == nil {
		return false
	}
	n.on(func(at time.Time, traced, fresh bool) {
		if traced {
			f(at, fresh)
		}
	})
	return true
}
