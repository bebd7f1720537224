package compute

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"iter"
	"reflect"
	"strings"
)

// MaxPerPage is the largest page the service serves.
const MaxPerPage = 100

// ListOptions selects one page of a list. Zero fields are not sent: the service's defaults are page
// 1 and 50 items.
type ListOptions struct {
	Page    int `url:"page,omitempty"`     // 1-based page number
	PerPage int `url:"per_page,omitempty"` // page size, 1 to 100
}

// Validate checks the options; a nil *ListOptions is valid.
func (o *ListOptions) Validate() error {
	if o == nil {
		return nil
	}
	var p problems
	if o.Page < 0 {
		p.add("page", "must be at least 1, got %d", o.Page)
	}
	if o.PerPage < 0 || o.PerPage > MaxPerPage {
		p.add("per_page", "must be between 1 and %d, got %d", MaxPerPage, o.PerPage)
	}
	return p.err()
}

// pageSize is the most items a page of these options may hold.
func (o *ListOptions) pageSize() int {
	if o == nil || o.PerPage == 0 {
		return MaxPerPage
	}
	return o.PerPage
}

// Page is one page of a list, with the counts the service reported.
type Page[T any] struct {
	Items      []T // the page's resources
	TotalCount int // resources in the whole list
	Page       int // 1-based number of this page
	PerPage    int // page size the service applied
}

// HasNext reports whether pages follow this one, from the counts the service reported.
func (p *Page[T]) HasNext() bool {
	// Divided, not multiplied, so that huge counts cannot overflow.
	return p.PerPage > 0 && p.Page > 0 && p.TotalCount > 0 && p.Page <= (p.TotalCount-1)/p.PerPage
}

// pageQuery is a list's options.
type pageQuery interface {
	validator
	pageSize() int
	page() int
}

// list reads the page opts selects through body, the resource's page shape. A response without the
// collection's key, or with more items than asked for, is an error.
func list[T any](ctx context.Context, c *Client, op operation, ids []string, opts pageQuery, body pageBody[T]) (*Page[T], error) {
	items, counts := body.parts()
	err := c.do(ctx, request{op: op, ids: ids, query: opts}, func(data []byte) error {
		if err := c.decodeResponse(op, data, body); err != nil {
			return err
		}
		switch {
		case len(*items) > opts.pageSize():
			return fmt.Errorf("compute: %s %s: the page holds %d items, more than the %d items asked for", op.method, op.path, len(*items), opts.pageSize())
		case len(*items) == 0 && !hasKey(data, listKey(body)):
			return fmt.Errorf("compute: %s %s: the response has no %q list", op.method, op.path, listKey(body))
		case len(*items) == 0 && counts.TotalCount > 0 && opts.page() == 1:
			return fmt.Errorf("compute: %s %s: an empty first page, yet total_count is %d", op.method, op.path, counts.TotalCount)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.observer.Page != nil {
		c.observer.Page(ctx, PageRead{Operation: op.name, Page: opts.page(), Items: len(*items), TotalCount: counts.TotalCount})
	}
	return &Page[T]{Items: *items, TotalCount: counts.TotalCount, Page: counts.Page, PerPage: counts.PerPage}, nil
}

// hasKey reports whether the JSON object data has key, matched as encoding/json matches a field;
// a null value counts.
func hasKey(data []byte, key string) bool {
	probe := reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "V", Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + key + `"`)},
	}))
	return json.Unmarshal(data, probe.Interface()) == nil && probe.Elem().Field(0).Len() > 0
}

// listKey is the JSON key of a page's list, from the page struct's first field.
func listKey(body any) string {
	t := reflect.TypeOf(body).Elem()
	key, _, _ := strings.Cut(t.Field(0).Tag.Get("json"), ",")
	return key
}

// page is the page the options ask for: 1 when they name none.
func (o *ListOptions) page() int {
	if o == nil || o.Page == 0 {
		return 1
	}
	return o.Page
}

// maxSeen bounds the walk's guard against repeated items, a hash of each of the first maxSeen IDs;
// past that, the bound on pages ends a walk.
const maxSeen = 100_000

// defaultMaxWalkPages bounds a walk whose pages carry no total_count.
const defaultMaxWalkPages = 10000

// walk is the lazy page walker behind every All method. It stops when the loop breaks, on an error
// (yielded once), on an empty or short page, at total_count (unless toTheEnd, since a count can
// lag), and when the context ends. An item without an id or already yielded, a page other than the
// one asked, and more pages than the latest total_count allows (plus one) or than the client's bound end it
// with an error, so that a broken service cannot make it loop.
func walk[T any](ctx context.Context, c *Client, opts *ListOptions, fetch func(context.Context, *ListOptions) (*Page[T], error), toTheEnd bool) iter.Seq2[T, error] {
	var start ListOptions
	if opts != nil {
		start = *opts
	}
	return func(yield func(T, error) bool) {
		var zero T
		if ctx == nil {
			yield(zero, errNilContext)
			return
		}
		if err := c.validate(&start); err != nil {
			yield(zero, err)
			return
		}
		cur := start
		if cur.Page == 0 {
			cur.Page = 1
		}
		seen, seed := map[uint64]struct{}{}, maphash.MakeSeed()
		maxPages := c.maxWalkPages
		for fetched := 0; ; fetched++ {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			if fetched >= maxPages {
				yield(zero, fmt.Errorf("compute: the service sent full pages past %d pages; stopping the walk", maxPages))
				return
			}
			asked := cur
			p, err := fetch(ctx, &asked)
			if err != nil {
				yield(zero, err)
				return
			}
			if p.Page != 0 && p.Page != cur.Page {
				yield(zero, fmt.Errorf("compute: asked for page %d, the service sent page %d; stopping the walk", cur.Page, p.Page))
				return
			}
			for _, item := range p.Items {
				if id, ok := stringField(item, "ID"); ok {
					if id == "" {
						yield(zero, fmt.Errorf("compute: page %d holds an item with no id; stopping the walk", cur.Page))
						return
					}
					h := maphash.String(seed, id)
					if _, again := seen[h]; again {
						yield(zero, fmt.Errorf("compute: page %d holds item %q again; stopping the walk", cur.Page, c.transport.cred.outside(id)))
						return
					}
					if len(seen) < maxSeen {
						seen[h] = struct{}{}
					}
				}
				if !yield(item, nil) {
					return
				}
			}
			// The page size the service says, unless it says more than was asked for: a page that
			// claims 200 while holding the 100 asked for is full, and the walk goes on.
			perPage := p.PerPage
			if perPage == 0 || (cur.PerPage > 0 && perPage > cur.PerPage) {
				perPage = cur.PerPage
			}
			if perPage == 0 {
				perPage = len(p.Items)
			}
			// The position of the page's last item in the whole list.
			last := (cur.Page-1)*perPage + len(p.Items)
			if len(p.Items) == 0 || len(p.Items) < perPage || (!toTheEnd && p.TotalCount > 0 && last == p.TotalCount) {
				return
			}
			if p.TotalCount > 0 {
				// The latest total_count's pages, plus one to reach the short page of a count that
				// fell behind: a list that grows while it is walked is read to its end, and one that
				// never ends is still stopped by the client's bound.
				maxPages = min(c.maxWalkPages, (p.TotalCount+perPage-1)/perPage-cur.Page+fetched+2)
			}
			cur.Page++
		}
	}
}
