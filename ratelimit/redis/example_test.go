package redis_test

import (
	"context"
	"log"
	"os"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
)

// Every process that uses the token builds its client this way: they share one budget of 10
// requests per second in Redis, and a 429 seen by one of them pauses all.
func Example() {
	token := os.Getenv(compute.EnvToken)
	rdb := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	lim, err := ratelimit.New(rdb, token,
		// Redis down or slow: say so. Meanwhile each process sends in its own slots, and each
		// comes back to Redis as soon as it answers.
		ratelimit.WithErrorHandler(func(err error) {
			if err != nil {
				log.Printf("rate limiter: %v", err)
			} else {
				log.Print("rate limiter: Redis is back")
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer lim.Close() // leaves the budget at once: the others take this process's share
	c, err := compute.NewClientFromEnv(compute.WithLimiter(lim))
	if err != nil {
		log.Fatal(err)
	}
	inst, err := c.Instances.Get(context.Background(), "ins-000001")
	if err != nil {
		log.Fatal(err)
	}
	log.Print(inst.Status)
}
