package kgviz

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz/broker"
)

// TestHostileAssignorCannotReachTheEngine: the engine shares the lists of a
// plan between the leader, the coordinator and the members (a message is
// never changed once sent), and gives kgviz's own Range its input as it is.
// An assignor written by a student gets copies: one that scribbles over its
// input and over the plan it returned last time, after the engine took it,
// must leave the world exactly as an honest assignor with the same plans
// does, event for event.
func TestHostileAssignorCannotReachTheEngine(t *testing.T) {
	run := func(hostile bool) []string {
		var last map[string][]TopicPartition
		a := NewAssignor("range", Eager, func(members []MemberSubscription, topics map[string]int) map[string][]TopicPartition {
			plan := Range.Assign(members, topics)
			if hostile {
				for _, m := range members {
					for i := range m.Owned {
						m.Owned[i] = TopicPartition{Topic: "garbage", Partition: -7}
					}
					for i := range m.Topics {
						m.Topics[i] = "garbage"
					}
				}
				for _, l := range last {
					for i := range l {
						l[i] = TopicPartition{Topic: "garbage", Partition: -9}
					}
				}
			}
			last = plan
			return plan
		})
		w := NewWorld(WithAssignor(a))
		w.AddMember("C1").AddMember("C2").RunUntil(Stable())
		w.AddMember("C3").RunUntil(Stable())
		w.Close("C1").RunUntil(Stable()).Restart("C1").RunUntil(Stable())
		w.RunFor(20)
		require.NoError(t, w.Err())
		var out []string
		for _, e := range w.Events() {
			out = append(out, e.String())
		}
		return out
	}
	honest, hostile := run(false), run(true)
	require.Greater(t, len(honest), 100)
	require.Equal(t, honest, hostile)
}

// TestEventBodiesAreCopies: a message read back from the log is a fresh
// value; changing the lists in it changes neither the log nor the world.
func TestEventBodiesAreCopies(t *testing.T) {
	w := NewWorld()
	w.AddMember("C1").AddMember("C2").RunUntil(Stable())
	before := map[string][]string{}
	for name, l := range w.Assignment() {
		before[name] = l
	}
	seen := 0
	for i, e := range w.Events() {
		if r, ok := e.Body().(*broker.SyncGroupResponse); ok && len(r.Assignment) > 0 {
			want := e.String()
			for i := range r.Assignment {
				r.Assignment[i] = TopicPartition{Topic: "garbage", Partition: -1}
			}
			require.Equal(t, want, w.Event(i).String())
			seen++
		}
	}
	require.Positive(t, seen)
	require.Equal(t, before, w.Assignment())
	w.RunFor(30)
	require.NoError(t, w.Err())
	require.Equal(t, before, w.Assignment())
}
