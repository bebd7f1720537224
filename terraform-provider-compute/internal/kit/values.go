package kit

import (
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// IDSet is the set of ids for the state, keeping prior (the plan or the state before) when it holds
// the same IDs, so that a configured empty set stays empty and an unset one null: the service shows
// "none" as an empty list either way. When prior is null and ids is empty, orNull decides.
func IDSet(prior types.Set, ids []string, orNull bool) types.Set {
	if !prior.IsUnknown() && setEqual(prior, ids) {
		return prior
	}
	if len(ids) == 0 && orNull {
		return types.SetNull(types.StringType)
	}
	elems := make([]attr.Value, len(ids))
	for i, id := range ids {
		elems[i] = types.StringValue(id)
	}
	return types.SetValueMust(types.StringType, elems)
}

// setEqual reports whether s holds exactly ids (null holding none).
func setEqual(s types.Set, ids []string) bool {
	var have []string
	for _, e := range s.Elements() {
		v, ok := e.(types.String)
		if !ok || v.IsUnknown() || v.IsNull() {
			return false
		}
		have = append(have, v.ValueString())
	}
	want := slices.Clone(ids)
	slices.Sort(have)
	slices.Sort(want)
	return slices.Equal(slices.Compact(have), slices.Compact(want))
}

// Placeholder stands for a value known only after apply while a request is checked at plan time.
const Placeholder = "known-after-apply"

// IDs returns the elements of a set of strings: nil for null (and for unknown, unless checking at
// plan time, when an unknown set or element is a Placeholder).
func IDs(v types.Set, plan bool) []string {
	if v.IsNull() || v.IsUnknown() && !plan {
		return nil
	}
	if v.IsUnknown() {
		return []string{Placeholder}
	}
	out := []string{}
	for _, e := range v.Elements() {
		s, ok := e.(types.String)
		switch {
		case !ok:
		case s.IsUnknown():
			out = append(out, Placeholder)
		default:
			out = append(out, s.ValueString())
		}
	}
	return out
}

// OrNull is s, or null when s is empty (the SDK's "absent").
func OrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// Stamp is t in RFC 3339, or null for the zero time.
func Stamp(t time.Time) types.String {
	if t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.Format(time.RFC3339))
}

// Known is v's value, or a Placeholder when it is known only after apply (at plan time).
func Known(v types.String) string {
	if v.IsUnknown() {
		return Placeholder
	}
	return v.ValueString()
}
