package kit

import (
	"context"
	"errors"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// testModel is a resource's model for the steps' tests: an instance's ID and status.
type testModel struct {
	ID     types.String `tfsdk:"id"`
	Status types.String `tfsdk:"status"`
}

func (m *testModel) Set(in *compute.Instance) {
	m.ID = types.StringValue(in.ID)
	m.Status = types.StringValue(string(in.Status))
}

var testKind = Kind[compute.Instance]{Name: "instance", ID: func(i *compute.Instance) string { return i.ID }}

// emptyState is the state of a resource not created yet.
func emptyState() tfsdk.State {
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"id":     schema.StringAttribute{Computed: true},
		"status": schema.StringAttribute{Computed: true},
	}}
	return tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(context.Background()), nil)}
}

// step is a step's test: a fake, the provider's Meta on it, and a resource's empty state.
type step struct {
	srv   *computetest.Server
	m     *Meta
	state tfsdk.State
	model testModel
	diags diag.Diagnostics
}

func newStep(t *testing.T) *step {
	srv := computetest.NewServer()
	t.Cleanup(srv.Close)
	return &step{srv: srv, m: NewMeta(srv.Client(compute.WithoutRateLimit()), false, nil), state: emptyState()}
}

func (s *step) into() Target[compute.Instance] { return Into(&s.model, &s.state, &s.diags) }

// saved is the model the state holds.
func (s *step) saved(t *testing.T) testModel {
	t.Helper()
	var saved testModel
	if d := s.state.Get(context.Background(), &saved); d.HasError() {
		t.Fatalf("state: %v", d)
	}
	return saved
}

func instanceRequest() *compute.InstanceCreateRequest {
	return &compute.InstanceCreateRequest{Name: "web", Hostname: "web", Region: "NORD-NO-KRS-1",
		Image: "ubuntu-24.04", Type: "vcpu-2_memory-4g", SSHKeys: []string{"key-ci"}}
}

// TestCreateAndWaitSavesBeforeTheWait: the resource the create made is in the state even when the
// wait for its status fails (so that a later destroy deletes it), saved again as the wait last saw
// it, and the wait's failure names the resource and the status it waited for.
func TestCreateAndWaitSavesBeforeTheWait(t *testing.T) {
	s := newStep(t)
	ctx := context.Background()
	c := s.m.Client.Instances
	var id string
	CreateAndWait(ctx, s.m, testKind, s.into(), func() (*compute.Instance, error) {
		in, err := c.CreateOnce(ctx, instanceRequest(), s.m.Once()...)
		if err == nil {
			id = in.ID
			s.srv.SetInstanceStatus(id, compute.InstanceStatusError) // the wait fails
		}
		return in, err
	}, c.WaitForStatus, compute.InstanceStatusActive, nil)
	if len(s.diags) != 1 || s.diags[0].Summary() != "Cannot wait for the instance "+id+" to be active" {
		t.Fatalf("diagnostics %v, want one: Cannot wait for the instance %s to be active", s.diags, id)
	}
	if saved := s.saved(t); saved.ID.ValueString() != id || saved.Status.ValueString() != string(compute.InstanceStatusError) {
		t.Fatalf("state holds %v (%v), want %s as the wait saw it (error)", saved.ID, saved.Status, id)
	}
}

// TestCreateAndWaitSavesWhatTheCreateAnswered: a wait that fails with no resource to show leaves in
// the state the resource as the create answered.
func TestCreateAndWaitSavesWhatTheCreateAnswered(t *testing.T) {
	s := newStep(t)
	ctx := context.Background()
	var id string
	CreateAndWait(ctx, s.m, testKind, s.into(), func() (*compute.Instance, error) {
		in, err := s.m.Client.Instances.CreateOnce(ctx, instanceRequest(), s.m.Once()...)
		if err == nil {
			id = in.ID
		}
		return in, err
	}, func(context.Context, string, compute.InstanceStatus, ...compute.WaitOption) (*compute.Instance, error) {
		return nil, errors.New("the wait ended")
	}, compute.InstanceStatusActive, nil)
	if len(s.diags) != 1 || s.diags[0].Summary() != "Cannot wait for the instance "+id+" to be active" {
		t.Fatalf("diagnostics %v, want one: Cannot wait for the instance %s to be active", s.diags, id)
	}
	if saved := s.saved(t); saved.ID.ValueString() != id {
		t.Fatalf("state holds %v, want %s", saved.ID, id)
	}
}

// TestCreateAndWaitCreateFails: a create that fails leaves the state empty, and says what failed.
func TestCreateAndWaitCreateFails(t *testing.T) {
	s := newStep(t)
	CreateAndWait(context.Background(), s.m, testKind, s.into(),
		func() (*compute.Instance, error) { return nil, errors.New("refused") },
		s.m.Client.Instances.WaitForStatus, compute.InstanceStatusActive, nil)
	if len(s.diags) != 1 || s.diags[0].Summary() != "Cannot create the instance" || s.diags[0].Detail() != "refused" {
		t.Fatalf("diagnostics %v, want one: Cannot create the instance: refused", s.diags)
	}
	if !s.state.Raw.IsNull() {
		t.Fatalf("state %v, want none", s.state.Raw)
	}
	if n := len(s.srv.Requests()); n != 0 {
		t.Fatalf("%d requests, want none", n)
	}
}

// TestSettleNeedsNoWaitWhenSettled: a resource the create answered with as settled is saved, and
// not read again.
func TestSettleNeedsNoWaitWhenSettled(t *testing.T) {
	s := newStep(t)
	ctx := context.Background()
	c := s.m.Client.Instances
	in, err := c.Create(ctx, instanceRequest())
	if err != nil {
		t.Fatal(err)
	}
	s.srv.ResetRequests()
	Settle(ctx, s.m, testKind, s.into(), in, c.WaitForStatus, compute.InstanceStatusActive,
		func(*compute.Instance) bool { return true })
	if s.diags.HasError() {
		t.Fatal(s.diags)
	}
	if n := len(s.srv.Requests()); n != 0 {
		t.Fatalf("%d requests, want none: the resource was settled", n)
	}
	if saved := s.saved(t); saved.ID.ValueString() != in.ID {
		t.Fatalf("state holds %v, want %s", saved.ID, in.ID)
	}
}

// TestRetained warns that retain_on_delete kept the resource, naming it; without it, nothing.
func TestRetained(t *testing.T) {
	k := Kind[compute.Volume]{Name: "volume"}
	var diags diag.Diagnostics
	if k.Retained("vol-1", types.BoolValue(false), &diags) || len(diags) != 0 {
		t.Fatalf("retained without retain_on_delete: %v", diags)
	}
	if !k.Retained("vol-1", types.BoolValue(true), &diags) {
		t.Fatal("not retained with retain_on_delete")
	}
	want := diag.NewWarningDiagnostic("Volume retained", "The volume vol-1 left the state; retain_on_delete kept it in the account.")
	if len(diags) != 1 || !diags[0].Equal(want) {
		t.Fatalf("diagnostics %v, want %v", diags, want)
	}
}
