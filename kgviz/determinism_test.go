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
	a, b := script(), script()
	require.Equal(t, a.Events(), b.Events())
	require.Equal(t, a.Stats(), b.Stats())
	require.Greater(t, len(a.Events()), 500)
}
