package fake

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestQueueCompletesWhatIsDueInOrderOfDueTime(t *testing.T) {
	var q queue
	t0 := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	var done []string
	slots := make([]*transition, 4)
	begin := func(slot int, after time.Duration, name string) {
		q.begin(&slots[slot], t0.Add(after), func(at time.Time) {
			assert.Equal(t, t0.Add(after), at, "completed with its due time")
			done = append(done, name)
		})
	}
	begin(0, 3*time.Second, "c")
	begin(1, time.Second, "a")
	begin(2, time.Second, "b") // due with a: after it, as it began after it
	begin(3, 5*time.Second, "e")

	q.settle(t0.Add(999 * time.Millisecond))
	assert.Empty(t, done, "nothing is due yet")
	q.settle(t0.Add(time.Second))
	assert.Equal(t, []string{"a", "b"}, done, "a transition due at now is completed")

	q.cancel(&slots[3])
	assert.Nil(t, slots[3])
	begin(0, 4*time.Second, "c again") // replaces c
	q.settle(t0.Add(time.Hour))
	assert.Equal(t, []string{"a", "b", "c again"}, done, "a cancelled or replaced transition never completes")
	assert.Zero(t, q.Len())
	q.cancel(&slots[1]) // one that has completed: nothing to do
}
