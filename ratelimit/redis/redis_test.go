package redis_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// EnvRedisAddr names the variable holding the address of the Redis server the tests use
// (.ci/run starts one on loopback and sets it).
const EnvRedisAddr = "COMPUTE_TEST_REDIS_ADDR"

// missingRedis skips the test, or fails it in CI (CI=true), where a missing Redis is a fault of the
// CI's setup, not a reason to pass.
func missingRedis(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("CI=true and %s", why)
	}
	tb.Skip(why)
}

// sharedRedis returns a client of the Redis at COMPUTE_TEST_REDIS_ADDR, or of a redis-server the
// test starts when the variable is unset.
func sharedRedis(tb testing.TB) (*goredis.Client, string) {
	tb.Helper()
	addr := os.Getenv(EnvRedisAddr)
	if addr == "" {
		addr, _ = startRedis(tb)
	}
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	tb.Cleanup(func() { _ = rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		missingRedis(tb, "no Redis at "+addr+": "+err.Error())
	}
	return rdb, addr
}

// startRedis starts a redis-server of the test's own on a free loopback port, without persistence,
// and stops it when the test ends. It returns its address and process.
func startRedis(tb testing.TB) (string, *os.Process) {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		missingRedis(tb, "redis-server is not installed (apt-get install -y redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(tb, ln.Close())
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	require.NoError(tb, cmd.Start())
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(os.Kill)
		_ = cmd.Process.Signal(syscall.SIGCONT) // a stopped server cannot die until continued
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	defer rdb.Close()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return addr, cmd.Process
		}
		if time.Since(start) > 5*time.Second {
			tb.Fatalf("redis-server on %s did not start: %v", addr, err)
		}
	}
}
