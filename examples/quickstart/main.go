// Command quickstart runs the SDK's main flow: list images, create an SSH key, a security group and
// a floating IP, create an instance with all three, wait until it is active (showing each status),
// snapshot it and wait for the snapshot, stop and start the instance, and delete everything it
// made, snapshot and key included, also when a step fails. It ends by counting every collection.
//
//	go run ./examples/quickstart
//
// With no COMPUTE_API_URL and COMPUTE_API_TOKEN set it runs against an embedded computetest server
// that starts as an empty account, and says so; every count at the end is then zero. With them set
// it talks to that service; because an instance costs money there, it refuses to create anything
// unless given -yes. COMPUTE_REGION, COMPUTE_TYPE and COMPUTE_IMAGE choose what to create (defaults
// NORD-NO-KRS-1, vcpu-2_memory-4g, ubuntu-24.04), and -public-key the file of the OpenSSH public key
// to install (otherwise a new ed25519 key whose private half is thrown away).
package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/examples/internal/setup"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	yes := fs.Bool("yes", false, "allow creating billed resources on a real service")
	publicKey := fs.String("public-key", "", "file of the OpenSSH public key to install (default: a new key nobody holds)")
	name := fs.String("name", "quickstart", "name prefix of everything created")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	key, err := readPublicKey(*publicKey)
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 2
	}
	env, release, err := setup.NewEmptyAccount(stdout)
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", setup.Describe(err))
		return 1
	}
	defer release()
	if env.Remote && !*yes {
		fmt.Fprintln(stderr, "quickstart: refusing to create an instance on a real service: it costs money. Run again with -yes.")
		return 2
	}
	q := &quickstart{c: env.Client, env: env, out: stdout, name: *name, publicKey: key}
	err = q.run(ctx)
	if cleanupErr := q.cleanup(); cleanupErr != nil {
		fmt.Fprintln(stderr, "quickstart: cleanup failed, check for leftovers named "+*name+"-*:", setup.Describe(cleanupErr))
		if err == nil {
			return 1
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "quickstart: failed:", setup.Describe(err))
		return 1
	}
	if err := q.count(ctx); err != nil {
		fmt.Fprintln(stderr, "quickstart: counting what is left:", setup.Describe(err))
		return 1
	}
	fmt.Fprintln(stdout, "Done: every step succeeded and everything the run made was deleted.")
	return 0
}

// readPublicKey reads the OpenSSH public key line of path, or makes a new ed25519 key when path is
// empty; its private half is never kept, so nobody can log in with it.
func readPublicKey(path string) (string, error) {
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("reading -public-key: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		return "", err
	}
	// The OpenSSH wire form: the algorithm name, then the key, each prefixed by its length.
	var blob []byte
	for _, field := range [][]byte{[]byte("ssh-ed25519"), pub} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(field)))
		blob = append(blob, field...)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " compute-go-quickstart", nil
}

// quickstart holds what the flow created, so that cleanup can remove it whatever step failed.
type quickstart struct {
	c         *compute.Client
	env       *setup.Env
	out       io.Writer
	name      string
	publicKey string

	keyID, groupID, ipID, instanceID, snapshotID string
}

func (q *quickstart) step(format string, args ...any) {
	fmt.Fprintf(q.out, "==> "+format+"\n", args...)
}

func (q *quickstart) run(ctx context.Context) error {
	c := q.c
	poll := compute.WithPollInterval(200*time.Millisecond, 2*time.Second)

	q.step("Listing base OS images")
	images, err := c.Images.List(ctx, &compute.ImageListOptions{Type: compute.ImageTypeBaseOS})
	if err != nil {
		return fmt.Errorf("listing images: %w", err)
	}
	for _, im := range images.Items {
		fmt.Fprintf(q.out, "    %-20s %s\n", im.Slug, im.Name)
	}

	q.step("Creating SSH key %s-key", q.name)
	key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: q.name + "-key", Value: q.publicKey})
	if err != nil {
		return fmt.Errorf("creating the SSH key: %w", err)
	}
	q.keyID = key.ID
	fmt.Fprintf(q.out, "    %s is %s %s\n", key.ID, key.Type, key.Fingerprint)

	q.step("Creating security group %s-web (ssh in)", q.name)
	sg, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{
		Name: q.name + "-web", Region: q.env.Region, Description: "created by the quickstart",
		Rules: []compute.SecurityGroupRule{{Protocol: compute.ProtocolTCP, Direction: compute.DirectionIngress,
			PortRangeMin: compute.Ptr(22), PortRangeMax: compute.Ptr(22)}},
	})
	if err != nil {
		return fmt.Errorf("creating the security group: %w", err)
	}
	q.groupID = sg.ID
	fmt.Fprintf(q.out, "    %s is %s\n", sg.ID, sg.Status)

	q.step("Creating floating IP %s-ip", q.name)
	ip, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: q.name + "-ip", Region: q.env.Region})
	if err != nil {
		return fmt.Errorf("creating the floating IP: %w", err)
	}
	q.ipID = ip.ID
	if ip, err = c.FloatingIPs.WaitForStatus(ctx, ip.ID, compute.FloatingIPStatusCreated, poll); err != nil {
		return fmt.Errorf("waiting for the floating IP: %w", err)
	}
	fmt.Fprintf(q.out, "    %s has address %s\n", ip.ID, ip.IPAddress)

	q.step("Creating instance %s-vm (%s, %s, %s)", q.name, q.env.Type, q.env.Image, q.env.Region)
	req := &compute.InstanceCreateRequest{
		Name: q.name + "-vm", Hostname: q.name + "-vm", Type: q.env.Type, Region: q.env.Region, Image: q.env.Image,
		SSHKeys: []string{key.ID}, SecurityGroups: []string{sg.ID}, FloatingIP: ip.ID,
	}
	// CreateOnce makes the name the create's idempotency key: a lost response is resolved by a
	// lookup, never by a second instance; an instance left by an earlier run with this -name is
	// adopted rather than duplicated.
	inst, err := c.Instances.CreateOnce(ctx, req)
	if errors.Is(err, compute.ErrOutcomeUnknown) {
		return fmt.Errorf("the create's response was lost and no instance %s-vm exists; run again: %w", q.name, err)
	}
	if err != nil {
		return fmt.Errorf("creating the instance: %w", err)
	}
	q.instanceID = inst.ID
	if err := q.waitFor(ctx, inst.ID, compute.InstanceStatusActive); err != nil {
		return err
	}

	q.step("Snapshotting %s", inst.ID)
	snap, err := c.Snapshots.Create(ctx, inst.ID, &compute.SnapshotCreateRequest{Name: q.name + "-snap"})
	if err != nil {
		return fmt.Errorf("snapshotting: %w", err)
	}
	q.snapshotID = snap.ID
	if snap, err = c.Snapshots.WaitForStatus(ctx, snap.ID, compute.SnapshotStatusCreated, poll); err != nil {
		return fmt.Errorf("waiting for the snapshot: %w", err)
	}
	fmt.Fprintf(q.out, "    snapshot %s (%d GiB) is %s\n", snap.ID, snap.Size, snap.Status)

	q.step("Stopping %s", inst.ID)
	if err := c.Instances.Stop(ctx, inst.ID); err != nil {
		return fmt.Errorf("stopping: %w", err)
	}
	if err := q.waitFor(ctx, inst.ID, compute.InstanceStatusStopped); err != nil {
		return err
	}
	q.step("Starting %s", inst.ID)
	if err := c.Instances.Start(ctx, inst.ID); err != nil {
		return fmt.Errorf("starting: %w", err)
	}
	return q.waitFor(ctx, inst.ID, compute.InstanceStatusActive)
}

// waitFor waits for an instance status, printing each status change.
func (q *quickstart) waitFor(ctx context.Context, id string, target compute.InstanceStatus) error {
	var last compute.InstanceStatus
	inst, err := q.c.Instances.WaitForStatus(ctx, id, target,
		compute.WithPollInterval(200*time.Millisecond, 2*time.Second),
		compute.OnUpdate(func(i *compute.Instance) {
			if i.Status != last {
				fmt.Fprintf(q.out, "    status: %s\n", i.Status)
				last = i.Status
			}
		}))
	if err != nil {
		return fmt.Errorf("waiting for %s to be %s: %w", id, target, err)
	}
	if target == compute.InstanceStatusActive {
		fmt.Fprintf(q.out, "    %s is active at %s\n", inst.ID, inst.PublicIP)
	}
	return nil
}

// cleanup removes what was created, in reverse order, on a context of its own so that an
// interrupted run still cleans up. Each failure is reported and the others still run; the first is
// returned.
func (q *quickstart) cleanup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := q.c
	var first error
	report := func(what string, err error) {
		if err != nil {
			fmt.Fprintf(q.out, "    cleanup: %s: %s\n", what, setup.Describe(err))
			if first == nil {
				first = fmt.Errorf("%s: %w", what, err)
			}
		}
	}
	if q.instanceID != "" {
		q.step("Deleting instance %s", q.instanceID)
		err := q.settle(ctx)
		if err == nil {
			err = c.Instances.Delete(ctx, q.instanceID)
		}
		if err == nil {
			err = c.Instances.WaitForDeletion(ctx, q.instanceID, compute.WithPollInterval(200*time.Millisecond, 2*time.Second))
		}
		report("deleting the instance", err)
	}
	if q.snapshotID != "" {
		q.step("Deleting snapshot %s", q.snapshotID)
		report("deleting the snapshot", c.Snapshots.Delete(ctx, q.snapshotID))
	}
	if q.ipID != "" {
		q.step("Deleting floating IP %s", q.ipID)
		report("deleting the floating IP", c.FloatingIPs.Delete(ctx, q.ipID))
	}
	if q.groupID != "" {
		q.step("Deleting security group %s", q.groupID)
		report("deleting the security group", c.SecurityGroups.Delete(ctx, q.groupID))
	}
	if q.keyID != "" {
		q.step("Deleting SSH key %s", q.keyID)
		report("deleting the SSH key", c.SSHKeys.Delete(ctx, q.keyID))
	}
	return first
}

// count lists every collection the account has and prints how many items each holds. On the
// embedded fake, which starts empty, every count is zero once cleanup has run; on a real account
// the counts include what was there before.
func (q *quickstart) count(ctx context.Context) error {
	c := q.c
	q.step("Counting what the account holds")
	counts := []struct {
		what string
		n    func() (int, error)
	}{
		{"instances", func() (int, error) { p, err := c.Instances.List(ctx, nil); return total(p, err) }},
		{"snapshots", func() (int, error) { p, err := c.Snapshots.List(ctx, nil); return total(p, err) }},
		{"security groups", func() (int, error) { p, err := c.SecurityGroups.List(ctx, nil); return total(p, err) }},
		{"floating IPs", func() (int, error) { p, err := c.FloatingIPs.List(ctx, nil); return total(p, err) }},
		{"SSH keys", func() (int, error) { p, err := c.SSHKeys.List(ctx, nil); return total(p, err) }},
		{"volumes", func() (int, error) { p, err := c.Volumes.List(ctx, nil); return total(p, err) }},
		{"filesystems", func() (int, error) { p, err := c.Filesystems.List(ctx, nil); return total(p, err) }},
	}
	for _, cnt := range counts {
		n, err := cnt.n()
		if err != nil {
			return fmt.Errorf("listing %s: %w", cnt.what, err)
		}
		fmt.Fprintf(q.out, "    %-16s %d\n", cnt.what+":", n)
	}
	return nil
}

// total is a list page's total_count.
func total[T any](p *compute.Page[T], err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return p.TotalCount, nil
}

// settle waits until the instance is in a status that can be deleted: a run interrupted while it was
// still creating (or stopping, starting) would otherwise leave it running, and billed.
func (q *quickstart) settle(ctx context.Context) error {
	inst, err := q.c.Instances.Get(ctx, q.instanceID)
	if err != nil {
		return err
	}
	poll := compute.WithPollInterval(200*time.Millisecond, 2*time.Second)
	switch inst.Status {
	case compute.InstanceStatusStopping:
		_, err = q.c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusStopped, poll)
	case compute.InstanceStatusCreating, compute.InstanceStatusStarting, compute.InstanceStatusResetting:
		_, err = q.c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive, poll)
	}
	return err
}
