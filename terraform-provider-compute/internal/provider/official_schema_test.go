package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/provider"
)

// officialSchema is the shape of the official provider's schema (testdata/official/schema.json, from
// `terraform providers schema -json` with the descriptions left out): a configuration written for it
// must run unchanged on this provider once genesiscloud is renamed compute.
type officialSchema struct {
	ResourceSchemas   map[string]officialBlock `json:"resource_schemas"`
	DataSourceSchemas map[string]officialBlock `json:"data_source_schemas"`
}

type officialBlock struct {
	Version    int64                        `json:"version"`
	Attributes map[string]officialAttribute `json:"attributes"`
}

type officialAttribute struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		NestingMode string                       `json:"nesting_mode"`
		Attributes  map[string]officialAttribute `json:"attributes"`
	} `json:"nested_type"`
	Required  bool `json:"required"`
	Optional  bool `json:"optional"`
	Computed  bool `json:"computed"`
	Sensitive bool `json:"sensitive"`
	WriteOnly bool `json:"write_only"`
}

func readOfficialSchema(t *testing.T) officialSchema {
	t.Helper()
	b, err := os.ReadFile("testdata/official/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s officialSchema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// allowed are the differences from the official schema this provider makes on purpose, each for
// the reason given: where the official schema contradicts the service's contract, or to keep a
// secret out of the state. None makes a configuration written for the official provider invalid.
var allowed = map[string]string{
	"genesiscloud_floating_ip.version":              "optional with the default ipv4, as the service takes it (the official provider requires it)",
	"genesiscloud_instance.password":                "write-only: never stored in the state",
	"genesiscloud_instance.reservation_id":          "computed too: the service may associate the instance with a reservation",
	"genesiscloud_instance.metadata.startup_script": "sensitive: user data is kept out of plans and logs",
}

// TestOfficialSchema holds every resource and data source of the official provider to its
// attributes here: the same names, types, nesting and required, optional and computed flags, and the
// same schema versions, except for the differences listed in allowed.
func TestOfficialSchema(t *testing.T) {
	official := readOfficialSchema(t)
	server, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("schema: %s: %s", d.Summary, d.Detail)
	}
	check := func(kind, name string, want officialBlock, got *tfprotov6.Schema) {
		if got == nil {
			t.Errorf("%s %s: missing", kind, name)
			return
		}
		if got.Version != want.Version {
			t.Errorf("%s %s: schema version %d, want %d (a moved state would need an upgrade)", kind, name, got.Version, want.Version)
		}
		compareAttributes(t, strings.Replace(name, "compute_", "genesiscloud_", 1), want.Attributes, got.Block.Attributes, nil)
	}
	for name, want := range official.ResourceSchemas {
		ours := strings.Replace(name, "genesiscloud_", "compute_", 1)
		check("resource", ours, want, resp.ResourceSchemas[ours])
	}
	for name, want := range official.DataSourceSchemas {
		ours := strings.Replace(name, "genesiscloud_", "compute_", 1)
		check("data source", ours, want, resp.DataSourceSchemas[ours])
	}
}

func compareAttributes(t *testing.T, prefix string, want map[string]officialAttribute, got []*tfprotov6.SchemaAttribute, nested *tfprotov6.SchemaObject) {
	t.Helper()
	if nested != nil {
		got = nested.Attributes
	}
	byName := map[string]*tfprotov6.SchemaAttribute{}
	for _, a := range got {
		byName[a.Name] = a
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, path := want[n], prefix+"."+n
		g, ok := byName[n]
		if !ok {
			t.Errorf("%s: missing", path)
			continue
		}
		if w.NestedType != nil {
			if g.NestedType == nil {
				t.Errorf("%s: not nested, want nested (%s)", path, w.NestedType.NestingMode)
				continue
			}
			if mode := strings.ToLower(g.NestedType.Nesting.String()); !strings.Contains(mode, w.NestedType.NestingMode) {
				t.Errorf("%s: nesting %s, want %s", path, mode, w.NestedType.NestingMode)
			}
			compareAttributes(t, path, w.NestedType.Attributes, nil, g.NestedType)
		} else {
			gotType, err := json.Marshal(g.Type)
			if err != nil {
				t.Fatal(err)
			}
			if string(gotType) != compact(w.Type) {
				t.Errorf("%s: type %s, want %s", path, gotType, compact(w.Type))
			}
		}
		flags := func(req, opt, comp, sens, wo bool) string {
			return fmt.Sprintf("required=%v optional=%v computed=%v sensitive=%v write_only=%v", req, opt, comp, sens, wo)
		}
		gf, wf := flags(g.Required, g.Optional, g.Computed, g.Sensitive, g.WriteOnly), flags(w.Required, w.Optional, w.Computed, w.Sensitive, w.WriteOnly)
		if gf != wf {
			if why, ok := allowed[path]; ok {
				t.Logf("%s: %s (official: %s): %s", path, gf, wf, why)
				continue
			}
			t.Errorf("%s: %s, want %s", path, gf, wf)
		}
	}
}

func compact(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
