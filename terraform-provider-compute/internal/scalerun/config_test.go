package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheConfigurationsDifferOnlyInTypeNamesAndTheProviderBlock(t *testing.T) {
	ours := stackConfig{fl: flavour{typeName: ourType, source: ourSource}, url: "http://127.0.0.1:9", rate: 10,
		redisURL: "redis://127.0.0.1:6379/0", adoptExisting: true, first: 125, count: 125, name: "stack-1"}
	got := ours.hcl()
	for _, want := range []string{
		`compute = { source = "compute-sdk/compute" }`,
		`endpoint = "http://127.0.0.1:9"`,
		"rate     = 10",
		"adopt_existing = true",
		`redis_url = "redis://127.0.0.1:6379/0"`,
		`resource "compute_ssh_key" "key" {`,
		`resource "compute_security_group" "group" {`,
		"count              = 125",
		`name               = "web-${count.index + 125}"`,
		"ssh_key_ids        = [compute_ssh_key.key.id]",
		"security_group_ids = [compute_security_group.group.id]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("our configuration lacks %q:\n%s", want, got)
		}
	}

	official := ours
	official.fl = flavour{typeName: officialType, source: officialSource}
	theirs := official.hcl()
	// The service's own provider takes the API's path in its endpoint, and none of our settings.
	if !strings.Contains(theirs, `endpoint = "http://127.0.0.1:9/compute/v1"`) {
		t.Errorf("the official endpoint lacks the API's path:\n%s", theirs)
	}
	for _, ourOnly := range []string{"rate", "adopt_existing", "redis_url"} {
		if strings.Contains(theirs, ourOnly) {
			t.Errorf("the official configuration sets %s:\n%s", ourOnly, theirs)
		}
	}
	// Renaming back gives ours, the provider block aside.
	body := func(s string) string { return s[strings.Index(s, "resource "):] }
	if strings.ReplaceAll(body(theirs), officialType+"_", ourType+"_") != body(got) {
		t.Errorf("the resources differ beyond their type names:\n%s\n---\n%s", body(got), body(theirs))
	}
}

func TestTheCLIConfigurationOverridesEachProviderWithADirectoryHoldingItsBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "some-build")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	path, err := cliConfig(dir, flavour{typeName: ourType, source: ourSource, bin: bin},
		flavour{typeName: officialType, source: "example.com/x/genesiscloud", bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{
		`"compute-sdk/compute" = "` + filepath.Join(dir, "providers", ourType) + `"`,
		`"example.com/x/genesiscloud" = "` + filepath.Join(dir, "providers", officialType) + `"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s:\n%s", path, want, b)
		}
	}
	// Terraform looks for terraform-provider-<type> in the directory.
	if target, err := os.Readlink(filepath.Join(dir, "providers", ourType, "terraform-provider-compute")); err != nil || target != bin {
		t.Errorf("terraform-provider-compute -> %q, %v; want %s", target, err, bin)
	}
}
