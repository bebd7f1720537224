// Package compute is the Go SDK for the Compute Resource Management API, its 45 operations:
// instances (virtual machines), their actions, user metadata and snapshots, the account's
// snapshots, SSH keys, volumes, filesystems, security groups, floating IPs, images, quotas,
// reservations and instance availability per region.
//
// This page is a tour in the order a program meets things: a client, a call, its errors, retries
// and pacing, lists, waits, jobs, observing, testing. The guides go further: [Configuration],
// [Errors], [Retries and pacing], [Jobs], [Operations] (every operation with the method that
// sends it), [Observability], [Testing], [compute-fake] and [Safety].
//
// # A client
//
// A [Client] holds the token and the base URL. It is immutable and safe for concurrent use: make
// one per token and share it.
//
//	c, err := compute.NewClient(token, compute.WithBaseURL("https://api.example.com"))
//	// or compute.NewClientFromEnv(), reading COMPUTE_API_TOKEN and COMPUTE_API_URL
//
// The token is sent as "Authorization: Bearer <token>" ([WithLegacyAuthHeader] switches to the
// deprecated X-Auth-Token), only to the base URL's scheme and host, never after a redirect to another
// host. It never appears in an error, a log line or the %v of any value. A plain-http base URL is
// refused unless it is loopback or [WithInsecureHTTP] is given. The With options set the rest:
// timeouts, retries, the rate limit, logging.
//
// # A call
//
// Each kind of resource has a service on the client ([Client.Instances], [Client.Volumes], ...)
// with methods named for what they do. Create an instance and wait until it runs:
//
//	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
//		Name: "web-1", Hostname: "web-1", Type: "vcpu-2_memory-4g", Region: "NORD-NO-KRS-1",
//		Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"},
//	})
//	if err != nil {
//		return err
//	}
//	inst, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
//
// The package's Example runs this against the fake of package computetest. Optional fields of an
// update are pointers ([Ptr]); a list field left nil keeps the list and an empty one clears it.
//
// An endpoint the SDK does not type yet, or a field it does not know, is reached with [Client.Do],
// which sends a [RawRequest] with every rule below: retries, pacing, errors, observers.
//
// # Errors
//
// Every non-2xx response is an [*APIError] with the status, the service's [ErrorCode], the message,
// the request ID and the number of attempts. Match it with errors.Is against a sentinel
// ([ErrNotFound], [ErrConflict], [ErrRateLimited], ...) or a code ([CodeTerminationProtected], ...).
// Input the SDK can tell is wrong is refused before any request with a [*ValidationError] naming
// the field in its JSON spelling.
//
// # Retries, and why a POST is not retried
//
// A 429 means the request was not processed, so it is retried for every method after the wait the
// service asks (Retry-After). A 5xx, a network error or a response cut off mid-body is retried only
// for idempotent operations: GET, PUT, DELETE and PATCH (but for an attach or detach). A POST (an
// instance create, which is billed; an action; a snapshot) may have been processed when its
// response is lost, so it is re-sent only when it provably was not written (no connection, a
// failed TLS handshake); otherwise the error matches [ErrOutcomeUnknown], and the caller should look
// the resource up before trying again, or let CreateOnce do it (below). A DELETE retried and then
// answered with the resource's not-found 404 succeeds. Waits use exponential backoff with full
// jitter ([RetryPolicy]).
//
// # Rate limiting
//
// A client-side limiter gates every attempt, retries included, for all goroutines sharing the
// client: 10 requests per second by default, the rate the service allows ([WithRateLimit],
// [WithoutRateLimit]). After a 429 it also paces from the responses, and further 429s pause the
// whole client, so that concurrent callers back off together; [NewLimiter] describes the pacing.
// [WithLimiter] shares one limiter between clients, or, with the module
// github.com/compute-sdk/compute-go/ratelimit/redis, between processes.
//
// # Pagination
//
// List methods return one [Page] with the service's counts. All methods return an iter.Seq2 that
// fetches pages as the loop reaches them and cannot loop forever: it stops on an empty or short
// page, at total_count, and with an error when the service ignores the page parameter.
//
//	for inst, err := range c.Instances.All(ctx, nil) { ... }
//
// # Waiting
//
// The WaitForStatus methods poll at once (a wait that starts while the client's other requests wait
// for the rate first waits, up to an interval, for another wait to share its polling with), then
// every second while the client has nothing else to send, backing off exponentially with jitter
// while other requests need the rate or polls fail ([WithPollInterval]), until the target status, a failure status (an instance in "error"), a
// non-temporary error or the end of the context, which return a [*WaitError]; [OnUpdate] reports
// every poll. The WaitForDeletion methods wait until a deleted resource is gone. Waits on one kind
// of resource that run at once share their polling: one walk of the list serves them all
// ([WaitAll]).
//
// # Jobs: create once, delete and wait
//
// The CreateOnce methods make the resource's name the create's idempotency key: they adopt the
// resource with that name or create it, never twice ([InstancesService.CreateOnce]). The
// DeleteAndWait methods delete as soon as the service allows and wait until the resource is gone
// ([InstancesService.DeleteAndWait], which also gives the order of a teardown).
//
// # Observability
//
// An [Observer] ([WithObserver]) is told about every call, attempt, poll and page; the module
// github.com/compute-sdk/compute-go/otel builds OpenTelemetry instrumentation on it.
// [CaptureResponse] records how one call went. [WithLogger] logs each attempt at debug level;
// [WithDebugDump] writes whole exchanges, without the token.
//
// # Testing with computetest
//
// Package computetest (github.com/compute-sdk/compute-go/computetest) is a stateful in-memory fake
// of the whole API, with its status codes and error bodies, lifecycles, the rate limit, fault
// injection (such as a request processed whose response is lost) and a request log. Server.Client
// returns a Client wired to it; command compute-fake serves the same fake on a port.
//
//	srv := computetest.NewServer()
//	defer srv.Close()
//	c := srv.Client()
//
// [Configuration]: https://github.com/compute-sdk/compute-go/blob/main/docs/configuration.md
// [Errors]: https://github.com/compute-sdk/compute-go/blob/main/docs/errors.md
// [Retries and pacing]: https://github.com/compute-sdk/compute-go/blob/main/docs/retries.md
// [Jobs]: https://github.com/compute-sdk/compute-go/blob/main/docs/jobs.md
// [Operations]: https://github.com/compute-sdk/compute-go/blob/main/docs/operations.md
// [Observability]: https://github.com/compute-sdk/compute-go/blob/main/docs/observability.md
// [Testing]: https://github.com/compute-sdk/compute-go/blob/main/docs/testing.md
// [compute-fake]: https://github.com/compute-sdk/compute-go/blob/main/docs/compute-fake.md
// [Safety]: https://github.com/compute-sdk/compute-go/blob/main/docs/safety.md
package compute
