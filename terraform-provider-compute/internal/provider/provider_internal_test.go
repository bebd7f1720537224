package provider

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloseClosesTheRedisLimiters: Close, which main calls once Terraform has stopped the provider,
// closes every Redis limiter the process made (a closed one has left the token's budget, so the
// other processes on the token take its share at once instead of keeping its slots clear for
// seconds after it exits), and a later configuration makes a new one. The Redis here is one that
// cannot be reached: Close still ends, within the limiter's timeout.
func TestCloseClosesTheRedisLimiters(t *testing.T) {
	ctx := context.Background()
	const redisURL = "redis://127.0.0.1:1/0"
	a, err := sharedLimiter(ctx, redisURL, "tok-close-a", 10)
	require.NoError(t, err)
	b, err := sharedLimiter(ctx, redisURL, "tok-close-b", 10)
	require.NoError(t, err)
	again, err := sharedLimiter(ctx, redisURL, "tok-close-a", 10)
	require.NoError(t, err)
	require.Same(t, a, again, "one limiter per URL, token and rate while the process lives")

	_ = Close() // leaving an unreachable Redis fails; the limiters are closed all the same
	for _, lim := range []any{a, b} {
		_, err := lim.(interface {
			Wait(context.Context) (func(), error)
		}).Wait(ctx)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "closed")
	}
	fresh, err := sharedLimiter(ctx, redisURL, "tok-close-a", 10)
	require.NoError(t, err)
	t.Cleanup(func() { _ = Close() })
	assert.NotSame(t, a, fresh, "a configuration after Close makes a new limiter")
}
