package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"go.yaml.in/yaml/v3"
)

// outputFormats are the values of -o: a table for people, the rest for programs.
var outputFormats = []string{"table", "json", "yaml", "jsonl", "name", "id"}

// view says how one kind of result is printed: its table columns, and the ID and name that -o id
// and -o name print. A kind without a name prints its ID for both, and the reverse.
type view[T any] struct {
	headers []string
	row     func(*T) []string
	id      func(*T) string
	name    func(*T) string
}

// structured reports whether -o asks for the data itself (JSON or YAML) rather than lines of text.
func (a *app) structured() bool { return a.output == "json" || a.output == "yaml" }

// printItem prints one result: a table of one row, the JSON object (the resource as the service
// sends it), YAML, or its name or ID on one line.
func printItem[T any](a *app, v view[T], item *T) error {
	if a.structured() {
		return a.printData(item)
	}
	return printItems(a, v, []T{*item})
}

// printItems prints a list that came whole: a table, a JSON array (empty as []), YAML, JSON Lines,
// or one name or ID a line.
func printItems[T any](a *app, v view[T], items []T) error {
	return printList(a, v, listed(items, nil))
}

// maxWholeBytes bounds the lists that -o json, -o yaml and --sort hold whole before printing, in
// bytes of the items' JSON: past it the command fails rather than fill the memory (a list that
// never ends, or items a hostile service makes huge). The outputs that print as they read (table,
// jsonl, name, id) have no bound.
const maxWholeBytes = 64 << 20

// wholeBound is maxWholeBytes, or a test's smaller bound.
func (a *app) wholeBound() int { return cmp.Or(a.maxWhole, maxWholeBytes) }

// errTooLong is a list longer than what reads it whole (-o json, --sort) holds.
func errTooLong(bound int, what string) error {
	return fmt.Errorf("the list is longer than %d bytes of JSON, more than %s holds at once; -o jsonl, -o id or -o name print any length as they read it", bound, what)
}

// printList prints a list as it reads it where the format allows: one name, ID or JSON object a
// line as each item comes, and a table whose columns are sized from its first page. JSON and YAML
// are one document, printed once the list is read whole (up to maxWholeBytes of JSON), so that a
// failure halfway leaves stdout empty.
func printList[T any](a *app, v view[T], seq iter.Seq2[T, error]) error {
	if a.structured() {
		// The items are held as their JSON, whose size is what the bound counts.
		bound, size := a.wholeBound(), 0
		items := []json.RawMessage{}
		for item, err := range seq {
			if err != nil {
				return err
			}
			b, err := json.Marshal(item)
			if err != nil {
				return err
			}
			if size += len(b); size > bound {
				return errTooLong(bound, "-o "+a.output)
			}
			items = append(items, b)
		}
		return a.printData(items)
	}
	w := newLines(a, v)
	for item, err := range seq {
		if err != nil {
			// The rows read before the failure still show; a list that failed at once prints nothing.
			if ferr := w.flushRead(); ferr != nil {
				return ferr
			}
			return err
		}
		if err := w.add(&item); err != nil {
			return err
		}
	}
	return w.flush()
}

// printData prints a value as indented JSON, or as YAML with the same keys in the same order.
func (a *app) printData(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = a.safeJSON(b)
	if a.output == "yaml" {
		if b, err = jsonToYAML(b); err != nil {
			return err
		}
	} else {
		b = append(b, '\n')
	}
	_, err = a.stdout.Write(b)
	return err
}

// jsonToYAML re-encodes a JSON document as block-style YAML. JSON is YAML, so the document parses
// into a node tree that keeps the order of keys and the type of every scalar (a string "true" or
// "02008" stays quoted); only the flow style of maps and lists is turned into block style.
func jsonToYAML(b []byte) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	var blockStyle func(*yaml.Node)
	blockStyle = func(n *yaml.Node) {
		n.Style = 0
		if n.Kind == yaml.ScalarNode && strings.ContainsFunc(n.Value, escaped) {
			// Quoted, so that the characters below can be written as escapes.
			n.Style = yaml.DoubleQuotedStyle
		}
		for _, c := range n.Content {
			blockStyle(c)
		}
	}
	blockStyle(&n)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	// The encoder escapes control characters in a quoted string itself, but writes bidi controls
	// and separators raw; only quoted strings hold them, where \u escapes are valid.
	var safe strings.Builder
	for _, r := range out.String() {
		if r >= 0x80 && escaped(r) {
			fmt.Fprintf(&safe, `\u%04x`, r)
			continue
		}
		safe.WriteRune(r)
	}
	return []byte(safe.String()), nil
}

// refs joins the names of references ({id, name}), or their IDs where a name is empty.
func refs(rs []compute.Ref) string {
	var out []string
	for _, r := range rs {
		out = append(out, cmp.Or(r.Name, r.ID))
	}
	return strings.Join(out, ",")
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// compactJSON writes raw JSON on one line, as a table cell.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
