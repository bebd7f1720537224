package fake

import (
	"regexp"
	"strings"
	"testing"
)

// TestOpenAPIListsEveryRoute checks that the description the fake serves names every route of the
// route table, with its method, so that a route added to one is added to the other.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	doc := string(openAPIDocument)
	pathLine := regexp.MustCompile(`(?m)^  (/\S+):$`)
	methods := map[string]string{} // path with "{}" segments -> the text of its block
	blocks := pathLine.FindAllStringSubmatchIndex(doc, -1)
	for i, b := range blocks {
		end := len(doc)
		if i+1 < len(blocks) {
			end = blocks[i+1][0]
		}
		p := regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(doc[b[2]:b[3]], "{}")
		methods[p] = doc[b[1]:end]
	}
	for _, rt := range routes {
		if rt.path == "openapi.yaml" {
			continue
		}
		block, ok := methods["/"+rt.path]
		if !ok {
			t.Errorf("openapi.yaml has no path /%s", rt.path)
			continue
		}
		if !strings.Contains(block, "\n    "+strings.ToLower(rt.method)+":") {
			t.Errorf("openapi.yaml has no %s under /%s", rt.method, rt.path)
		}
	}
	if len(methods) == 0 {
		t.Fatal("no paths found")
	}
}
