package compute

import (
	"context"
	"fmt"
	"iter"
	"reflect"
)

// MaxPerPage is the largest page the service serves.
const MaxPerPage = 100

// ListOptions selects one page of a list. Zero fields are not sent, so the service's defaults apply
// (page 1, 50 items per page).
type ListOptions struct {
	// Page is the 1-based page number.
	Page int `url:"page,omitempty"`
	// PerPage is the page size, 1 to 100.
	PerPage int `url:"per_page,omitempty"`
}

// Validate checks the options against the contract's limits; a nil *ListOptions is valid.
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

// pageSize is the most items a page of these options may hold: per_page when set, else the
// contract's maximum (the service's default is 50).
func (o *ListOptions) pageSize() int {
	if o == nil || o.PerPage == 0 {
		return MaxPerPage
	}
	return o.PerPage
}

// Page is one page of a list, with the counts the service reported.
type Page[T any] struct {
	// Items are the page's resources.
	Items []T
	// TotalCount is the number of resources in the whole list.
	TotalCount int
	// Page is the 1-based number of this page.
	Page int
	// PerPage is the page size the service applied.
	PerPage int
}

// HasNext reports whether pages follow this one, from the counts the service reported.
func (p *Page[T]) HasNext() bool {
	// Divided rather than multiplied, so that huge values from the service cannot overflow.
	return p.PerPage > 0 && p.Page > 0 && p.TotalCount > 0 && p.Page <= (p.TotalCount-1)/p.PerPage
}

// pageQuery is a list's options: validated, encoded by go-querystring from their url tags, and
// bounding the size of the page.
type pageQuery interface {
	validator
	pageSize() int
}

// list sends a list operation for the page opts selects and reads the response through body, the
// resource's page shape: the items under the collection's key and the counts. A response without
// the collection's key, or with more items than asked for, is an error.
func list[T any](ctx context.Context, c *Client, op operation, ids []string, opts pageQuery, body pageBody[T]) (*Page[T], error) {
	data, err := c.do(ctx, request{op: op, ids: ids, query: opts})
	if err != nil {
		return nil, err
	}
	it, counts := body.parts()
	it.max = opts.pageSize()
	if err := decodeResponse(op, data, body); err != nil {
		return nil, err
	}
	return &Page[T]{Items: it.list, TotalCount: counts.TotalCount, Page: counts.Page, PerPage: counts.PerPage}, nil
}

// walk is the lazy page walker behind every All method. It copies opts (the caller's value is never
// changed), fetches a page only when the previous one has been consumed, and stops when the loop
// breaks, on an error (yielded once), on an empty or short page, when total_count items have been
// reached, and when the context ends between pages. A service that responses another page than the
// one asked, or the same items again (one that ignores the page parameter), ends the walk with an
// error rather than a loop.
func walk[T any](ctx context.Context, opts *ListOptions, fetch func(context.Context, *ListOptions) (*Page[T], error)) iter.Seq2[T, error] {
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
		if err := start.Validate(); err != nil {
			yield(zero, err)
			return
		}
		cur := start
		if cur.Page == 0 {
			cur.Page = 1
		}
		var prev []T
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			asked := cur
			p, err := fetch(ctx, &asked)
			if err != nil {
				yield(zero, err)
				return
			}
			if p.Page != 0 && p.Page != cur.Page {
				yield(zero, fmt.Errorf("compute: asked for page %d, the service answered page %d; stopping the walk", cur.Page, p.Page))
				return
			}
			if len(p.Items) > 0 && reflect.DeepEqual(p.Items, prev) {
				yield(zero, fmt.Errorf("compute: page %d repeats page %d; stopping the walk", cur.Page, cur.Page-1))
				return
			}
			prev = p.Items
			for _, item := range p.Items {
				if !yield(item, nil) {
					return
				}
			}
			perPage := p.PerPage
			if perPage == 0 {
				perPage = cur.PerPage
			}
			// A total_count of 0 beside items means the service did not report it: rely on the page
			// length then.
			if len(p.Items) == 0 || len(p.Items) < perPage || (p.TotalCount > 0 && (cur.Page-1)*perPage+len(p.Items) >= p.TotalCount) {
				return
			}
			cur.Page++
		}
	}
}
