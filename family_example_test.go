package compute_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// An instance is created with an SSH key stored first: the key's ID goes in ssh_keys. (These
// examples are compiled, not run: they need an account, COMPUTE_API_TOKEN and COMPUTE_API_URL.)
func ExampleSSHKeysService_Create() {
	c, err := compute.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	pub, err := os.ReadFile(os.ExpandEnv("$HOME/.ssh/id_ed25519.pub"))
	if err != nil {
		log.Fatal(err)
	}
	key, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: "laptop", Value: string(pub)})
	if err != nil {
		log.Fatal(err)
	}
	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
		Name: "web-1", Hostname: "web-1", Type: "n3-RTX-A6000x1", Region: compute.RegionNORDNOKRS1,
		Image: "ubuntu-24.04", SSHKeys: []string{key.ID},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inst.ID, inst.SSHKeys)
}

// A volume is created, awaited until it can be attached, then attached to one instance without
// reading the instance's current list of volumes.
func ExampleInstancesService_AttachVolume() {
	c, err := compute.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	vol, err := c.Volumes.Create(ctx, &compute.VolumeCreateRequest{
		Name: "data", Region: compute.RegionNORDNOKRS1, Size: 100, Type: compute.VolumeTypeSSD,
	})
	if err != nil {
		log.Fatal(err)
	}
	if vol, err = c.Volumes.WaitForStatus(ctx, vol.ID, compute.VolumeStatusCreated); err != nil {
		log.Fatal(err)
	}
	inst, err := c.Instances.AttachVolume(ctx, "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f", vol.ID)
	switch {
	case errors.Is(err, compute.CodeVolumeAlreadyAttached):
		fmt.Println("already attached")
	case errors.Is(err, compute.ErrOutcomeUnknown):
		log.Fatal("the attach may have happened: read the instance before trying again")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(inst.Volumes)
	}
}

// The quotas tell how much room is left before a create fails with a quota code.
func ExampleQuotasService_List() {
	c, err := compute.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	quotas, err := c.Quotas.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range quotas {
		fmt.Printf("%s: %d of %d used\n", q.Key, q.Used, q.Capacity)
	}
}
