// Package computetest is a stateful in-memory fake of the whole Compute Resource Management API, for
// testing code that uses the compute SDK (or any HTTP client of the API) offline and in milliseconds.
//
//	srv := computetest.NewServer()
//	defer srv.Close()
//	c := srv.Client() // a *compute.Client wired to the fake
//	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{...})
//
// The fake is an independent reading of the API: its engine (state, routes, request decoding,
// validation, lifecycles, catalogue, faults), which cmd/compute-fake serves too, has its own wire
// types and rules and does not import the SDK, so that a mistake in the SDK's struct tags or
// validation fails the tests that run the SDK against it. Only this thin package, which hands out a
// ready *compute.Client, imports the SDK.
//
// The fake implements every operation of the compute family (45 in all:
// instances, their actions, snapshots and user metadata, security groups, floating IPs, images, SSH
// keys, volumes, filesystems, the snapshots collection, quotas, reservations and availability) with
// their status codes, envelopes and {code, message} error bodies: authentication (Bearer and the
// deprecated X-Auth-Token; a missing token is 401 with 02014, an unknown one 401 with 01204, a
// read-only token 403 with 02043 on writes), the stated conditions (update and snapshot only when
// active, destroy limited by status and protection, start only when stopped, volumes only when
// available), references to the catalogue it starts with (regions, instance types, images, SSH keys, volumes,
// reservations: see Catalog and DefaultCatalog, which uses the service's real region ids), and
// lifecycles:
//
//	instance:        creating -> active; stop: stopping -> stopped; start: starting -> active;
//	                 reset: resetting -> active; delete: deleting -> gone (404)
//	security group:  creating -> created
//	floating IP:     creating -> created (the address is assigned then)
//	volume:          creating -> created
//	filesystem:      creating -> created (the mount path and endpoints are assigned then)
//	snapshot:        imported or cloned: creating -> created; of an instance: created at once
//
// Transitions take the durations set by WithDurations, zero by default (a create responds
// "creating" and the next read shows "active"), on the server's clock: time.Now, which inside a
// testing/synctest bubble is fake time (serve with WithInMemoryNetwork there), or any clock given
// with WithClock. Advance moves the clock forward.
//
// # Where the API's documents are silent
//
// The fake makes these choices, and keeps them consistent:
//
//   - Statuses: a create responds exactly 201, a read or update exactly 200, both with
//     Content-Type application/json; a delete and an instance action respond exactly 204 with no
//     body and no Content-Type. The API gives no status per error code: a refused state change is
//     400 (it lists no 409); references in a body to things that do not exist are 400
//     with their not-found code, while a missing resource named by the path is 404; an unknown route
//     (or method) is 404 with 02001.
//   - A 429 (the rate limit, or an injected 429 without a code) carries {"code": "02009",
//     "message": ...}: the API names no code for it, and 02009 ("not allowed") is the documented
//     code that fits a request refused unprocessed. It comes with a Retry-After header in seconds.
//   - Bodies: unknown fields are refused with 02002, stricter than the service, so that a misspelt
//     field fails in tests; keys match exactly (the fake does not accept "NAME" for "name"). A JSON
//     value of the wrong type is 02002; a missing required field is 02003. Request fields are not
//     nullable: an optional field sent as null counts as left out. A resource the path names is
//     looked up first (404 when there is none), then the body is read.
//   - Values sent in a create come back byte for byte (no trimming, no case change, no HTML
//     escaping); timestamps are RFC 3339 in UTC with milliseconds ("2026-01-15T09:00:00.000Z");
//     integers are JSON integers; a request integer with a fraction or exponent is refused.
//   - Security groups show status on every body (create, get, list, update), and is_internal
//     (always false) and updated_at. PUT is the update the API documents (name and rules required,
//     description left out becomes empty); PATCH, what the service's published
//     description and own clients use, is accepted too: name, description and rules are all optional
//     and only those given change, but an empty PATCH is refused with 02003, as the floating IP's is.
//     region is refused in both with 02004. After an update the status is unchanged.
//   - Security-group rules: protocol icmp, tcp, udp or all; direction ingress or egress; a tcp, udp
//     or all rule must carry both port_range_min and port_range_max keys, null meaning all ports;
//     only icmp may leave them out. Ports are both null or both integers 0..65535 with min <= max.
//     Rules come back in the order sent, every rule with both port keys (null when left out). Any
//     invalid rule, an unknown key in a rule included, is 400 with 02028.
//   - Instances show os_type (from the image) and reservation_id (null unless one was given);
//     private_ip and public_ip are null until the instance first becomes active. The create accepts
//     the service's optional fields (billing_type with its six
//     values, destroy_on_shutdown, public_ipv6, reservation_id, reuse_long_term_subscription,
//     metadata.user_data). A reservation_id must name a catalogue reservation (02067) of the
//     instance's type and region (02020) with room left (02010). An instance update's
//     security_groups and volumes accept the full list or the service's {"attach": id} or
//     {"detach": id}, one of the two only, each alone in the body if wanted.
//   - User metadata (GET .../user-metadata) is the metadata object given at create (startup_script,
//     user_data) as sent, or {} when none was given; it is not wrapped.
//   - SSH keys are never wrapped, unlike every other resource. value comes back byte for byte;
//     fingerprint is "SHA256:" and the unpadded base64 SHA-256 of the key; type is the algorithm and
//     size its bits (an RSA key's modulus). A private key is 02053, a value not of the shape
//     "<algorithm> <base64> [comment]" 02048, an algorithm the fake does not know 02005. Deleting a
//     key leaves the instances created with it unchanged; an instance create that names a key that
//     does not exist is 400 with 02047.
//   - Volumes show the service's statuses: a new volume is creating, then created. They have no
//     "available", the status the API's attach condition names: the fake takes it to be a created
//     volume that no instance holds, so attaching one that is held or still creating is 02032, a catalogue volume marked locked 02046. A volume is attached
//     to one instance at a time, and shows it in instances as {id, name}. Deleting an instance
//     releases its volumes; deleting an attached volume is 02022. The type defaults to ssd; a type
//     other than hdd or ssd is 02054. A size that shrinks is 02004.
//   - Filesystems: type vast only (the default; any other 02004). mount_base_path and
//     mount_endpoint_range are null while creating and set once created. A shrinking size is 02068.
//     The API has no filesystem-not-found code: a missing filesystem is 404 with 02004.
//   - Updates of SSH keys, volumes, filesystems and snapshots change only the fields given; an
//     empty body changes nothing and responds 200 (the service does not say it refuses it).
//   - The snapshots collection lists every snapshot, those taken of an instance included; a deleted
//     instance's snapshots stay. Import takes an http or https url and os_type linux (the default)
//     or windows; clone needs a created source (02009) and shows it as source_snapshot_id. A
//     snapshot that an instance uses as its image cannot be deleted (02016).
//   - Quotas: one entry per key instances, floating_ips, volumes, filesystems, ssh_keys and
//     snapshots, used counting what the fake holds; capacity is the WithLimits value, or 2147483647
//     when unlimited. A create past a limit is 400 with 02010 (floating IPs: 02049).
//   - Availability lists every catalogue instance type, available where it is offered in the region
//     and while the instance quota has room (count is the room left when a limit is set). placement
//     is echoed; an unknown region is 400 with 02004.
//   - Actions: stop and reset while active, start while stopped, and stop while starting or in
//     error (the service's own Terraform provider sends stop in those states); any other stop or
//     reset is 400 with 02009, a start of an active instance 02029, of any other but a stopped one
//     02039. GET .../actions lists exactly the actions accepted.
//   - A DELETE of an instance already deleting responds 204 again (DELETE is idempotent); 02013 is
//     for an instance that never became active, 02069 for one in the middle of a transition.
//   - Snapshots are complete at once (the API shows them only "created"); size is the disk size in
//     GiB.
//   - Addresses: public ones (an instance's public_ip, a floating IP's ip_address) come from the
//     ranges set aside for documentation, 192.0.2.0/24, 198.51.100.0/24 and 203.0.113.0/24 (.1 to
//     .254 of each, 762 in all), then, for a fake filled by a load test, from the range set aside
//     for benchmarking, 198.18.0.0/15 (130,048 more); none of them is a private network's or a real
//     host's. Each is held by one resource until it is deleted; private ones come from 10.0.0.0/16.
//     An instance with a floating IP shows its address and holds none of its own. When every one
//     is held, an instance becomes active with public_ip null and a floating IP create is refused
//     with 02049.
//
// # Faults, the request log and the control endpoint
//
// For tests of failure handling, Inject and FailNext add faults (an error status, latency, a dropped
// connection, or "process then drop" where the request takes effect but no response arrives), and
// Requests returns every request received, with its escaped path, body and response status. The
// token is never recorded. WithRateLimit enforces the service's rate limit. Reset returns the
// server to its fresh state.
//
// WithControl (compute-fake's -control-token) enables the same from any language over HTTP, and
// more: list and remove fault rules, force any resource's status, set and read the quotas. It lives
// under /_fake/, a path the API does not use, with its own token in the X-Fake-Control-Token header;
// without the option those paths are 404 like any unknown route. A fault rule that could never hit
// a request (a lower-case method, a URL for a path, an invalid pattern) is refused there with 400.
// GET /_fake/openapi.yaml describes its routes, and docs/compute-fake.md lists them.
//
// cmd/compute-fake serves the same fake as a standalone program for other languages and tools.
package computetest
