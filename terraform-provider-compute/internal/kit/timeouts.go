package kit

import (
	"context"
	"time"

	dtimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	rtimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
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

// timeoutsDescription describes the timeouts attribute.
const timeoutsDescription = "How long each operation may take, as a duration such as `30m`: 20 minutes each unless given."

// Timeouts is the timeouts attribute of a resource (create, read, update, delete), as the official
// provider has it.
func Timeouts(ctx context.Context) rschema.Attribute {
	a := rtimeouts.AttributesAll(ctx).(rschema.SingleNestedAttribute)
	a.MarkdownDescription = timeoutsDescription
	return a
}

// DataSourceTimeouts is the timeouts attribute of a data source (read).
func DataSourceTimeouts(ctx context.Context) dschema.Attribute {
	a := dtimeouts.Attributes(ctx).(dschema.SingleNestedAttribute)
	a.MarkdownDescription = timeoutsDescription
	return a
}
