package kgviz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad input is a clear error that names the bad value; the world is left
// unchanged (same tick, same events) and no call panics.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		call func(w *kgviz.World) *kgviz.World
		want string
	}{
		{"unknown member", func(w *kgviz.World) *kgviz.World { return w.Crash("C9") }, `Crash("C9"): no such member (members: C1, C2)`},
		{"duplicate member", func(w *kgviz.World) *kgviz.World { return w.AddMember("C2") }, `AddMember("C2"): a member with this id already exists`},
		{"empty member id", func(w *kgviz.World) *kgviz.World { return w.AddMember("") }, `AddMember(""): an empty member id`},
		{"join a duplicate member", func(w *kgviz.World) *kgviz.World { return w.Join("C1") }, `AddMember("C1"): a member with this id already exists`},
		{"member named like the broker", func(w *kgviz.World) *kgviz.World { return w.AddMember("B1") }, `"B1" is the broker's name`},
		{"crash a dead member", func(w *kgviz.World) *kgviz.World {
			w.Crash("C2", kgviz.Immediately())
			return w.Crash("C2")
		}, `Crash("C2"): the member is not running`},
		{"negative tick count", func(w *kgviz.World) *kgviz.World { return w.RunFor(-3) }, `RunFor(-3): a negative tick count`},
		{"negative records", func(w *kgviz.World) *kgviz.World { return w.Crash("C1", kgviz.AfterRecords(-2)) }, `AfterRecords(-2)`},
		{"crash in the past", func(w *kgviz.World) *kgviz.World { return w.Crash("C1", kgviz.AtTick(1)) }, `AtTick(1)): tick 1 is in the past`},
		{"nil assignor", func(w *kgviz.World) *kgviz.World { return w.SetAssignor(nil) }, `SetAssignor(nil)`},
		{"world option on a member", func(w *kgviz.World) *kgviz.World { return w.AddMember("C3", kgviz.WithRecords(3)) }, `records per partition is a world option`},
		{"unknown reconciliation rule", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("C3", kgviz.WithReconciliation(kgviz.ClientReconciliation(-1)))
		}, `WithReconciliation(-1): unknown reconciliation rule; use kgviz.ReconcileKafka411 or kgviz.ReconcileKafka440`},
		{"bad timeout", func(w *kgviz.World) *kgviz.World { return w.AddMember("C3", kgviz.WithSessionTimeout(0)) }, `session.timeout.ms = 0: must be at least 1`},
		{"negative SyncGroup delay", func(w *kgviz.World) *kgviz.World { return w.AddMember("C3", kgviz.WithSyncGroupDelay(-1)) }, `WithSyncGroupDelay(-1): ticks must be 0..60`},
		{"SyncGroup delay too long", func(w *kgviz.World) *kgviz.World { return w.AddMember("C3", kgviz.WithSyncGroupDelay(61)) }, `WithSyncGroupDelay(61): ticks must be 0..60`},
		{"conflicting commit and producer", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("C3", kgviz.WithProducer(kgviz.Plain), kgviz.WithCommit(kgviz.Transactional))
		}, `WithCommit(transactional) does not go with WithProducer(plain)`},
		{"unknown isolation", func(w *kgviz.World) *kgviz.World { return w.SetIsolation(kgviz.IsolationLevel(7)) }, `SetIsolation(7)`},
		{"unreachable condition", func(w *kgviz.World) *kgviz.World { return w.RunUntil(kgviz.Processed("C1", "p2.7")) }, `RunUntil(Processed("C1", "p2.7")): not reached within 10000 ticks`},
		{"unknown record in a condition", func(w *kgviz.World) *kgviz.World { return w.RunUntil(kgviz.Processed("C1", "o9.9")) }, `no input record "o9.9"`},
		{"unknown member in a condition", func(w *kgviz.World) *kgviz.World { return w.RunUntil(kgviz.Polled("c2", "p2.3")) }, `RunUntil(Polled("c2", "p2.3")): no such member "c2" (members: C1, C2)`},
		{"crashed without a crash", func(w *kgviz.World) *kgviz.World { return w.RunUntil(kgviz.Crashed("C1")) }, `no crash is planned for C1 (call Crash first)`},
		{"stable with nobody running", func(w *kgviz.World) *kgviz.World { return w.Close("C1").Close("C2").RunUntil(kgviz.Stable()) }, `RunUntil(Stable()): cannot be reached at tick`},
		{"empty condition", func(w *kgviz.World) *kgviz.World { return w.RunUntil(kgviz.Condition{}) }, `RunUntil: an empty condition`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := twoMembers(t)
			if tt.name == "crash a dead member" {
				w.Crash("C2", kgviz.Immediately())
			}
			now, events := w.Now(), w.EventCount()
			assert.NotPanics(t, func() { tt.call(w) })
			require.Error(t, w.Err())
			assert.Contains(t, w.Err().Error(), tt.want)
			last := w.Event(w.EventCount() - 1)
			assert.Equal(t, kgviz.EvWorldStopped, last.Type, "the error is recorded, for the charts")
			assert.Equal(t, w.Err().Error(), last.Text())
			assert.Contains(t, w.Stats().String(), "STOPPED: "+w.Err().Error(), "Stats says so")
			assert.Contains(t, w.String(), "STOPPED at tick", "and so does the world")
			if tt.name != "unreachable condition" { // a run that gave up keeps what it ran
				assert.Equal(t, now, w.Now(), "the clock did not move")
				if tt.name != "crash a dead member" && tt.name != "stable with nobody running" {
					assert.Equal(t, events+1, w.EventCount(), "nothing was recorded but the error")
				}
			}
			// the error sticks: later calls do nothing
			n := w.EventCount()
			w.RunFor(5).AddMember("C7")
			assert.Equal(t, n, w.EventCount())
		})
	}
}

func TestBadWorldOptions(t *testing.T) {
	for _, tt := range []struct {
		opts []kgviz.Option
		want string
	}{
		{[]kgviz.Option{kgviz.WithOnlyTopics()}, "no input topic: WithOnlyTopics() needs at least one WithTopic"},
		{[]kgviz.Option{kgviz.WithConfig("session.timeout", 6)}, `unknown config "session.timeout"`},
		{[]kgviz.Option{kgviz.WithTopic("orders", 0, "o")}, `topic "orders": 0 partitions`},
		{[]kgviz.Option{kgviz.WithTopic("refunds", 2, "o")}, `prefix "o" is already used by topic "orders"`},
		{[]kgviz.Option{kgviz.WithAssignor(nil)}, "WithAssignor(nil)"},
		{[]kgviz.Option{kgviz.Static()}, "Static is a member option"},
		{[]kgviz.Option{{}}, "an empty kgviz.Option"},
		{[]kgviz.Option{kgviz.WithTransactionVersion(3)}, "WithTransactionVersion(3): transaction.version is 1 or 2"},
		{[]kgviz.Option{kgviz.WithGroupProtocol(kgviz.GroupProtocol(7))}, "WithGroupProtocol(7): unknown group protocol"},
		{[]kgviz.Option{kgviz.WithGroupProtocol(kgviz.Consumer), kgviz.WithRemoteAssignor("sticky")}, `group.remote.assignor="sticky"`},
		{[]kgviz.Option{kgviz.WithCommitEvery(0)}, "commit every n batches"},
		{[]kgviz.Option{kgviz.WithReconciliation(kgviz.ClientReconciliation(7))}, "WithReconciliation(7): unknown reconciliation rule"},
	} {
		w := kgviz.NewWorld(tt.opts...)
		require.Error(t, w.Err())
		assert.Contains(t, w.Err().Error(), tt.want)
		assert.NotPanics(t, func() { w.AddMember("C1").RunUntil(kgviz.Stable()) })
	}
	w := kgviz.NewWorld(kgviz.WithConfig("session.timeout.ms", 10), kgviz.WithTopic("refunds", 2, "r"))
	require.NoError(t, w.Err())
	assert.Equal(t, []string{"o0", "o1", "o2", "p0", "p1", "p2", "r0", "r1"}, w.Partitions())
}

// TestFetchOrder: with kgviz.FetchDrain a member's polls drain one partition
// before the next, and a batch runs across a partition's end (the Java
// consumer's FetchCollector); with the default they take turns. A bad order is
// refused by name, and only for the world.
func TestFetchOrder(t *testing.T) {
	firstRecords := func(o kgviz.FetchOrder) []string {
		w := kgviz.NewWorld(kgviz.WithOnlyTopics(), kgviz.WithTopic("orders", 2, "o"), kgviz.WithRecords(4), kgviz.WithFetchOrder(o))
		require.NoError(t, w.Err())
		w.AddMember("C1").RunUntil(kgviz.Quiet())
		require.NoError(t, w.Err())
		var got []string
		for _, e := range w.Events() {
			if e.Type == kgviz.EvFetched && e.Member == "C1" {
				got = append(got, e.Record)
			}
		}
		return got
	}
	assert.Equal(t, []string{"o0.0", "o0.1", "o0.2", "o1.0", "o1.1", "o1.2", "o0.3", "o1.3"}, firstRecords(kgviz.FetchRoundRobin))
	assert.Equal(t, []string{"o0.0", "o0.1", "o0.2", "o0.3", "o1.0", "o1.1", "o1.2", "o1.3"}, firstRecords(kgviz.FetchDrain))

	w := kgviz.NewWorld(kgviz.WithFetchOrder(kgviz.FetchOrder(5)))
	require.Error(t, w.Err())
	assert.Contains(t, w.Err().Error(), "WithFetchOrder(5): unknown fetch order")
	w = kgviz.NewWorld().AddMember("C1", kgviz.WithFetchOrder(kgviz.FetchDrain))
	require.Error(t, w.Err())
	assert.Contains(t, w.Err().Error(), "WithFetchOrder")
	assert.Equal(t, "FetchDrain", kgviz.FetchDrain.String())
}

// TestSyncGroupDelay: demo 3's four cooperative joins. As scripted every
// SyncGroup reaches the broker before any member rejoins; with C2's
// application busy 3 ticks after its JoinGroup answer (kgviz.WithSyncGroupDelay),
// C2's SyncGroup of C4's join comes after C1 synced, revoked p0 and rejoined:
// Kafka's GroupMetadataManager.classicGroupSync answers it
// REBALANCE_IN_PROGRESS and C2 joins the next generation, which the join
// needed anyway (C4 gets p0 in it): still two generations per join.
func TestSyncGroupDelay(t *testing.T) {
	run := func(c2 ...kgviz.Option) (*kgviz.World, []string) {
		w := kgviz.NewWorld(kgviz.WithAssignor(kgviz.CooperativeSticky))
		var gens []string
		for _, m := range []string{"C1", "C2", "C3", "C4"} {
			var opts []kgviz.Option
			if m == "C2" {
				opts = c2
			}
			before := w.Generation()
			w.AddMember(m, opts...).RunUntil(kgviz.Stable())
			require.NoError(t, w.Err())
			gens = append(gens, fmt.Sprintf("%s+%d", m, w.Generation()-before))
		}
		return w, gens
	}
	rejected := func(w *kgviz.World) []string {
		var got []string
		for _, e := range w.Events() {
			if s := e.String(); strings.Contains(s, "SyncGroup response") && strings.Contains(s, "REBALANCE_IN_PROGRESS") {
				got = append(got, strings.Fields(s)[3])
			}
		}
		return got
	}
	w, gens := run()
	assert.Empty(t, rejected(w))
	assert.Equal(t, []string{"C1+1", "C2+2", "C3+2", "C4+2"}, gens)
	plain := w.Assignment()

	w, gens = run(kgviz.WithSyncGroupDelay(3))
	assert.Equal(t, []string{"C2"}, rejected(w), "C2's SyncGroup answered REBALANCE_IN_PROGRESS")
	assert.Equal(t, []string{"C1+1", "C2+2", "C3+2", "C4+2"}, gens)
	assert.Equal(t, plain, w.Assignment())

	w, _ = run(kgviz.WithSyncGroupDelay(0))
	assert.Empty(t, rejected(w), "0 is the default")
}
