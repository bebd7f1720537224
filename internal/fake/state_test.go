package fake

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOrderKeepsTheOrderOfAddingThroughRemovals checks order against a plain slice through random
// adds and removals, compactions included: the i-th ID is the slice's i-th.
func TestOrderKeepsTheOrderOfAddingThroughRemovals(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var o order
	var want []string
	slots := map[string]int{}
	for step := range 5000 {
		if len(want) == 0 || rng.IntN(3) > 0 {
			id := fmt.Sprintf("id-%d", step)
			slots[id] = o.add(id)
			want = append(want, id)
		} else {
			i := rng.IntN(len(want))
			o.remove(slots[want[i]])
			want = slices.Delete(want, i, i+1)
			if o.compact() {
				for slot, id := range o.ids {
					slots[id] = slot
				}
			}
		}
		require.Equal(t, len(want), o.len())
		if step%97 == 0 || o.len() < 5 {
			for i, id := range want {
				require.Equal(t, id, o.ids[o.slot(i)], "step %d, position %d", step, i)
			}
		}
	}
	require.Less(t, len(o.ids), 2*o.len()+64, "freed slots are dropped")
}

func TestStoreCountsFlavorsAndFindsByPosition(t *testing.T) {
	s := newState(Config{Catalog: &Catalog{}})
	for i, typ := range []string{"b", "a", "b"} {
		in := &instance{instanceBody: instanceBody{ID: fmt.Sprintf("ins-%d", i), Type: typ}}
		s.instances.add(in.ID, in)
	}
	s.instances.remove("ins-0")
	require.Equal(t, 2, s.instances.len())
	require.Equal(t, "ins-1", s.instances.at(0).ID)
	require.Equal(t, "ins-2", s.instances.at(1).ID)
	require.Equal(t, []quotaFlavor{{"a", "instance", "count", 1}, {"b", "instance", "count", 1}}, s.instances.flavorCounts())
	_, err := s.instances.get("ins-0")
	require.Equal(t, codeInstanceNotFound, err.code)
}
