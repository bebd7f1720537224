// Package memnet is an in-memory network for tests: an httptest.Server served over net.Pipe
// connections, so that a whole HTTP exchange runs inside a testing/synctest bubble, where time is
// fake and a test that waits 30 seconds of backoff takes microseconds. It binds no socket at all.
package memnet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Listener is a net.Listener whose connections come from Dial.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewListener returns an open Listener.
func NewListener() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next Dial.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and makes later Dials fail.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is a loopback address, so URLs built from it look like a local server's.
func (l *Listener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80} }

// Dial connects to the listener, whatever the address; it has the signature of
// http.Transport.DialContext.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: "memnet", Err: errors.New("connection refused")}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// NewServer starts h on a fresh Listener and returns the server and an *http.Client that reaches it.
// Both are closed when the test ends through the returned cleanup function.
func NewServer(h http.Handler) (*httptest.Server, *http.Client, func()) {
	l := NewListener()
	// Built by hand: httptest.NewUnstartedServer would open a loopback socket first.
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	tr := &http.Transport{DialContext: l.Dial}
	return srv, &http.Client{Transport: tr}, func() {
		tr.CloseIdleConnections()
		srv.Close()
	}
}
