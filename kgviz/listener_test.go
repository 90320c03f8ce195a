package kgviz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commitProcessed is the rebalance listener of Kafka: The Definitive Guide
// (ch. 4, "Rebalance Listeners"): commit, for every partition being revoked,
// the offset after the last record processed.
func commitProcessed(revoked []string, lastProcessed map[string]int) map[string]int {
	out := map[string]int{}
	for _, p := range revoked {
		if off, ok := lastProcessed[p]; ok {
			out[p] = off + 1
		}
	}
	return out
}

// listenerWorld: C1 and C2 (assignor a) commit after every third batch, with
// the listener l (nil: none); once C2 is busy, event happens: "join" (C3
// joins), "close" (C2 closes) or "crash" (C2 crashes). The world runs until
// every record is consumed and committed.
func listenerWorld(t *testing.T, a kgviz.Assignor, l func([]string, map[string]int) map[string]int, event string) *kgviz.World {
	t.Helper()
	opts := []kgviz.Option{kgviz.WithAssignor(a), kgviz.WithCommitEvery(3)}
	if l != nil {
		opts = append(opts, kgviz.WithRebalanceListener(kgviz.ConsumerRebalanceListener{OnPartitionsRevoked: l}))
	}
	w := kgviz.NewWorld(opts...).Join("C1", "C2").RunFor(7)
	switch event {
	case "join":
		w.AddMember("C3").RunUntil(kgviz.Stable())
	case "close":
		w.Close("C2").RunUntil(kgviz.Stable())
	case "crash":
		w.Crash("C2", kgviz.Immediately()).RunUntil(kgviz.Stable())
	}
	w.RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	return w
}

// A graceful rebalance repeats the work processed since the last commit,
// unless onPartitionsRevoked commits it; a crash calls no listener.
// Kafka: ConsumerCoordinator.onJoinPrepare / onJoinComplete / onLeavePrepare
// call ConsumerRebalanceListener.onPartitionsRevoked.
func TestRebalanceListenerCommitsWhatWasProcessed(t *testing.T) {
	for _, tc := range []struct {
		assignor kgviz.Assignor
		event    string
		without  []string // processed twice without a listener
		with     []string // processed twice with commitProcessed
	}{
		// eager: C1 revokes everything too, and reads its own partitions
		// again from their committed offsets
		{kgviz.Range, "join", []string{"o0.0", "o0.1", "o0.2"}, nil},
		{kgviz.Range, "close", []string{"o0.0", "o0.1", "o0.2", "o2.0", "o2.1", "o2.2", "p1.0", "p1.1", "p1.2", "p2.0", "p2.1", "p2.2"}, nil},
		{kgviz.Range, "crash", []string{"o0.0", "o0.1", "o0.2", "o2.0", "o2.1", "o2.2", "p1.0", "p1.1", "p1.2"}, []string{"o2.0", "o2.1", "o2.2"}},
		// cooperative: only what moves
		{kgviz.CooperativeSticky, "join", []string{"o1.6", "o1.7"}, nil},
		{kgviz.CooperativeSticky, "close", []string{"o2.0", "o2.1", "o2.2", "p1.0", "p1.1", "p1.2"}, nil},
		{kgviz.CooperativeSticky, "crash", []string{"o2.0", "o2.1", "o2.2", "p1.0"}, []string{"o2.0", "o2.1", "o2.2", "p1.0"}},
	} {
		t.Run(tc.assignor.Name()+"/"+tc.event, func(t *testing.T) {
			assert.Equal(t, tc.without, listenerWorld(t, tc.assignor, nil, tc.event).ProcessedTwice(), "without a listener")
			w := listenerWorld(t, tc.assignor, commitProcessed, tc.event)
			assert.Equal(t, tc.with, w.ProcessedTwice(), "with the listener")
			assert.Zero(t, w.Stats().Lost)
		})
	}
}

// Where the listener's commit goes on the wire: eager, before the member's
// JoinGroup, with the generation it still holds; cooperative, after the
// SyncGroup that took the partitions away and before the follow-up
// JoinGroup, with the new generation. Both are accepted
// (GroupMetadataManager: a current-generation commit is accepted in
// PreparingRebalance).
func TestRebalanceListenerCommitOrder(t *testing.T) {
	for _, tc := range []struct {
		assignor kgviz.Assignor
		previous kgviz.APIKey // the group request before the listener's commit
		gen      int          // the generation the commit carries
	}{
		{kgviz.Range, kgviz.SyncGroup, 1},
		{kgviz.CooperativeSticky, kgviz.SyncGroup, 2},
	} {
		t.Run(tc.assignor.Name(), func(t *testing.T) {
			w := kgviz.NewWorld(kgviz.WithAssignor(tc.assignor), kgviz.WithCommitEvery(3),
				kgviz.WithRebalanceListener(kgviz.ConsumerRebalanceListener{OnPartitionsRevoked: commitProcessed})).Join("C1").RunFor(9)
			from := w.Now()
			w.AddMember("C2").RunUntil(kgviz.Stable())
			require.NoError(t, w.Err())
			var group []kgviz.APIKey // C1's group requests since C2 was added, the listener's commit marked
			var commit kgviz.Exchange
			for _, x := range w.Requests("C1", kgviz.AnyAPI) {
				if x.Tick < from {
					continue
				}
				switch x.API {
				case kgviz.JoinGroup, kgviz.SyncGroup:
					group = append(group, x.API)
				case kgviz.OffsetCommit:
					for _, po := range x.Request.(*broker.OffsetCommitRequest).Offsets {
						if po.Partition == (kgviz.TopicPartition{Topic: "orders", Partition: 2}) {
							commit = x // the last commit of o2
							group = append(group, kgviz.OffsetCommit)
						}
					}
				}
			}
			require.NotNil(t, commit.Request, "C1 committed o2 before giving it up")

			if tc.assignor.Name() == kgviz.Range.Name() {
				// a regular commit (every third batch), then the listener's,
				// then JoinGroup
				assert.Equal(t, []kgviz.APIKey{kgviz.OffsetCommit, kgviz.OffsetCommit, kgviz.JoinGroup, kgviz.SyncGroup}, group, "eager: commit, then JoinGroup")
			} else {
				// a regular commit (every third batch), the first rebalance
				// takes o2 p1 p2 away, the listener commits, the follow-up
				// rebalance hands them over
				assert.Equal(t, []kgviz.APIKey{kgviz.OffsetCommit, kgviz.JoinGroup, kgviz.SyncGroup, kgviz.OffsetCommit, kgviz.JoinGroup, kgviz.SyncGroup}, group,
					"cooperative: the first rebalance revokes, the commit, then the follow-up rejoin")
			}
			assert.Equal(t, tc.gen, commit.Generation)
			assert.Equal(t, kgviz.NONE, commit.Error)
			assert.Empty(t, w.ProcessedTwice())
		})
	}
}

// The listener is called with the partitions being revoked and what the
// application processed of every partition it owns.
func TestRebalanceListenerArguments(t *testing.T) {
	type call struct {
		revoked []string
		last    map[string]int
	}
	var calls []call
	spy := func(revoked []string, last map[string]int) map[string]int {
		calls = append(calls, call{revoked, last})
		return commitProcessed(revoked, last)
	}
	w := kgviz.NewWorld(kgviz.WithAssignor(kgviz.CooperativeSticky), kgviz.WithCommitEvery(3),
		kgviz.WithRebalanceListener(kgviz.ConsumerRebalanceListener{OnPartitionsRevoked: spy})).Join("C1").RunFor(9)
	w.AddMember("C2").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	require.Len(t, calls, 1, "one revocation: C1 gives o2 p1 p2 up")
	assert.Equal(t, []string{"o2", "p1", "p2"}, calls[0].revoked)
	assert.Equal(t, map[string]int{"o0": 2, "o1": 2, "o2": 2, "p0": 2}, calls[0].last, "C1's first four batches: o0.0-2, o1.0-2, o2.0-2, p0.0-2")
}

// A listener that misbehaves stops the world with an error that names the
// member and what was wrong.
func TestRebalanceListenerBadOutput(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    func([]string, map[string]int) map[string]int
		err  string
	}{
		{"panics", func([]string, map[string]int) map[string]int { panic("boom") }, "the rebalance listener of C1 panicked in onPartitionsRevoked([o0 o1 o2 p0 p1 p2]): boom"},
		{"unknown partition", func([]string, map[string]int) map[string]int { return map[string]int{"x9": 1} }, `rebalance listener of C1 returned an offset for "x9", which is not a partition of this world`},
		{"negative offset", func([]string, map[string]int) map[string]int { return map[string]int{"o0": -1} }, "returned offset -1 for o0: an offset is never negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := kgviz.NewWorld(kgviz.WithRebalanceListener(kgviz.ConsumerRebalanceListener{OnPartitionsRevoked: tc.l})).Join("C1").RunFor(6)
			w.AddMember("C2").RunUntil(kgviz.Stable())
			require.Error(t, w.Err())
			assert.Contains(t, w.Err().Error(), tc.err)
		})
	}
	w := kgviz.NewWorld(kgviz.WithRebalanceListener(kgviz.ConsumerRebalanceListener{}))
	require.Error(t, w.Err())
	assert.Contains(t, w.Err().Error(), "OnPartitionsRevoked is nil")
	w = kgviz.NewWorld(kgviz.WithCommitEvery(0))
	require.Error(t, w.Err())
	assert.Contains(t, w.Err().Error(), "= 0: must be at least 1")
}

// WithCommitEvery(n): one OffsetCommit per n batches while there is work,
// and one more when the member has caught up.
func TestCommitEvery(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := kgviz.NewWorld(kgviz.WithCommitEvery(n)).Join("C1").RunUntil(kgviz.Quiet())
			require.NoError(t, w.Err())
			batches := len(w.Batches("C1"))
			commits := len(w.Requests("C1", kgviz.OffsetCommit))
			assert.Equal(t, 16, batches, "48 records in polls of 3")
			want := batches / n
			if batches%n != 0 {
				want++ // the commit once caught up
			}
			assert.Equal(t, want, commits)
			assert.Empty(t, w.ProcessedTwice())
		})
	}
	// with commit before processing it changes nothing
	a := kgviz.NewWorld(kgviz.WithCommit(kgviz.CommitBefore)).Join("C1").RunUntil(kgviz.Quiet())
	b := kgviz.NewWorld(kgviz.WithCommit(kgviz.CommitBefore), kgviz.WithCommitEvery(3)).Join("C1").RunUntil(kgviz.Quiet())
	assert.Equal(t, len(a.Requests("C1", kgviz.OffsetCommit)), len(b.Requests("C1", kgviz.OffsetCommit)))
	assert.True(t, strings.HasPrefix(b.Stats().String(), "processed=48"))
}

// The consumer group protocol (KIP-848) calls the same listener: the
// AsyncKafkaConsumer's reconciliation runs onPartitionsRevoked before it
// acknowledges a revocation (ConsumerMembershipManager.revokePartitions),
// and close() before the leave heartbeat. A graceful join or close then
// repeats nothing; without a listener a close repeats what C2 had not
// committed.
func TestRebalanceListenerConsumerProtocol(t *testing.T) {
	run := func(l func([]string, map[string]int) map[string]int, event string) *kgviz.World {
		opts := []kgviz.Option{kgviz.WithGroupProtocol(kgviz.Consumer), kgviz.WithCommitEvery(3)}
		if l != nil {
			opts = append(opts, kgviz.WithRebalanceListener(kgviz.ConsumerRebalanceListener{OnPartitionsRevoked: l}))
		}
		w := kgviz.NewWorld(opts...).Join("C1", "C2").RunFor(7)
		switch event {
		case "join":
			w.AddMember("C3").RunUntil(kgviz.Stable())
		case "close":
			w.Close("C2").RunUntil(kgviz.Stable())
		}
		w.RunUntil(kgviz.Quiet())
		require.NoError(t, w.Err())
		return w
	}
	for _, event := range []string{"join", "close"} {
		t.Run(event, func(t *testing.T) {
			if event == "close" {
				assert.NotEmpty(t, run(nil, event).ProcessedTwice(), "without a listener")
			}
			w := run(commitProcessed, event)
			assert.Empty(t, w.ProcessedTwice(), "with the listener")
			assert.Zero(t, w.Stats().Lost)
		})
	}
}

// TestCooperativeJoinsWithCommitEvery is the demo's C1, C2, C3 joining one at
// a time under cooperative-sticky with the commit every n batches of
// WithCommitEvery. A member's connection is first in, first out: a heartbeat
// sent just before that member's JoinGroup meets the rebalance, never the
// generation its JoinGroup completes (which would answer ILLEGAL_GENERATION
// and make the member drop its partitions as lost). A SyncGroup answered
// REBALANCE_IN_PROGRESS leaves the member COMPLETING_REBALANCE
// (AbstractCoordinator.SyncGroupResponseHandler): it keeps heartbeating
// while it processes, so its session does not expire, and it rejoins at its
// next poll. Once, commit-every 4 took 9 generations, removed C2 by session
// timeout and processed 25 records twice.
func TestCooperativeJoinsWithCommitEvery(t *testing.T) {
	for n := 1; n <= 8; n++ {
		w := kgviz.NewWorld(kgviz.WithAssignor(kgviz.CooperativeSticky), kgviz.WithCommitEvery(n)).Join("C1", "C2", "C3")
		require.NoError(t, w.Err(), "commit every %d", n)
		assert.Equal(t, 5, w.Generation(), "commit every %d: two generations per join after the first", n)
		assert.Zero(t, w.Stats().Duplicates, "commit every %d", n)
		for _, e := range w.Events() {
			if e.Type != kgviz.EvSend || !e.Response {
				continue
			}
			assert.False(t, e.API == kgviz.Heartbeat && e.Error == kgviz.ILLEGAL_GENERATION,
				"commit every %d: %v", n, e)
			assert.False(t, e.API == kgviz.JoinGroup && e.Error == kgviz.UNKNOWN_MEMBER_ID,
				"commit every %d: %v", n, e)
		}
		for _, e := range w.Events() {
			assert.NotEqual(t, kgviz.EvMemberRemoved, e.Type, "commit every %d: %v", n, e)
		}
	}
}

// TestSyncGroupRebalanceInProgressKeepsHeartbeating: C4 joins while C2's
// SyncGroup of generation 4 is in flight; the coordinator answers it
// REBALANCE_IN_PROGRESS. Kafka's SyncGroupResponseHandler only fails the join
// future, so C2 stays COMPLETING_REBALANCE, its heartbeat thread keeps
// running, and its next poll() rejoins (joinGroupIfNeeded). C2 then rejoins
// with what it owns and the group settles with all four members.
func TestSyncGroupRebalanceInProgressKeepsHeartbeating(t *testing.T) {
	w := kgviz.NewWorld(kgviz.WithAssignor(kgviz.CooperativeSticky), kgviz.WithCommitEvery(3)).Join("C1", "C2")
	w.AddMember("C3").RunUntil(kgviz.On("completing", func(e kgviz.Event) bool {
		return e.Type == kgviz.EvGroupState && e.GroupState == kgviz.GroupCompletingRebalance
	}))
	w.AddMember("C4").RunUntil(kgviz.On("C2's SyncGroup failed", func(e kgviz.Event) bool {
		return e.Type == kgviz.EvSend && e.Response && e.Member == "C2" && e.API == kgviz.SyncGroup && e.Error == kgviz.REBALANCE_IN_PROGRESS
	}))
	require.NoError(t, w.Err())
	w.Step() // the answer arrives
	c2, err := w.Member("C2")
	require.NoError(t, err)
	assert.Equal(t, kgviz.ClassicCompletingRebalance, c2.Membership, "C2 after its SyncGroup failed: %+v", c2)
	assert.True(t, c2.RejoinNeeded)
	// Until it rejoins, C2 stays COMPLETING_REBALANCE (its heartbeat thread
	// runs) and the coordinator keeps it.
	for steps := 0; ; steps++ {
		require.Less(t, steps, 20, "C2 never rejoined")
		if m, _ := w.Member("C2"); m.Membership != kgviz.ClassicCompletingRebalance {
			assert.Equal(t, kgviz.ClassicPreparingRebalance, m.Membership, "tick %d: %+v", w.Now(), m)
			break
		}
		w.Step()
	}
	for _, e := range w.Events() {
		assert.NotEqual(t, kgviz.EvMemberRemoved, e.Type, "%v", e)
	}
	w.RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	assert.Len(t, w.Assignment(), 4)
	assert.Zero(t, w.Stats().Duplicates)
}
