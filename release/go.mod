module github.com/compute-sdk/compute-go/release

go 1.25.0

require golang.org/x/mod v0.40.0
