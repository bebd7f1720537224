package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// redisServer is a redis-server of the run's own on a loopback port, without persistence, which
// can be killed and started again on the same port.
type redisServer struct {
	bin  string
	port int
	cmd  *exec.Cmd     // nil while it is down
	done chan struct{} // closed once cmd has exited
}

// startRedis starts a redis-server on a free loopback port.
func startRedis(bin string) (*redisServer, error) {
	var err error
	for range 5 {
		var port int
		if port, err = freePort(); err != nil {
			continue
		}
		r := &redisServer{bin: bin, port: port}
		if err = r.start(); err == nil {
			return r, nil
		}
	}
	return nil, fmt.Errorf("starting %s: %w", bin, err)
}

// addr is the server's address.
func (r *redisServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

// start starts the server on its port and waits until it answers, at most 5 s.
func (r *redisServer) start() error {
	cmd := exec.Command(r.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(r.port), "--save", "",
		"--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	rdb := goredis.NewClient(&goredis.Options{Addr: r.addr(), MaxRetries: -1})
	defer rdb.Close()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server on port %d exited: %v", r.port, err)
		case <-time.After(20 * time.Millisecond):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			r.cmd, r.done = cmd, make(chan struct{})
			go func(done chan struct{}) { <-exited; close(done) }(r.done)
			return nil
		}
	}
	_ = cmd.Process.Kill()
	<-exited
	return errors.New("redis-server did not answer within 5 s")
}

// kill kills the server at once, as a crash would, and waits until it is gone.
func (r *redisServer) kill() {
	if r.cmd != nil {
		_ = r.cmd.Process.Kill()
		<-r.done
		r.cmd = nil
	}
}

// restart starts the server again on the same port, trying for a second.
func (r *redisServer) restart() error {
	var err error
	for range 5 {
		if err = r.start(); err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
}

// freePort returns a loopback port free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// url is the server's URL, as the provider's redis_url takes it.
func (r *redisServer) url() string { return "redis://" + r.addr() + "/0" }
