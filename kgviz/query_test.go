package kgviz_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
)

// The world's questions answer DEMOS.md's claims from events alone.
func TestQueries(t *testing.T) {
	t.Run("demo 1: the leader's plan and the requests of a rebalance", func(t *testing.T) {
		w := scenarios.Rebalance()
		require.NoError(t, w.Err())
		g := w.Generation()
		assert.Equal(t, map[string][]string{"C1": {"o0", "o1", "p0", "p1"}, "C2": {"o2", "p2"}}, w.PlanSent(g))
		assert.Equal(t, w.Assignment(), w.AssignmentAt(g))
		assert.Nil(t, w.PlanSent(g+1), "no plan in a generation that never happened")
		syncs := w.Requests("C2", kgviz.SyncGroup)
		require.NotEmpty(t, syncs)
		last := syncs[len(syncs)-1]
		assert.True(t, last.Answered)
		assert.Equal(t, kgviz.NONE, last.Error)
		assert.Equal(t, g, last.Generation)
		req, ok := last.Request.(*kgviz.SyncGroupRequest)
		require.True(t, ok, "the request is the typed SyncGroupRequest, got %T", last.Request)
		assert.Empty(t, req.Assignments, "a follower sends an empty SyncGroup")
		for _, x := range w.Requests("C2", kgviz.AnyAPI) {
			assert.Equal(t, "C2", x.Member)
		}
		notices := w.Refusals("C1", kgviz.Heartbeat)
		require.NotEmpty(t, notices, "C1 hears of the rebalance through its heartbeat")
		assert.Equal(t, kgviz.REBALANCE_IN_PROGRESS, notices[0].Error)
	})
	t.Run("demo 4: processed twice, seen twice", func(t *testing.T) {
		w := scenarios.CrashAfter("p2.3", 2, kgviz.WithCommit(kgviz.CommitAfter))
		require.NoError(t, w.Err())
		assert.Equal(t, []string{"p2.3", "p2.4"}, w.ProcessedTwice())
		assert.Equal(t, []string{"inv(p2.3)", "inv(p2.4)"}, w.SeenTwice(kgviz.ReadUncommitted))
		batches := w.Batches("C2")
		require.NotEmpty(t, batches)
		assert.Equal(t, []string{"p2.3", "p2.4", "p2.5"}, batches[len(batches)-1], "the crashed batch")
	})
	t.Run("demo 10: a transaction's states, read_committed sees each invoice once", func(t *testing.T) {
		w := scenarios.Transactions()
		require.NoError(t, w.Err())
		states := w.TxnStates("tx-C1")
		require.NotEmpty(t, states)
		assert.Subset(t, states, []kgviz.TxnState{kgviz.TxnOngoing, kgviz.TxnPrepareCommit, kgviz.TxnCompleteCommit})
		assert.Empty(t, w.SeenTwice(kgviz.ReadCommitted))
		assert.NotEmpty(t, w.RecordsSeen(kgviz.ReadCommitted))
	})
	t.Run("demo 12: the zombie is refused and its application sees it", func(t *testing.T) {
		w, _ := scenarios.EpochFence(2, "C2", "p2.3")
		require.NoError(t, w.Err())
		fenced := false
		for _, r := range w.Refusals("C2", kgviz.AnyAPI) {
			fenced = fenced || r.Error == kgviz.PRODUCER_FENCED || r.Error == kgviz.INVALID_PRODUCER_EPOCH
		}
		assert.True(t, fenced, "the zombie's requests are refused by the epoch fence")
		assert.NotEmpty(t, w.Exceptions("C2"))
	})
	t.Run("an empty world answers empty", func(t *testing.T) {
		w := kgviz.NewWorld()
		assert.Empty(t, w.Requests("", kgviz.AnyAPI))
		assert.Empty(t, w.Refusals("C1", kgviz.AnyAPI))
		assert.Nil(t, w.PlanSent(1))
		assert.Empty(t, w.Batches("C1"))
		assert.Empty(t, w.TxnStates("tx-C1"))
	})
}
