package kit

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// Fields maps the JSON spelling of the fields of a resource's requests, as a
// *compute.ValidationError names them, to the resource's attributes: "ssh_keys" to ssh_key_ids,
// say. A key ending in "[]" ("ssh_keys[]") maps a list the resource holds as a set, whose elements
// have no index: a problem of one element is reported on the set. A problem of a field it does not
// name is reported on the resource as a whole.
type Fields map[string]path.Path

// path returns the attribute of field ("rules[2].port_range_min"), or false when the field names
// no attribute of the resource.
func (f Fields) path(field string) (path.Path, bool) {
	base, rest, _ := strings.Cut(field, ".")
	name, index := base, -1
	if i := strings.IndexByte(base, '['); i > 0 && strings.HasSuffix(base, "]") {
		if n, err := strconv.Atoi(base[i+1 : len(base)-1]); err == nil {
			name, index = base[:i], n
		}
	}
	p, ok := f[name]
	if !ok {
		if p, ok = f[name+"[]"]; !ok {
			return path.Empty(), false
		}
		index = -1 // a set's elements have no index
	}
	if index >= 0 {
		p = p.AtListIndex(index)
	}
	if rest != "" {
		for seg := range strings.SplitSeq(rest, ".") {
			p = p.AtName(seg)
		}
	}
	return p, true
}

// AddError adds the diagnostic of err, from doing what (such as "create the instance"): a problem
// of the input on the attribute it names, the service's refusal with its code, message and request
// ID, or the failure as it is. Text from the service is escaped, so that it cannot drive the
// terminal that shows it.
func AddError(diags *diag.Diagnostics, what string, err error, fields Fields) {
	var verr *compute.ValidationError
	if errors.As(err, &verr) {
		for _, p := range verr.Problems {
			if at, ok := fields.path(p.Field); ok {
				diags.AddAttributeError(at, "Invalid "+at.String(), fmt.Sprintf("Cannot %s: %s: %s. Nothing was sent to the service.", what, p.Field, Safe(p.Reason)))
				continue
			}
			diags.AddError("Invalid request", fmt.Sprintf("Cannot %s: %s: %s. Nothing was sent to the service.", what, p.Field, Safe(p.Reason)))
		}
		return
	}
	diags.AddError("Cannot "+what, Detail(err))
}

// Detail describes err for a diagnostic: for a response of the service, its status, code and the
// code's meaning, the service's message and the request ID; otherwise the error's text. Escaped.
func Detail(err error) string {
	var apiErr *compute.APIError
	if !errors.As(err, &apiErr) {
		return Safe(err.Error())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The service answered %s %s with HTTP %d", apiErr.Method, Safe(apiErr.Path), apiErr.StatusCode)
	if apiErr.Code != "" {
		fmt.Fprintf(&b, ", code %s", Safe(string(apiErr.Code)))
		if d := apiErr.Code.Description(); d != "" {
			fmt.Fprintf(&b, " (%s)", d)
		}
	}
	if apiErr.Message != "" {
		fmt.Fprintf(&b, ": %s", Safe(apiErr.Message))
	}
	b.WriteString(".")
	if apiErr.RequestID != "" {
		fmt.Fprintf(&b, "\nRequest ID: %s", Safe(apiErr.RequestID))
	}
	if apiErr.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", apiErr.Attempts)
	}
	if full := err.Error(); full != apiErr.Error() {
		// The error says more than the response: a wait that ended, a create whose outcome is
		// unknown.
		fmt.Fprintf(&b, "\n\n%s", Safe(full))
	}
	return b.String()
}

// unsafe matches what a terminal could take as a command: control characters but the newline and
// the tab, and the Unicode formatting characters that reorder or hide text.
var unsafe = regexp.MustCompile(`[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}]`)

// Safe escapes the characters of s that a terminal could act on, as Go would quote them.
func Safe(s string) string {
	return unsafe.ReplaceAllStringFunc(s, func(r string) string {
		q := strconv.QuoteToASCII(r)
		return q[1 : len(q)-1]
	})
}
