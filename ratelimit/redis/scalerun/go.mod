module github.com/compute-sdk/compute-go/ratelimit/redis/scalerun

go 1.25.0

require (
	github.com/compute-sdk/compute-go v0.2.0
	github.com/compute-sdk/compute-go/ratelimit/redis v0.2.0
	github.com/redis/go-redis/v9 v9.17.2
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/time v0.15.0 // indirect
)
