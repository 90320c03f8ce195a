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
		leader := ""
		if g := b.Groups().Classic("billing"); g != nil {
			leader = g.MemberClientID(g.Leader())
		}
		require.Equal(t, leader, w.Leader(), "%s: leader", pw.name)
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
			if strings.HasPrefix(tp.Topic, "__") {
				continue
			}
			pids := map[int64]bool{0: true, 1001: true}
			for _, r := range want {
				pids[r.PID] = true
			}
			for pid := range pids {
				ps, err := w.ProducerState(tp.Topic, tp.Partition, pid)
				require.NoError(t, err)
				require.Equal(t, l.ProducerState(pid), ps, "%s: ProducerState(%q, %d, %d)", pw.name, tp.Topic, tp.Partition, pid)
			}
		}
	}
}

// TestLeaderAndGroupStateAtEveryTick: World.Leader and World.GroupState,
// folded from the events, say what the coordinator holds at every tick of
// a leader's crash (removed on session timeout, a new one elected) and of
// a static leader's restart (its new member id replaces it as leader).
func TestLeaderAndGroupStateAtEveryTick(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []kgviz.Option
		act  func(w *kgviz.World)
	}{
		{"leader crashes", nil, func(w *kgviz.World) { w.Crash("C1") }},
		{"static leader restarts", []kgviz.Option{kgviz.Static()}, func(w *kgviz.World) { w.Restart("C1") }},
		{"leader closes", nil, func(w *kgviz.World) { w.Close("C1") }},
		// C3 takes over the leader's group.instance.id: the leader is C3 now
		{"leader's instance id taken", []kgviz.Option{kgviz.WithInstanceID("i1")}, func(w *kgviz.World) {
			w.AddMember("C3", kgviz.WithInstanceID("i1"))
		}},
	} {
		w := kgviz.NewWorld().AddMember("C1", tc.opts...).RunUntil(kgviz.Stable()).AddMember("C2").RunUntil(kgviz.Stable())
		require.Equal(t, "C1", w.Leader(), tc.name)
		tc.act(w)
		leaders := map[string]bool{}
		for range 80 {
			w.RunFor(1)
			require.NoError(t, w.Err())
			g := w.BrokerState().Groups().Classic("billing")
			require.Equal(t, g.MemberClientID(g.Leader()), w.Leader(), "%s: leader at tick %d", tc.name, w.Now())
			require.Equal(t, g.State(), w.GroupState(), "%s: group state at tick %d", tc.name, w.Now())
			leaders[w.Leader()+" "+g.Leader()] = true
		}
		require.Greater(t, len(leaders), 1, "%s: the leader changed", tc.name)
	}
}
