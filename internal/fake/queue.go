package fake

import (
	"container/heap"
	"time"
)

// transition is a status change due at a time on the fake's clock: the queue completes it then.
type transition struct {
	at    time.Time
	seq   uint64            // the order transitions were begun in, for those due at the same time
	index int               // its place in the queue; -1 once it has left it
	done  func(t time.Time) // completes it, with the time it was due
}

// queue holds the transitions in progress by due time, earliest first, so that settling the state
// costs the transitions that are due and not the resources the fake holds.
type queue struct {
	items []*transition
	seq   uint64
}

// begin replaces the transition at *slot (a resource's) with one that completes at at.
func (q *queue) begin(slot **transition, at time.Time, done func(at time.Time)) {
	q.cancel(slot)
	q.seq++
	*slot = &transition{at: at, seq: q.seq, done: done}
	heap.Push(q, *slot)
}

// cancel removes the transition at *slot, if any, from the queue.
func (q *queue) cancel(slot **transition) {
	if t := *slot; t != nil && t.index >= 0 {
		heap.Remove(q, t.index)
	}
	*slot = nil
}

// settle completes, in order of due time, every transition due at now.
func (q *queue) settle(now time.Time) {
	for len(q.items) > 0 && !q.items[0].at.After(now) {
		t := heap.Pop(q).(*transition)
		t.done(t.at)
	}
}

// Len, Less, Swap, Push and Pop make the queue a container/heap.
func (q *queue) Len() int { return len(q.items) }

func (q *queue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	return a.at.Before(b.at) || (a.at.Equal(b.at) && a.seq < b.seq)
}

func (q *queue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].index, q.items[j].index = i, j
}

func (q *queue) Push(x any) {
	t := x.(*transition)
	t.index = len(q.items)
	q.items = append(q.items, t)
}

func (q *queue) Pop() any {
	t := q.items[len(q.items)-1]
	q.items[len(q.items)-1] = nil
	q.items = q.items[:len(q.items)-1]
	t.index = -1
	return t
}
