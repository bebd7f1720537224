package main

import (
	"cmp"
	"encoding/json"
	"iter"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// listFilters are the flags of a list that keep some items and order them, read from the table's
// columns: --name (a glob), --status and --region (exact) where the kind has that column, and
// --sort COLUMN[:desc]. The service lists everything; the filters apply as the pages come.
type listFilters struct {
	name, status, region, sort string
}

// filterColumns are the columns a list can be filtered on, and the flag of each.
var filterColumns = []string{"name", "status", "region"}

// addFlags adds the filters that the view's columns allow to cmd.
func (f *listFilters) addFlags(cmd *cobra.Command, headers []string) {
	targets := map[string]*string{"name": &f.name, "status": &f.status, "region": &f.region}
	for _, col := range filterColumns {
		if _, err := columnIndex(headers, col); err == nil {
			help := "list only those whose " + col + " is this"
			if col == "name" {
				help = "list only those whose name matches this pattern (*, ?, [a-z] as in a shell)"
			}
			cmd.Flags().StringVar(targets[col], col, "", help)
		}
	}
	var names []string
	for _, h := range headers {
		names = append(names, columnName(h))
	}
	cmd.Flags().StringVar(&f.sort, "sort", "", "sort by a column ("+strings.Join(names, ", ")+"), descending with :desc, such as --sort name:desc")
	if _, err := columnIndex(headers, "region"); err == nil {
		registerRegionCompletion(cmd, "region")
	}
}

// check refuses a filter that cannot work, before anything is sent.
func (f *listFilters) check(headers []string) error {
	if f.name != "" {
		if _, err := path.Match(f.name, ""); err != nil {
			return usagef("invalid --name %q: %v", f.name, err)
		}
	}
	if f.sort != "" {
		col, dir, _ := strings.Cut(f.sort, ":")
		if dir != "" && dir != "asc" && dir != "desc" {
			return usagef("invalid --sort %q: want COLUMN, COLUMN:asc or COLUMN:desc", f.sort)
		}
		if _, err := columnIndex(headers, col); err != nil {
			return usagef("invalid --sort %q: %s", f.sort, strings.TrimPrefix(err.Error(), "invalid --output: "))
		}
	}
	return nil
}

// apply returns seq filtered, and sorted when --sort is given (which reads the whole list first, up
// to the bound of a whole list).
func applyFilters[T any](a *app, f *listFilters, v view[T], seq iter.Seq2[T, error]) iter.Seq2[T, error] {
	keep := func(item *T) bool {
		row := v.row(item)
		for _, c := range []struct{ col, want string }{{"name", f.name}, {"status", f.status}, {"region", f.region}} {
			if c.want == "" {
				continue
			}
			i, err := columnIndex(v.headers, c.col)
			if err != nil {
				continue
			}
			if c.col == "name" {
				if ok, _ := path.Match(c.want, row[i]); !ok {
					return false
				}
			} else if !strings.EqualFold(row[i], c.want) {
				return false
			}
		}
		return true
	}
	filtered := func(yield func(T, error) bool) {
		for item, err := range seq {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			if keep(&item) && !yield(item, nil) {
				return
			}
		}
	}
	if f.sort == "" {
		return filtered
	}
	col, dir, _ := strings.Cut(f.sort, ":")
	i, _ := columnIndex(v.headers, col)
	return func(yield func(T, error) bool) {
		var items []T
		bound, size := a.wholeBound(), 0
		for item, err := range filtered {
			if err == nil {
				b, jerr := json.Marshal(item)
				if size += len(b); jerr == nil && size > bound {
					err = errTooLong(bound, "--sort")
				}
			}
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			items = append(items, item)
		}
		slices.SortStableFunc(items, func(x, y T) int {
			c := compareCells(v.row(&x)[i], v.row(&y)[i])
			if dir == "desc" {
				return -c
			}
			return c
		})
		for _, item := range items {
			if !yield(item, nil) {
				return
			}
		}
	}
}

// compareCells orders two cells as numbers when both are, else as text.
func compareCells(x, y string) int {
	fx, errx := strconv.ParseFloat(x, 64)
	fy, erry := strconv.ParseFloat(y, 64)
	if errx == nil && erry == nil {
		return cmp.Compare(fx, fy)
	}
	return strings.Compare(x, y)
}
