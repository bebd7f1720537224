package fake

import (
	"fmt"
	"math/rand/v2"
	"net/http"
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

// A catalogue may name its keys and volumes as the fake names those it creates: the fake hands out
// the next free ID, so that no two resources share one and lists, reads and deletes stay whole.
func TestNewIDsSkipTheCatalogues(t *testing.T) {
	cat := DefaultCatalog()
	cat.Volumes[0].ID, cat.SSHKeys[0].ID = "vol-000001", "key-000001"
	e := newEngine(Config{Catalog: &cat})
	v := ok(t, e, http.StatusCreated, "POST", "/compute/v1/volumes", `{"name":"v","size":10,"region":"NORD-NO-KRS-1"}`)
	require.Equal(t, "vol-000002", v["volume"].(map[string]any)["id"])
	k := ok(t, e, http.StatusCreated, "POST", "/compute/v1/ssh-keys",
		`{"name":"k","value":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOpdKM8wSI07+PO4xLDL7zW/kNWGbdFXeHyBU1TRlBn"}`)
	require.Equal(t, "key-000002", k["id"])
	ok(t, e, http.StatusNoContent, "DELETE", "/compute/v1/volumes/vol-000001", "")
	list := ok(t, e, http.StatusOK, "GET", "/compute/v1/volumes", "")
	require.EqualValues(t, len(cat.Volumes), list["total_count"], "the catalogue's volumes less one, plus the new one")
	require.Equal(t, "v", ok(t, e, http.StatusOK, "GET", "/compute/v1/volumes/vol-000002", "")["volume"].(map[string]any)["name"])
}
