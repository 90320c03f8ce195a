package machine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChaseIsOneCycle: a walk of Len() steps from any element comes back to
// it having visited every element once (no short loop that would stay in
// cache and understate the latency).
func TestChaseIsOneCycle(t *testing.T) {
	for _, size := range []int{8, 16, 24, 800, 8000, 1 << 16} {
		c, err := NewChase(size, 7)
		require.NoError(t, err)
		require.Equal(t, size/8, c.Len())
		seen := make([]bool, c.Len())
		j := uint64(3 % c.Len())
		for range c.Len() {
			require.False(t, seen[j], "size %d: element %d visited twice", size, j)
			seen[j] = true
			j = c.Walk(j, 1)
		}
		assert.Equal(t, uint64(3%c.Len()), j, "size %d: the walk does not come back", size)
	}
}

func TestBadInput(t *testing.T) {
	_, err := NewChase(7, 1)
	assert.EqualError(t, err, "machine.NewChase: size 7 is under 8 bytes")
}

// sink keeps the benchmark's walks from being optimized away.
var sink uint64

// BenchmarkDependentLoad reports ns per dependent load over 1, 8, 32 and
// 256 MiB (scripts/bench.sh prints them as the machine's figures).
func BenchmarkDependentLoad(b *testing.B) {
	for _, mb := range []int{1, 8, 32, 256} {
		b.Run(fmt.Sprintf("MiB=%d", mb), func(b *testing.B) {
			c, err := NewChase(mb<<20, 1)
			require.NoError(b, err)
			j := c.Walk(0, c.Len())
			b.ResetTimer()
			for b.Loop() {
				j = c.Walk(j, 1<<20)
			}
			sink = j
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(1<<20), "ns/load")
		})
	}
}
