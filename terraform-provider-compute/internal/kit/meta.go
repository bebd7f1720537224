// Package kit holds what every kind of the provider shares: the configured client, the timeouts,
// the diagnostics made from the SDK's errors, the checks of names and the plan modifiers.
package kit

import (
	"context"
	"fmt"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// DefaultTimeout bounds a create, read, update or delete whose timeouts attribute says nothing, as
// the official provider's 20 minutes do.
const DefaultTimeout = 20 * time.Minute

// Meta is what a configured provider hands every resource and data source: one client, shared by
// all of them, so that one limiter paces every call of the run and concurrent waits of one kind
// share their list walks.
type Meta struct {
	// Client is the provider block's one client.
	Client *compute.Client
	// AdoptExisting lets a create adopt a same-named resource that matches the configuration.
	AdoptExisting bool
	// Wait are the options of every wait: the polling interval.
	Wait []compute.WaitOption
	// ReadMaxAge is how old a shared walk of a list may be to answer a read of a refresh. A
	// provider block is configured anew for each plan or apply, with a new client, so no read is
	// ever answered from a walk of an earlier run.
	ReadMaxAge time.Duration
	// LookupMaxAge is how old a walk of a list may be to answer the lookup a create makes before
	// it sends the create (compute.SharedLookup): the creates of one apply share a walk or two
	// instead of walking the list every few creates. Like ReadMaxAge, it never reaches across runs.
	LookupMaxAge time.Duration

	names names
}

// NewMeta returns the provider data for c.
func NewMeta(c *compute.Client, adoptExisting bool, wait []compute.WaitOption) *Meta {
	return &Meta{Client: c, AdoptExisting: adoptExisting, Wait: wait, ReadMaxAge: time.Minute, LookupMaxAge: time.Minute}
}

// Once returns the options of every CreateOnce: unless the provider adopts existing resources,
// a create adopts only what it made itself after a lost response, never a resource that was
// there before it. Either way the lookup before the create may come from a walk of the list up to
// LookupMaxAge old: what it cannot see is a resource that got the name elsewhere within that time
// (then a lost response ends in an error naming both, rather than adopting either).
func (m *Meta) Once() []compute.OnceOption {
	shared := compute.SharedLookup(m.LookupMaxAge)
	if m.AdoptExisting {
		return []compute.OnceOption{shared}
	}
	return append(onlyOwn(), shared)
}

// DeleteOptions are the options of every DeleteAndWait.
func (m *Meta) DeleteOptions() []compute.DeleteOption {
	opts := make([]compute.DeleteOption, 0, len(m.Wait))
	for _, w := range m.Wait {
		opts = append(opts, w)
	}
	return opts
}

// ResourceBase is embedded by every resource: it keeps the provider's Meta.
type ResourceBase struct {
	Meta *Meta // the provider's; nil until the provider is configured
}

// Configure implements resource.ResourceWithConfigure.
func (r *ResourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if req.ProviderData == nil {
		return // the provider is not configured yet (validation)
	}
	m, ok := req.ProviderData.(*Meta)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data", fmt.Sprintf("expected *kit.Meta, got %T: this is a bug in the provider", req.ProviderData))
		return
	}
	r.Meta = m
}

// DataSourceBase is embedded by every data source: it keeps the provider's Meta.
type DataSourceBase struct {
	Meta *Meta // the provider's; nil until the provider is configured
}

// Configure implements datasource.DataSourceWithConfigure.
func (d *DataSourceBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if req.ProviderData == nil {
		return
	}
	m, ok := req.ProviderData.(*Meta)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data", fmt.Sprintf("expected *kit.Meta, got %T: this is a bug in the provider", req.ProviderData))
		return
	}
	d.Meta = m
}

// names records which resource of the configuration holds each name of each kind in one run
// (one plan or one apply), so that two resources of one kind with one name are refused at plan
// time instead of both ending up on one resource of the service.
type names struct {
	mu     sync.Mutex
	claims map[nameKey][]string // the claimants: a resource's ID, or "" for a resource to create
}

type nameKey struct{ kind, name string }

// ClaimName records that a resource of kind (its ID, or "" when it is about to be created) holds
// name in this run. It reports false when that clashes with another claimant: two creates with one
// name, or a create with the name of a resource that exists. Two existing resources that share a
// name (made outside Terraform, or imported) are no clash: neither is created.
func (m *Meta) ClaimName(kind, name, id string) bool {
	m.names.mu.Lock()
	defer m.names.mu.Unlock()
	if m.names.claims == nil {
		m.names.claims = map[nameKey][]string{}
	}
	k := nameKey{kind, name}
	for _, other := range m.names.claims[k] {
		if other == id && id != "" {
			return true // the same resource, planned again
		}
		if other == "" || id == "" {
			m.names.claims[k] = append(m.names.claims[k], id)
			return false
		}
	}
	m.names.claims[k] = append(m.names.claims[k], id)
	return true
}
