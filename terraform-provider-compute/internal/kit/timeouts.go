package kit

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Deadline bounds ctx by the timeout get returns (a timeouts attribute's Create, Read, Update or
// Delete), DefaultTimeout when the configuration gives none. The cancel function is never nil.
func Deadline(ctx context.Context, get func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	d, ds := get(ctx, DefaultTimeout)
	diags.Append(ds...)
	if ds.HasError() {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}
