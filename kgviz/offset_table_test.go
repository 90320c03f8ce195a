package kgviz

// A member's committed positions, positions and log ends are offsetTables,
// slices by input-partition index kept in pages, instead of maps
// (member_poll.go). The figure that keeps them: docs/performance.md, the
// perf3 branches ("committed positions and log ends are slices by partition
// index") and perf4/perf5 ("Offset tables are kept in pages"), measured
// together with the other changes of those branches; no figure of this
// change alone was measured. The map it replaces is the plain statement.

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOffsetTableMatchesMap: an offsetTable answers as the map[int32]int it
// replaces (committed offsets, log ends, and positions, which forget
// partitions) over random puts, gets, deletes and clears, index -1 (not an
// input partition) included, before and after its first put, in worlds of
// one page and of many.
func TestOffsetTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for c := range 400 {
		n := 1 + rng.IntN(50)
		if c%2 == 1 {
			n = 1 + rng.IntN(5*offsetPageSize)
		}
		table, ref := newOffsetTable(n), map[int32]int{}
		for op := range 400 {
			i := int32(rng.IntN(n+1)) - 1
			switch r := rng.IntN(20); {
			case r < 6:
				off := rng.IntN(7) - 1
				table.put(i, off)
				ref[i] = off
				continue
			case r < 9:
				table.del(i)
				delete(ref, i)
				continue
			case r == 9 && op%7 == 0:
				table.reset()
				clear(ref)
				continue
			}
			want, wantOK := ref[i]
			got, gotOK := table.get(i)
			require.Equal(t, wantOK, gotOK, "case %d op %d: partition %d", c, op, i)
			require.Equal(t, want, got, "case %d op %d: partition %d", c, op, i)
			require.Equal(t, wantOK, table.has(i), "case %d op %d: partition %d", c, op, i)
			require.Equal(t, ref[i], table.at(i), "case %d op %d: partition %d", c, op, i)
		}
		require.Equal(t, ref, table.entries(), "case %d", c)
	}
}

// entries returns the table as the map it stands for.
func (t *offsetTable) entries() map[int32]int {
	out := map[int32]int{}
	for i := int32(-1); i < int32(t.n); i++ {
		if off, ok := t.get(i); ok {
			out[i] = off
		}
	}
	return out
}
