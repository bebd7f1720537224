package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	compute "github.com/compute-sdk/compute-go"
)

// firstPage is how many rows a table reads before it sizes its columns and prints: a full page.
const firstPage = compute.MaxPerPage

// tablePadding is the space between two columns of a table.
const tablePadding = 3

// lines writes the outputs of one line an item as the items come: a table, JSON Lines, names or
// IDs. Every text from the service in them is made safe first.
type lines[T any] struct {
	a *app
	v view[T]
	// pending holds the table's first rows until its columns are sized (sized turns true).
	pending [][]string
	widths  []int
	sized   bool
	// cols are the indexes of the view's columns that -o columns= shows, in its order.
	cols []int
}

func newLines[T any](a *app, v view[T]) *lines[T] {
	return &lines[T]{a: a, v: v}
}

// add writes item's line, or keeps its row until the table's first page is read.
func (l *lines[T]) add(item *T) error {
	a := l.a
	switch a.output {
	case "id", "name":
		pick := pickID(l.v)
		if a.output == "name" {
			pick = pickName(l.v)
		}
		_, err := io.WriteString(a.stdout, a.safe(pick(item))+"\n")
		return err
	case "jsonl":
		b, err := json.Marshal(item)
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(append(a.safeJSON(b), '\n'))
		return err
	case "format":
		var b strings.Builder
		if err := a.template.Execute(&b, a.sanitized(reflect.ValueOf(item)).Interface()); err != nil {
			return fmt.Errorf("-o format: %w", err)
		}
		// The fields are safe; what the template makes of them (a newline, bytes printed as text) is
		// made safe too, so that each resource is one line.
		_, err := io.WriteString(a.stdout, a.safe(b.String())+"\n")
		return err
	}
	if l.cols == nil {
		cols, err := a.selectColumns(l.v.headers)
		if err != nil {
			return errors.New(err.Error()) // past the checks: something was sent
		}
		l.cols = cols
	}
	full := l.v.row(item)
	row := make([]string, len(l.cols))
	for j, i := range l.cols {
		row[j] = cmpOrDash(a.safe(full[i]))
	}
	if l.sized {
		return l.write(row)
	}
	l.pending = append(l.pending, row)
	if len(l.pending) >= firstPage {
		return l.flush()
	}
	return nil
}

// flush sizes the table's columns from the rows read so far and writes them, with the header.
// Later rows keep these widths; a wider cell pushes the rest of its line to the right.
func (l *lines[T]) flush() error {
	if l.sized || l.a.output != "table" {
		return nil
	}
	l.sized = true
	if l.cols == nil {
		cols, err := l.a.selectColumns(l.v.headers)
		if err != nil {
			return errors.New(err.Error())
		}
		l.cols = cols
	}
	header := make([]string, len(l.cols))
	for j, i := range l.cols {
		header[j] = l.v.headers[i]
	}
	l.widths = make([]int, len(header))
	for _, row := range append([][]string{header}, l.pending...) {
		for j, c := range row {
			if j < len(l.widths) {
				l.widths[j] = max(l.widths[j], utf8.RuneCountInString(c))
			}
		}
	}
	rows := l.pending
	if !l.a.noHeader {
		rows = append([][]string{header}, rows...)
	}
	l.pending = nil
	for _, row := range rows {
		if err := l.write(row); err != nil {
			return err
		}
	}
	return nil
}

// flushRead is flush when rows were read, and nothing (not even the header) otherwise.
func (l *lines[T]) flushRead() error {
	if len(l.pending) == 0 {
		return nil
	}
	return l.flush()
}

// write writes one row of the table in the sized columns.
func (l *lines[T]) write(row []string) error {
	var b strings.Builder
	for j, c := range row {
		b.WriteString(c)
		if j < len(row)-1 {
			w := 0
			if j < len(l.widths) {
				w = l.widths[j]
			}
			b.WriteString(strings.Repeat(" ", max(w-utf8.RuneCountInString(c), 0)+tablePadding))
		}
	}
	b.WriteByte('\n')
	_, err := io.WriteString(l.a.stdout, b.String())
	return err
}

// pickID returns what -o id prints of an item: its ID, or its name for a kind without an ID.
func pickID[T any](v view[T]) func(*T) string {
	if v.id != nil {
		return v.id
	}
	return v.name
}

// pickName returns what -o name prints of an item: its name, or its ID for a kind without a name.
func pickName[T any](v view[T]) func(*T) string {
	if v.name != nil {
		return v.name
	}
	return v.id
}

// cmpOrDash shows an empty cell as "-".
func cmpOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
