package compute

import (
	"context"
	"fmt"
	"iter"
	"math"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// thing is a minimal resource for exercising the page machinery on its own.
type thing struct {
	ID string `json:"id"`
}

func listThings(c *Client) func(context.Context, *ListOptions) (*Page[thing], error) {
	return func(ctx context.Context, o *ListOptions) (*Page[thing], error) {
		return list(ctx, c, opListInstances, nil, o, &thingsPage{})
	}
}

// thingsPage reads a page of things under the instances' key.
type thingsPage struct {
	Things []thing `json:"instances"`
	pageCounts
}

func (p *thingsPage) parts() (*[]thing, *pageCounts) { return &p.Things, &p.pageCounts }

func TestListOptionsValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts  ListOptions
		field string
	}{
		{ListOptions{Page: -1}, "page"},
		{ListOptions{PerPage: -1}, "per_page"},
		{ListOptions{PerPage: 101}, "per_page"},
	} {
		c, rec := newTestClient(t, pagedServer(3, false, nil))
		_, err := listThings(c)(context.Background(), &tc.opts)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, tc.field, ve.Field)
		yielded := 0
		for _, err := range walk(context.Background(), c, &tc.opts, listThings(c), false) {
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.field, ve.Field)
			yielded++
		}
		assert.Equal(t, 1, yielded, "the walk yields the refusal once, then ends")
		assert.Zero(t, rec.count(), "no request for invalid options")
	}
	require.NoError(t, (*ListOptions)(nil).Validate())
	require.NoError(t, (&ListOptions{Page: 1, PerPage: 100}).Validate())
}

func TestListPageEncodesAndDecodes(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, pagedServer(5, false, nil))
	p, err := listThings(c)(context.Background(), &ListOptions{Page: 2, PerPage: 2})
	require.NoError(t, err)
	assert.Equal(t, "page=2&per_page=2", rec.all()[0].Query)
	assert.Equal(t, []thing{{"t3"}, {"t4"}}, p.Items)
	assert.Equal(t, 5, p.TotalCount)
	assert.Equal(t, 2, p.Page)
	assert.Equal(t, 2, p.PerPage)
	assert.True(t, p.HasNext())

	p, err = listThings(c)(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, rec.all()[1].Query, "nil options send no query")
	assert.Equal(t, 1, p.Page)
}

func TestHasNext(t *testing.T) {
	t.Parallel()
	assert.True(t, (&Page[thing]{TotalCount: 5, Page: 2, PerPage: 2}).HasNext())
	assert.False(t, (&Page[thing]{TotalCount: 4, Page: 2, PerPage: 2}).HasNext())
	assert.False(t, (&Page[thing]{TotalCount: 5}).HasNext(), "no counts, no promise")

	// Near 2^63, where page·per_page overflows an int: the rule is page·per_page < total_count.
	const maxInt = math.MaxInt64
	for _, tc := range []struct {
		page, perPage, total int
		want                 bool
	}{
		{maxInt / 100, 100, maxInt, true},    // 9223372036854775700 items seen, 107 left
		{maxInt/100 + 1, 100, maxInt, false}, // page·per_page would overflow: past the end
		{maxInt, 1, maxInt, false},           // the last page exactly
		{maxInt - 1, 1, maxInt, true},        // one item left
		{maxInt, maxInt, maxInt, false},      // the product is far past int
		{1, maxInt, maxInt, false},           // one page holds everything
		{2, maxInt / 2, maxInt, true},        // 2·(2^62-1) = 2^63-2 seen, one left
		{3, maxInt / 2, maxInt, false},       // overflows
	} {
		p := &Page[thing]{Page: tc.page, PerPage: tc.perPage, TotalCount: tc.total}
		assert.Equal(t, tc.want, p.HasNext(), "page %d, per_page %d, total_count %d", tc.page, tc.perPage, tc.total)
	}
}

// TestAllIsLazy proves, through the public Instances.All, that page 2 is fetched only once page 1
// has been consumed, and that three pages take exactly three requests.
func TestAllIsLazy(t *testing.T) {
	t.Parallel()
	asked := make(chan int, 10)
	c, rec := newTestClient(t, pagedServer(6, false, asked))
	next, stop := iter.Pull2(c.Instances.All(context.Background(), &ListOptions{PerPage: 2}))
	defer stop()
	var got []string
	for i := 0; i < 2; i++ {
		item, err, ok := next()
		require.True(t, ok)
		require.NoError(t, err)
		got = append(got, item.ID)
	}
	assert.Equal(t, 1, rec.count(), "page 2 must not be fetched before page 1 is consumed")
	for {
		item, err, ok := next()
		if !ok {
			break
		}
		require.NoError(t, err)
		got = append(got, item.ID)
	}
	assert.Equal(t, []string{"t1", "t2", "t3", "t4", "t5", "t6"}, got)
	assert.Equal(t, 3, rec.count(), "three pages, and no fourth request past total_count")
	close(asked)
	var pages []int
	for p := range asked {
		pages = append(pages, p)
	}
	assert.Equal(t, []int{1, 2, 3}, pages)
}

func TestAllStopsOnBreak(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, pagedServer(10, false, nil))
	n := 0
	for _, err := range c.Instances.All(context.Background(), &ListOptions{PerPage: 2}) {
		require.NoError(t, err)
		n++
		if n == 3 {
			break
		}
	}
	assert.Equal(t, 2, rec.count(), "no page fetched after break")
}

func TestAllStopsOnServerIgnoringPage(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, pagedServer(10, true, nil))
	var ids []string
	var lastErr error
	for item, err := range c.Instances.All(context.Background(), &ListOptions{PerPage: 2}) {
		if err != nil {
			lastErr = err
			continue
		}
		ids = append(ids, item.ID)
	}
	assert.Equal(t, []string{"t1", "t2"}, ids, "the first page once, no repeats")
	require.ErrorContains(t, lastErr, "asked for page 2, the service sent page 1")
	assert.Equal(t, 2, rec.count())
}

func TestWalkStopsOnEmptyAndShortPages(t *testing.T) {
	t.Parallel()
	// total_count claims 100 but the list ends early: a short page ends the walk.
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, 200, map[string]any{"instances": []thing{{"a"}}, "total_count": 100, "page": 1, "per_page": 2})
	})
	n := 0
	for _, err := range walk(context.Background(), c, nil, listThings(c), false) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, rec.count())

	c, rec = newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, 200, map[string]any{"instances": []thing{}, "total_count": 100, "page": 1, "per_page": 2})
	})
	for thing, err := range walk(context.Background(), c, nil, listThings(c), false) {
		require.ErrorContains(t, err, "an empty first page, yet total_count is 100", "an empty page yields no item: %v", thing)
	}
	assert.Equal(t, 1, rec.count())
}

func TestWalkCopiesOptionsAndStartsAtTheirPage(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, pagedServer(6, false, nil))
	opts := &ListOptions{Page: 2, PerPage: 2}
	var ids []string
	for item, err := range walk(context.Background(), c, opts, listThings(c), false) {
		require.NoError(t, err)
		ids = append(ids, item.ID)
	}
	assert.Equal(t, []string{"t3", "t4", "t5", "t6"}, ids)
	assert.Equal(t, ListOptions{Page: 2, PerPage: 2}, *opts, "the caller's options are not changed")
	assert.Equal(t, 2, rec.count())
}

func TestWalkHonoursContextBetweenPages(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, pagedServer(10, false, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errs []error
	n := 0
	for _, err := range walk(ctx, c, &ListOptions{PerPage: 2}, listThings(c), false) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		if n == 2 {
			cancel()
		}
	}
	assert.Equal(t, 2, n)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], context.Canceled)
	assert.Equal(t, 1, rec.count())
}

func TestWalkYieldsAPIErrorOnce(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, 403, map[string]string{"code": "02043", "message": "no"})
	})
	var errs []error
	for _, err := range walk(context.Background(), c, nil, listThings(c), false) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrForbidden)
}

// A service that leaves out total_count still gets walked to its last, short page.
func TestAllWithoutTotalCountWalksToTheShortPage(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		items := []thing{{fmt.Sprintf("p%d-a", page)}, {fmt.Sprintf("p%d-b", page)}}
		if page == 3 {
			items = items[:1]
		}
		replyJSON(w, 200, map[string]any{"instances": items, "page": page, "per_page": 2})
	})
	var ids []string
	for inst, err := range c.Instances.All(context.Background(), &ListOptions{PerPage: 2}) {
		require.NoError(t, err)
		ids = append(ids, inst.ID)
	}
	assert.Equal(t, []string{"p1-a", "p1-b", "p2-a", "p2-b", "p3-a"}, ids)
	assert.Equal(t, 3, rec.count())
}

// A service that ignores page, echoes the page asked and reports no total would loop forever
// without the repeated-page guard.
func TestAllStopsOnARepeatedPage(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		replyJSON(w, 200, map[string]any{"instances": []thing{{"a"}, {"b"}}, "page": page, "per_page": 2})
	})
	var ids []string
	var lastErr error
	yielded := 0
	for inst, err := range c.Instances.All(context.Background(), &ListOptions{PerPage: 2}) {
		// Bounded: a walk that does not stop fails here, not by the test binary's timeout.
		if yielded++; yielded > 20 {
			t.Fatalf("the walk did not end after %d values (%d requests)", yielded-1, rec.count())
		}
		if err != nil {
			lastErr = err
			continue
		}
		ids = append(ids, inst.ID)
	}
	assert.Equal(t, []string{"a", "b"}, ids)
	require.ErrorContains(t, lastErr, `page 2 holds item "a" again`)
	assert.Equal(t, 2, rec.count())
}
