package kgviz_test

import (
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"

	"github.com/stretchr/testify/require"
)

// TestFoldAnswersWhatTheBrokerHolds: World's LSO, HighWatermark, Committed
// and Generation are folds of the events (one query layer, kgviz/fold); on
// every demo and the 300 random scripts they say what the broker itself
// holds at the end (its invoices-0 log, its group coordinator).
func TestFoldAnswersWhatTheBrokerHolds(t *testing.T) {
	for _, pw := range pinnedWorlds(t, false) {
		if strings.HasPrefix(pw.name, "rolling") {
			continue
		}
		w := pw.make()
		b := w.BrokerState()
		inv := b.Partition(kgviz.TopicPartition{Topic: "invoices", Partition: 0})
		require.Equal(t, inv.LastStableOffset(), w.LSO(), "%s: LSO", pw.name)
		require.Equal(t, inv.HighWatermark(), w.HighWatermark(), "%s: high watermark", pw.name)
		live := 0
		if g := b.Groups().Classic("billing"); g != nil {
			live = g.Generation()
		} else if g := b.Groups().Consumer("billing"); g != nil {
			live = g.GroupEpoch()
		}
		require.Equal(t, live, w.Generation(), "%s: generation", pw.name)
		tps, short := w.InputPartitions()
		for i, tp := range tps {
			want := -1
			if off, ok := b.Groups().Committed("billing", tp); ok {
				want = off
			}
			got, err := w.Committed(short[i])
			require.NoError(t, err)
			require.Equal(t, want, got, "%s: committed %s", pw.name, short[i])
		}
	}
}
