package kit

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestSafe escapes what a terminal acts on (escape sequences, other control characters, the
// Unicode formatting that reorders text) and keeps the rest, line breaks and tabs included.
func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode":         "plain text, ünïcode",
		"two\nlines\tand a tab":       "two\nlines\tand a tab",
		"\x1b[31mred\x1b[0m":          `\x1b[31mred\x1b[0m`,
		"bell\a and NUL\x00":          `bell\a and NUL\x00`,
		"C1 \u009b2J":                 `C1 \u009b2J`,
		"right-to-left \u202eevil":    `right-to-left \u202eevil`,
		"zero width \u200b joiner":    `zero width \u200b joiner`,
		"carriage\rreturn overwrites": `carriage\rreturn overwrites`,
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClaimName refuses a name two creates claim, or a create and an existing resource, in one
// run; an existing resource planned again, or two existing resources with one name, are no clash.
func TestClaimName(t *testing.T) {
	cases := []struct {
		name   string
		claims []string // IDs; "" is a create
		want   []bool
	}{
		{"two creates", []string{"", ""}, []bool{true, false}},
		{"a create, then an existing one", []string{"", "ins-1"}, []bool{true, false}},
		{"an existing one, then a create", []string{"ins-1", ""}, []bool{true, false}},
		{"one resource planned twice", []string{"ins-1", "ins-1"}, []bool{true, true}},
		{"two existing ones", []string{"ins-1", "ins-2"}, []bool{true, true}},
	}
	for _, tc := range cases {
		m := &Meta{}
		for i, id := range tc.claims {
			if got := m.ClaimName("instance", "web", id); got != tc.want[i] {
				t.Errorf("%s: claim %d (%q) = %v, want %v", tc.name, i, id, got, tc.want[i])
			}
		}
		if !m.ClaimName("volume", "web", "") {
			t.Errorf("%s: a volume named web clashed with instances", tc.name)
		}
	}
}

func set(ids ...string) types.Set {
	v := make([]attr.Value, len(ids))
	for i, id := range ids {
		v[i] = types.StringValue(id)
	}
	return types.SetValueMust(types.StringType, v)
}

// TestIDSet keeps the prior value when it holds the service's IDs, so that an empty set stays
// empty and a null one null; otherwise it is the service's IDs.
func TestIDSet(t *testing.T) {
	null := types.SetNull(types.StringType)
	for _, tc := range []struct {
		name   string
		prior  types.Set
		ids    []string
		orNull bool
		want   types.Set
	}{
		{"empty stays empty", set(), nil, true, set()},
		{"null stays null", null, nil, false, null},
		{"null, none, orNull", null, nil, true, null},
		{"unknown, none, computed", types.SetUnknown(types.StringType), nil, false, set()},
		{"same IDs, another order", set("b", "a"), []string{"a", "b"}, false, set("b", "a")},
		{"changed outside", set("a"), []string{"a", "c"}, false, set("a", "c")},
	} {
		if got := IDSet(tc.prior, tc.ids, tc.orNull); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFieldsPath maps the SDK's JSON field names, with indexes, to attribute paths.
func TestFieldsPath(t *testing.T) {
	f := Fields{"ssh_keys[]": path.Root("ssh_key_ids"), "rules": path.Root("rules"), "metadata": path.Root("metadata")}
	for field, want := range map[string]path.Path{
		"ssh_keys":                path.Root("ssh_key_ids"),
		"ssh_keys[1]":             path.Root("ssh_key_ids"), // a set: no index
		"rules[0]":                path.Root("rules").AtListIndex(0),
		"rules[2].port_range_min": path.Root("rules").AtListIndex(2).AtName("port_range_min"),
		"metadata.startup_script": path.Root("metadata").AtName("startup_script"),
	} {
		got, ok := f.path(field)
		if !ok || !got.Equal(want) {
			t.Errorf("%s: %v (%v), want %v", field, got, ok, want)
		}
	}
	if _, ok := f.path("billing_type"); ok {
		t.Errorf("billing_type maps to an attribute the resource does not have")
	}
}
