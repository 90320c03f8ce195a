package kgviz_test

import (
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"

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
		state := kgviz.GroupEmpty
		if g := b.Groups().Classic("billing"); g != nil {
			state = g.State()
		} else if g := b.Groups().Consumer("billing"); g != nil {
			state = g.State()
		}
		require.Equal(t, state, w.GroupState(), "%s: group state", pw.name)
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
		// World.Log, replayed from the appends and markers, is every
		// partition's log as the broker holds it.
		logs := map[kgviz.TopicPartition]*broker.Log{}
		for _, tp := range tps {
			logs[tp] = b.Partition(tp)
		}
		logs[kgviz.TopicPartition{Topic: "invoices", Partition: 0}] = inv
		if l := b.Groups().OffsetsLog("billing"); l != nil {
			logs[l.TopicPartition()] = l
		}
		for p, l := range b.TransactionStateLogs() {
			logs[kgviz.TopicPartition{Topic: "__transaction_state", Partition: p}] = l
		}
		for tp, l := range logs {
			got, err := w.Log(tp.Topic, tp.Partition)
			require.NoError(t, err)
			want := l.Records()
			if len(want) == 0 {
				want = nil
			}
			require.Equal(t, want, got, "%s: Log(%q, %d)", pw.name, tp.Topic, tp.Partition)
		}
	}
}
