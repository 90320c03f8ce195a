package kgviz_test

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/require"
)

// The same script run twice gives identical event records.
func TestDeterminism(t *testing.T) {
	script := func() *kgviz.World {
		w := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithAssignor(kgviz.CooperativeSticky))
		w.AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2").RunUntil(kgviz.Stable()).AddMember("C3", kgviz.Static())
		w.SlowNext("C2").RunUntil(kgviz.SlowStarted("C2")).Restart("C2")
		w.Crash("C3").LoseNextProduceResponse("C1").RunUntil(kgviz.Quiet())
		require.NoError(t, w.Err())
		return w
	}
	lines := func(w *kgviz.World) []string {
		var out []string
		for _, e := range w.Events() {
			out = append(out, e.String())
		}
		return out
	}
	a, b := script(), script()
	require.Greater(t, a.EventCount(), 500)
	require.Equal(t, lines(a), lines(b), "the same script, the same events")
	require.Equal(t, a.Stats(), b.Stats())
	require.Equal(t, a.Now(), b.Now())

	// The comparison can fail: another script gives other events.
	c := kgviz.NewWorld(kgviz.WithCommit(kgviz.Transactional), kgviz.WithAssignor(kgviz.CooperativeSticky))
	c.AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2").RunUntil(kgviz.Stable()).RunUntil(kgviz.Quiet())
	require.NoError(t, c.Err())
	require.NotEqual(t, lines(a), lines(c))
}
