package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	compute "github.com/compute-sdk/compute-go"
	"go.yaml.in/yaml/v3"
)

// outputFormats are the values of -o: a table for people, the rest for programs.
var outputFormats = []string{"table", "json", "yaml", "name", "id"}

func validFormat(f string) bool { return slices.Contains(outputFormats, f) }

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
	return printRows(a, v, []T{*item})
}

// printItems prints a list: a table, a JSON array (empty as []), YAML, or one name or ID a line.
func printItems[T any](a *app, v view[T], items []T) error {
	if items == nil {
		items = []T{}
	}
	if a.structured() {
		return a.printData(items)
	}
	return printRows(a, v, items)
}

// collect reads a whole list, every page, before anything is printed, so that a failure halfway
// leaves stdout empty rather than holding half a JSON array.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func printRows[T any](a *app, v view[T], items []T) error {
	id, name := v.id, v.name
	if id == nil {
		id = name
	}
	if name == nil {
		name = id
	}
	switch a.output {
	case "id", "name":
		pick := id
		if a.output == "name" {
			pick = name
		}
		var b strings.Builder
		for i := range items {
			b.WriteString(pick(&items[i]) + "\n")
		}
		_, err := io.WriteString(a.stdout, b.String())
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, strings.Join(v.headers, "\t"))
	for i := range items {
		cells := v.row(&items[i])
		for j, c := range cells {
			if c == "" {
				cells[j] = "-"
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// printData prints a value as indented JSON, or as YAML with the same keys in the same order.
func (a *app) printData(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
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
	return out.Bytes(), nil
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
