package kgviz_test

import (
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
		{"bad timeout", func(w *kgviz.World) *kgviz.World { return w.AddMember("C3", kgviz.WithSessionTimeout(0)) }, `session.timeout.ms = 0: must be at least 1`},
		{"conflicting commit and producer", func(w *kgviz.World) *kgviz.World {
			return w.AddMember("C3", kgviz.WithProducer(kgviz.Plain), kgviz.WithCommit(kgviz.Transactional))
		}, `WithCommit(transactional) does not go with WithProducer(plain)`},
		{"unknown isolation", func(w *kgviz.World) *kgviz.World { return w.SetIsolation(kgviz.IsolationLevel(7)) }, `SetIsolation(7)`},
		{"unreachable condition", func(w *kgviz.World) *kgviz.World { return w.RunUntil(kgviz.Processed("C1", "o9.9")) }, `RunUntil(Processed("C1", "o9.9")): not reached within 10000 ticks`},
		{"empty condition", func(w *kgviz.World) *kgviz.World { return w.RunUntil(kgviz.Condition{}) }, `RunUntil: an empty condition`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := twoMembers(t)
			if tt.name == "crash a dead member" {
				w.Crash("C2", kgviz.Immediately())
			}
			now, events := w.Now(), len(w.Events())
			assert.NotPanics(t, func() { tt.call(w) })
			require.Error(t, w.Err())
			assert.Contains(t, w.Err().Error(), tt.want)
			if tt.name != "unreachable condition" { // a run that gave up keeps what it ran
				assert.Equal(t, now, w.Now(), "the clock did not move")
				if tt.name != "crash a dead member" {
					assert.Equal(t, events, len(w.Events()), "nothing was recorded")
				}
			}
			// the error sticks: later calls do nothing
			n := len(w.Events())
			w.RunFor(5).AddMember("C7")
			assert.Equal(t, n, len(w.Events()))
		})
	}
}

func TestBadWorldOptions(t *testing.T) {
	for _, tt := range []struct {
		opts []kgviz.Option
		want string
	}{
		{[]kgviz.Option{kgviz.WithOnlyTopics()}, "an empty topic list"},
		{[]kgviz.Option{kgviz.WithConfig("session.timeout", 6)}, `unknown config "session.timeout"`},
		{[]kgviz.Option{kgviz.WithTopic("orders", 0, "o")}, `topic "orders": 0 partitions`},
		{[]kgviz.Option{kgviz.WithTopic("refunds", 2, "o")}, `prefix "o" is already used by topic "orders"`},
		{[]kgviz.Option{kgviz.WithAssignor(nil)}, "WithAssignor(nil)"},
		{[]kgviz.Option{kgviz.Static()}, "Static is a member option"},
		{[]kgviz.Option{{}}, "an empty kgviz.Option"},
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
