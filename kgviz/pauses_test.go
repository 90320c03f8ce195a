package kgviz

// refreshPauses collects a whole rebalance's candidate partitions by
// scanning stamps instead of sorting when they are dense (sortStamped,
// pauses.go). The figure that keeps it: docs/performance.md, the perf3
// branches ("refreshPauses works from indices with buffers kept between
// refreshes and collects a whole rebalance's candidates by scanning instead
// of sorting"; the pause tracker was 12 % of the 500-member classic restart's
// CPU after them), measured with the other perf3 changes; no figure of this
// change alone was measured. A sort is the plain statement.

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortStampedMatchesSort: sortStamped gives the sorted candidates,
// whether it scans the stamps or sorts, over random sets dense and sparse,
// small and large, with stale stamps around them.
func TestSortStampedMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	seen := make([]uint32, 3000)
	stamp := uint32(0)
	for i := range 3000 {
		stamp++
		for range rng.IntN(50) { // stale stamps
			seen[rng.IntN(len(seen))] = stamp - 1
		}
		n := rng.IntN(40)
		if rng.IntN(3) == 0 {
			n = rng.IntN(3000)
		}
		span := max(1, n+rng.IntN(5*n+1))
		base := rng.IntN(len(seen) - min(span, len(seen)) + 1)
		var cand []int32
		lo, hi := int32(len(seen)), int32(-1)
		for range n {
			x := int32(base + rng.IntN(min(span, len(seen))))
			if seen[x] != stamp {
				seen[x] = stamp
				cand = append(cand, x)
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		want := slices.Clone(cand)
		slices.Sort(want)
		require.Equal(t, want, sortStamped(cand, seen, stamp, lo, hi), "case %d", i)
	}
}
