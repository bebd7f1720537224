package kit

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// namePrefix marks an import ID that is a name: "name=web".
const namePrefix = "name="

// ImportID resolves the ID given to terraform import (or an import block): a resource's ID as it
// is, or "name=<name>", which find resolves to the one resource of the kind with that name. A name
// that no resource has, or that several have (they are listed), is an error.
func ImportID[T any](ctx context.Context, raw, kind string, find func(context.Context, string) ([]T, error), id func(*T) string, diags *diag.Diagnostics) (string, bool) {
	name, byName := strings.CutPrefix(raw, namePrefix)
	if !byName {
		if strings.TrimSpace(raw) == "" {
			diags.AddError("Invalid import ID", fmt.Sprintf("Give the %s's ID, or name=<name> for the one %s with that name.", kind, kind))
			return "", false
		}
		return raw, true
	}
	if name == "" {
		diags.AddError("Invalid import ID", "name= needs a name: name=<name>.")
		return "", false
	}
	found, err := find(ctx, name)
	if err != nil {
		AddError(diags, fmt.Sprintf("look up the %s named %q", kind, Safe(name)), err, nil)
		return "", false
	}
	switch len(found) {
	case 0:
		diags.AddError("Nothing to import", fmt.Sprintf("No %s is named %q.", kind, Safe(name)))
		return "", false
	case 1:
		return id(&found[0]), true
	}
	ids := make([]string, len(found))
	for i := range found {
		ids[i] = Safe(id(&found[i]))
	}
	diags.AddError("Several resources have that name", fmt.Sprintf(
		"%d %ss are named %q: %s. Import one by its ID instead.", len(found), kind, Safe(name), strings.Join(ids, ", ")))
	return "", false
}
