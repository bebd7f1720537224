package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/acctest"
)

// recordedState is testdata/official/state.json: the state the official provider wrote for
// testdata/official/config.tf.txt against compute-fake (one resource of each of its kinds).
type recordedState struct {
	Resources []struct {
		Type       string          `json:"type"`
		Name       string          `json:"name"`
		Attributes json.RawMessage `json:"attributes"`
	} `json:"resources"`
}

// TestAccMovedFromOfficial moves the official provider's state of every resource type to this
// provider with moved blocks: the plan changes nothing and the apply sends no write to the service.
// The official provider is played by a stub with the official schema (testdata) whose creates write
// the state the official provider wrote for the same configuration.
func TestAccMovedFromOfficial(t *testing.T) {
	official := readOfficialSchema(t)
	var recorded recordedState
	b, err := os.ReadFile("testdata/official/state.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &recorded); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile("testdata/official/config.tf.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := acctest.Server(t)
	makeResources(t, srv)

	var moved strings.Builder
	for _, r := range recorded.Resources {
		fmt.Fprintf(&moved, "moved {\n  from = %s.%s\n  to   = %s.%s\n}\n", r.Type, r.Name, strings.Replace(r.Type, "genesiscloud_", "compute_", 1), r.Name)
	}
	officialConfig := "provider \"genesiscloud\" {}\n" + string(cfg)
	computeConfig := acctest.Provider(srv) + strings.ReplaceAll(string(cfg), "genesiscloud_", "compute_") + moved.String()

	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"compute":      acctest.Factories["compute"],
			"genesiscloud": providerserver.NewProtocol6WithError(&stubProvider{schema: official, recorded: recorded}),
		},
		Steps: []tfresource.TestStep{
			{Config: officialConfig},
			{
				PreConfig: srv.ResetRequests,
				Config:    computeConfig,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				PreConfig: func() {
					if w := acctest.Writes(srv); len(w) > 0 {
						t.Errorf("the move sent %d writes to the service, the first %s %s", len(w), w[0].Method, w[0].Path)
					}
				},
				Config:   computeConfig,
				PlanOnly: true,
			},
			// Moved once, the state is this provider's: the official provider's kinds are no
			// longer needed, and a moved block for a resource that moved already changes nothing.
			{Config: acctest.Provider(srv) + strings.ReplaceAll(string(cfg), "genesiscloud_", "compute_"), PlanOnly: true},
		},
	})
}

// makeResources makes in the fake, in order, the resources the recorded state names, so that they
// get the recorded IDs.
func makeResources(t *testing.T, srv *computetest.Server) {
	t.Helper()
	ctx := context.Background()
	c := acctest.Client(t, srv)
	must := func(id string, err error, want string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if id != want {
			t.Fatalf("made %s, want %s as in the recorded state", id, want)
		}
	}
	k, err := c.SSHKeys.Create(ctx, &compute.SSHKeyCreateRequest{Name: "alice", Value: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn alice@example.com"})
	must(k.ID, err, "key-000001")
	port := func(p int) []compute.SecurityGroupRule {
		return []compute.SecurityGroupRule{{Direction: compute.DirectionIngress, Protocol: compute.ProtocolTCP, PortRangeMin: compute.Ptr(p), PortRangeMax: compute.Ptr(p)}}
	}
	g, err := c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "allow-https", Region: "NORD-NO-KRS-1", Rules: port(443)})
	must(g.ID, err, "sg-000001")
	g, err = c.SecurityGroups.Create(ctx, &compute.SecurityGroupCreateRequest{Name: "allow-ssh", Region: "NORD-NO-KRS-1", Rules: port(22)})
	must(g.ID, err, "sg-000002")
	f, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "terraform-floating-ip", Region: "NORD-NO-KRS-1", Version: compute.IPVersionIPv4})
	must(f.ID, err, "fip-000001")
	v, err := c.Volumes.Create(ctx, &compute.VolumeCreateRequest{Name: "data", Region: "NORD-NO-KRS-1", Size: 50, Type: compute.VolumeTypeHDD})
	must(v.ID, err, "vol-000001")
	fs, err := c.Filesystems.Create(ctx, &compute.FilesystemCreateRequest{Name: "shared", Description: "Example filesystem", Region: "NORD-NO-KRS-1", Size: 50, Type: compute.FilesystemTypeVast})
	must(fs.ID, err, "fs-000001")
	in, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
		Name: "terraform-instance", Hostname: "terraform-instance", Region: "NORD-NO-KRS-1", Image: "ubuntu:22.04", Type: "vcpu-2_memory-4g",
		SSHKeys: []string{"key-000001"}, SecurityGroups: []string{"sg-000002", "sg-000001"}, Volumes: []string{"vol-000001"},
		FloatingIP: "fip-000001", DiskSize: 128,
		Metadata: &compute.InstanceMetadata{StartupScript: "#!/bin/bash\nset -eo pipefail\n\n# Add startup script\n\n"},
	})
	must(in.ID, err, "ins-000001")
	s, err := c.Snapshots.Create(ctx, "ins-000001", &compute.SnapshotCreateRequest{Name: "backup"})
	must(s.ID, err, "snap-000001")
}

// stubProvider plays the official provider: its resources have the official schema, and a create
// writes the state the official provider wrote (no request to anything).
type stubProvider struct {
	schema   officialSchema
	recorded recordedState
}

func (p *stubProvider) Metadata(_ context.Context, _ fwprovider.MetadataRequest, resp *fwprovider.MetadataResponse) {
	resp.TypeName = "genesiscloud"
}

func (p *stubProvider) Schema(context.Context, fwprovider.SchemaRequest, *fwprovider.SchemaResponse) {
}

func (p *stubProvider) Configure(context.Context, fwprovider.ConfigureRequest, *fwprovider.ConfigureResponse) {
}

func (p *stubProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (p *stubProvider) Resources(context.Context) []func() resource.Resource {
	var out []func() resource.Resource
	for name, block := range p.schema.ResourceSchemas {
		out = append(out, func() resource.Resource { return &stubResource{typeName: name, block: block, recorded: p.recorded} })
	}
	return out
}

type stubResource struct {
	typeName string
	block    officialBlock
	recorded recordedState
}

func (r *stubResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.typeName
}

func (r *stubResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Version: r.block.Version, Attributes: stubAttributes(r.block.Attributes)}
}

// Create writes the recorded state of the resource of this type with the planned name.
func (r *stubResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var name types.String
	if _, ok := r.block.Attributes["name"]; ok {
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	}
	for _, rec := range r.recorded.Resources {
		if rec.Type != r.typeName {
			continue
		}
		var attrs struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(rec.Attributes, &attrs)
		if !name.IsNull() && attrs.Name != name.ValueString() {
			continue
		}
		v, err := tftypes.ValueFromJSONWithOpts(rec.Attributes, req.Plan.Schema.Type().TerraformType(ctx), tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true})
		if err != nil {
			resp.Diagnostics.AddError("recorded state", err.Error())
			return
		}
		resp.State.Raw = v
		return
	}
	resp.Diagnostics.AddError("no recorded state", r.typeName+" "+name.ValueString())
}

func (r *stubResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *stubResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *stubResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// stubAttributes builds the framework attributes of an official schema.
func stubAttributes(attrs map[string]officialAttribute) map[string]schema.Attribute {
	out := map[string]schema.Attribute{}
	for name, a := range attrs {
		req, opt, comp, sens := a.Required, a.Optional, a.Computed, a.Sensitive
		if a.NestedType != nil {
			nested := schema.NestedAttributeObject{Attributes: stubAttributes(a.NestedType.Attributes)}
			switch a.NestedType.NestingMode {
			case "list":
				out[name] = schema.ListNestedAttribute{NestedObject: nested, Required: req, Optional: opt, Computed: comp, Sensitive: sens}
			default:
				out[name] = schema.SingleNestedAttribute{Attributes: nested.Attributes, Required: req, Optional: opt, Computed: comp, Sensitive: sens}
			}
			continue
		}
		switch compact(a.Type) {
		case `"string"`:
			out[name] = schema.StringAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: sens}
		case `"number"`:
			out[name] = schema.NumberAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: sens}
		case `"bool"`:
			out[name] = schema.BoolAttribute{Required: req, Optional: opt, Computed: comp, Sensitive: sens}
		case `["set","string"]`:
			out[name] = schema.SetAttribute{ElementType: types.StringType, Required: req, Optional: opt, Computed: comp, Sensitive: sens}
		case `["list","string"]`:
			out[name] = schema.ListAttribute{ElementType: types.StringType, Required: req, Optional: opt, Computed: comp, Sensitive: sens}
		default:
			panic("the stub does not know the type " + compact(a.Type))
		}
	}
	return out
}
