package provider_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/template"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/provider"
)

var updateDocs = flag.Bool("update-docs", false, "write docs/ from the schema, templates/ and examples/")

// root is the module's directory, from this package's.
const root = "../.."

// TestDocs holds docs/ (the registry's layout: index.md, resources/*.md, data-sources/*.md) to
// what the schema's descriptions, templates/index.md.tmpl and examples/ make. After a change, run
//
//	go test ./internal/provider -run '^TestDocs$' -update-docs
func TestDocs(t *testing.T) {
	server, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	want["docs/index.md"] = indexPage(t, s.Provider)
	for name, sc := range s.ResourceSchemas {
		want["docs/resources/"+strings.TrimPrefix(name, "compute_")+".md"] = page(t, name, "Resource", sc, filepath.Join("examples/resources", name))
	}
	for name, sc := range s.DataSourceSchemas {
		want["docs/data-sources/"+strings.TrimPrefix(name, "compute_")+".md"] = page(t, name, "Data Source", sc, filepath.Join("examples/data-sources", name))
	}
	for file, content := range want {
		path := filepath.Join(root, file)
		if *updateDocs {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("%s is not what the schema and examples make (%v): run go test ./internal/provider -run '^TestDocs$' -update-docs", file, err)
		}
	}
	for _, dir := range []string{"docs/resources", "docs/data-sources"} {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		for _, e := range entries {
			if _, ok := want[dir+"/"+e.Name()]; !ok {
				t.Errorf("%s/%s documents nothing the provider has", dir, e.Name())
			}
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(string(b), "\n")
}

func indexPage(t *testing.T, s *tfprotov6.Schema) string {
	tmpl, err := template.New("index").Parse(read(t, "templates/index.md.tmpl") + "\n")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = tmpl.Execute(&b, map[string]string{
		"Description": s.Block.Description,
		"Example":     read(t, "examples/provider/provider.tf"),
		"Schema":      schemaSection(s.Block.Attributes),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func page(t *testing.T, name, kind string, s *tfprotov6.Schema, examples string) string {
	var b strings.Builder
	file := "resource.tf"
	if kind == "Data Source" {
		file = "data-source.tf"
	}
	fmt.Fprintf(&b, "---\npage_title: %q\nsubcategory: \"\"\ndescription: |-\n  %s\n---\n\n", name+" "+kind+" - compute", oneLine(s.Block.Description))
	fmt.Fprintf(&b, "# %s (%s)\n\n%s\n\n", name, kind, s.Block.Description)
	fmt.Fprintf(&b, "## Example Usage\n\n```terraform\n%s\n```\n\n", read(t, filepath.Join(examples, file)))
	b.WriteString(schemaSection(s.Block.Attributes))
	if kind == "Resource" {
		fmt.Fprintf(&b, "\n## Import\n\nImport is supported using the following syntax, and with `import` blocks:\n\n```shell\n%s\n```\n", read(t, filepath.Join(examples, "import.sh")))
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// schemaSection lists the attributes as Required, Optional and Read-Only, then each nested schema.
func schemaSection(attrs []*tfprotov6.SchemaAttribute) string {
	var b, nested strings.Builder
	b.WriteString("## Schema\n")
	writeGroups(&b, &nested, "", attrs)
	return b.String() + nested.String()
}

func writeGroups(b, nested *strings.Builder, prefix string, attrs []*tfprotov6.SchemaAttribute) {
	groups := []struct {
		title string
		in    func(*tfprotov6.SchemaAttribute) bool
	}{
		{"Required", func(a *tfprotov6.SchemaAttribute) bool { return a.Required }},
		{"Optional", func(a *tfprotov6.SchemaAttribute) bool { return a.Optional }},
		{"Read-Only", func(a *tfprotov6.SchemaAttribute) bool { return a.Computed && !a.Optional }},
	}
	sorted := append([]*tfprotov6.SchemaAttribute(nil), attrs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, g := range groups {
		var lines []string
		for _, a := range sorted {
			if !g.in(a) {
				continue
			}
			desc := strings.TrimSpace(a.Description)
			if a.Sensitive {
				desc += " Sensitive."
			}
			if a.WriteOnly {
				desc += " Write-only."
			}
			if a.NestedType != nil {
				anchor := "nestedatt--" + strings.ReplaceAll(strings.TrimPrefix(prefix+"--"+a.Name, "--"), ".", "--")
				lines = append(lines, fmt.Sprintf("- `%s` (Attributes%s) %s (see [below for nested schema](#%s))", a.Name, nesting(a.NestedType), desc, anchor))
				fmt.Fprintf(nested, "\n<a id=%q></a>\n### Nested Schema for `%s`\n", anchor, strings.TrimPrefix(prefix+"."+a.Name, "."))
				writeGroups(nested, nested, strings.TrimPrefix(prefix+"."+a.Name, "."), a.NestedType.Attributes)
				continue
			}
			lines = append(lines, fmt.Sprintf("- `%s` (%s) %s", a.Name, typeName(a.Type), desc))
		}
		switch {
		case len(lines) == 0:
		case prefix == "":
			fmt.Fprintf(b, "\n### %s\n\n%s\n", g.title, strings.Join(lines, "\n"))
		default:
			fmt.Fprintf(b, "\n%s:\n\n%s\n", g.title, strings.Join(lines, "\n"))
		}
	}
}

func nesting(o *tfprotov6.SchemaObject) string {
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeList:
		return " List"
	case tfprotov6.SchemaObjectNestingModeSet:
		return " Set"
	}
	return ""
}

func typeName(t tftypes.Type) string {
	switch {
	case t.Is(tftypes.String):
		return "String"
	case t.Is(tftypes.Number):
		return "Number"
	case t.Is(tftypes.Bool):
		return "Boolean"
	case t.Is(tftypes.List{}):
		return "List of " + typeName(t.(tftypes.List).ElementType)
	case t.Is(tftypes.Set{}):
		return "Set of " + typeName(t.(tftypes.Set).ElementType)
	case t.Is(tftypes.Map{}):
		return "Map of " + typeName(t.(tftypes.Map).ElementType)
	}
	return t.String()
}
