module github.com/compute-sdk/compute-go/cmd/compute

go 1.25.0

require (
	github.com/compute-sdk/compute-go v0.2.0
	github.com/compute-sdk/compute-go/ratelimit/file v0.2.0
	github.com/compute-sdk/compute-go/ratelimit/redis v0.2.0
	github.com/creack/pty v1.1.24
	github.com/redis/go-redis/v9 v9.17.2
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/term v0.36.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
