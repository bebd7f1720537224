package fake

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenAPIDescribesEveryRoute holds each description to its route table, both ways: every row is
// described with its method and its success status, and everything described is a row. A route
// added, removed or changed in one and not the other fails here.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	for name, tc := range map[string]struct {
		doc   []byte
		table []route
	}{
		"openapi.yaml": {openAPIDocument, routes},
		"control.yaml": {controlDocument, controlRoutes},
	} {
		t.Run(name, func(t *testing.T) {
			var rows []string
			for _, rt := range tc.table {
				rows = append(rows, fmt.Sprintf("%s /%s %d", rt.method, rt.path, rt.status))
			}
			described := describedOperations(t, string(tc.doc))
			slices.Sort(rows)
			assert.Equal(t, rows, described, "the route table and %s", name)
		})
	}
}

// describedOperations reads "METHOD /path STATUS" for every operation of an OpenAPI document written
// as ours are: two-space paths, four-space methods, the success status the first 2xx response.
func describedOperations(t *testing.T, doc string) []string {
	t.Helper()
	paths := regexp.MustCompile(`(?m)^  (/\S*):$`).FindAllStringSubmatchIndex(doc, -1)
	require.NotEmpty(t, paths)
	methodLine := regexp.MustCompile(`(?m)^    (get|put|post|patch|delete):`)
	status := regexp.MustCompile(`'(2\d\d)'`)
	var out []string
	for i, p := range paths {
		end := strings.Index(doc, "\ncomponents:")
		if i+1 < len(paths) {
			end = paths[i+1][0]
		}
		path := regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(doc[p[2]:p[3]], "{}")
		block := doc[p[1]:end]
		methods := methodLine.FindAllStringSubmatchIndex(block, -1)
		require.NotEmpty(t, methods, "%s has no operation", path)
		for j, m := range methods {
			mEnd := len(block)
			if j+1 < len(methods) {
				mEnd = methods[j+1][0]
			}
			st := status.FindStringSubmatch(block[m[1]:mEnd])
			require.NotNil(t, st, "%s %s has no 2xx response", block[m[2]:m[3]], path)
			out = append(out, fmt.Sprintf("%s %s %s", strings.ToUpper(block[m[2]:m[3]]), path, st[1]))
		}
	}
	slices.Sort(out)
	return out
}
