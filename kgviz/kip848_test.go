package kgviz_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
)

// The claims of KIP-848 ("The Next Generation of the Consumer Rebalance
// Protocol"), each pinned on the simulated consumer group protocol: the
// coordinator's GroupMetadataManager / ConsumerGroup / ConsumerGroupMember /
// TargetAssignmentBuilder / CurrentAssignmentBuilder with the server-side
// UniformAssignor and RangeAssignor, and the client's
// ConsumerMembershipManager (AbstractMembershipManager) of Kafka 4.1.1.

// fourJoins joins C1..C4 one at a time (a world of Consumer members) and
// returns the assignment after each join.
func fourJoins(t *testing.T, opts ...kgviz.Option) (*kgviz.World, []map[string][]string) {
	t.Helper()
	w := consumerWorld(opts...)
	var after []map[string][]string
	for _, m := range []string{"C1", "C2", "C3", "C4"} {
		w.AddMember(m).RunUntil(kgviz.Stable())
		require.NoError(t, w.Err())
		after = append(after, w.Assignment())
	}
	return w, after
}

// The server-side assignors' plans on the demo joins, with kgviz's topic ids
// (TopicIDFor) and member ids C1-1..C4-1: the uniform assignor (the broker's
// default, UniformAssignor) keeps what it can and gives the newcomer one
// partition of the most loaded member; the range assignor (RangeAssignor)
// cuts each topic into ranges, co-partitioned, so a fourth member of three
// partitions per topic gets nothing. make test-differential checks these
// plans against Kafka's own classes (TestDifferentialServerAssignorsDemoJoins).
func TestKIP848DemoJoinPlans(t *testing.T) {
	for _, c := range []struct {
		assignor string
		want     []map[string][]string
	}{
		{"uniform", []map[string][]string{
			{"C1": {"o0", "o1", "o2", "p0", "p1", "p2"}},
			{"C1": {"o0", "o1", "o2"}, "C2": {"p0", "p1", "p2"}},
			{"C1": {"o0", "o1"}, "C2": {"p0", "p1"}, "C3": {"o2", "p2"}},
			{"C1": {"o0"}, "C2": {"p0", "p1"}, "C3": {"o2", "p2"}, "C4": {"o1"}}, // C4 takes o1 from C1
		}},
		{"range", []map[string][]string{
			{"C1": {"o0", "o1", "o2", "p0", "p1", "p2"}},
			{"C1": {"o0", "o1", "p0", "p1"}, "C2": {"o2", "p2"}},
			{"C1": {"o0", "p0"}, "C2": {"o1", "p1"}, "C3": {"o2", "p2"}},
			{"C1": {"o0", "p0"}, "C2": {"o1", "p1"}, "C3": {"o2", "p2"}, "C4": {}}, // C4 idle
		}},
	} {
		t.Run(c.assignor, func(t *testing.T) {
			var opts []kgviz.Option
			if c.assignor != "uniform" {
				opts = append(opts, kgviz.WithConfig("group.remote.assignor", c.assignor))
			}
			w, after := fourJoins(t, opts...)
			for i := range after {
				for m, ps := range after[i] {
					if ps == nil {
						after[i][m] = []string{}
					}
				}
			}
			assert.Equal(t, c.want, after)
			// The coordinator ran the assignor: one plan per group epoch, named.
			runs := 0
			for _, e := range w.Events() {
				if e.Type == kgviz.EvAssignorRun {
					assert.Equal(t, "B1", e.Member, "the broker computes the assignment")
					assert.Equal(t, c.assignor, e.Assignor)
					runs++
				}
			}
			assert.Equal(t, 4, runs, "one target assignment per join")
			assert.Equal(t, 4, w.Generation(), "the group epoch")
		})
	}
}

// Four joins and a crash, under eager, cooperative and the consumer group
// protocol: the requests each protocol puts on the wire.
func TestKIP848OnlyHeartbeats(t *testing.T) {
	w, _ := fourJoins(t)
	apis := map[kgviz.APIKey]bool{}
	for _, e := range w.Events() {
		if e.Type == kgviz.EvSend && !e.Response && kgviz.APIFamily(e.API) == kgviz.FamilyGroup {
			apis[e.API] = true
		}
	}
	assert.Equal(t, map[kgviz.APIKey]bool{kgviz.FindCoordinator: true, kgviz.ConsumerGroupHeartbeat: true}, apis,
		"no JoinGroup, SyncGroup, Heartbeat or LeaveGroup")
	// A join is a heartbeat with epoch 0 carrying everything; the owned
	// partitions come back after each reconciliation.
	join, ok := firstEvent(w, 0, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvSend && !e.Response && e.From == "C3" && e.API == kgviz.ConsumerGroupHeartbeat
	})
	require.True(t, ok)
	req := join.Body().(*kgviz.ConsumerGroupHeartbeatRequest)
	assert.Equal(t, 0, req.MemberEpoch)
	assert.Equal(t, "C3-1", req.MemberID, "the member id is the consumer's own")
	assert.ElementsMatch(t, []string{"orders", "payments"}, req.SubscribedTopicNames)
	assert.Equal(t, 12, req.RebalanceTimeoutMs, "max.poll.interval.ms")
	assert.NotNil(t, req.TopicPartitions)
	assert.Empty(t, req.TopicPartitions)
}

// No global barrier: while C4 joins, a member that keeps its partitions
// never stops consuming them, and no member's poll() blocks on the
// rebalance (KIP-848: "the rebalance is incremental and only affects the
// members whose assignment changes"). Under the eager protocol every member
// stops.
func TestKIP848NoGlobalBarrier(t *testing.T) {
	w := consumerWorld().Join("C1", "C2", "C3")
	before := w.Assignment()
	n := w.EventCount()
	from := w.Now()
	w.AddMember("C4").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	after := w.Assignment()
	kept := map[string]bool{}
	for _, m := range []string{"C1", "C2", "C3"} {
		for _, p := range before[m] {
			if slices.Contains(after[m], p) {
				kept[m+"/"+p] = true
			}
		}
	}
	require.NotEmpty(t, kept)
	processed := map[string]int{}
	for _, e := range w.EventsSince(n) {
		switch e.Type {
		case kgviz.EvPaused:
			for _, p := range e.Partitions() {
				assert.False(t, kept[e.Member+"/"+p], "%s paused %s, which it keeps, at tick %d", e.Member, p, e.Tick)
			}
		case kgviz.EvActivity:
			if e.Member != "C4" {
				assert.NotContains(t, []kgviz.Activity{kgviz.ActivityJoining, kgviz.ActivitySyncing}, e.Activity,
					"%s blocked in a rebalance at tick %d", e.Member, e.Tick)
			}
		case kgviz.EvProcessed:
			processed[e.Member]++
		}
	}
	for _, m := range []string{"C1", "C2", "C3"} {
		assert.Positive(t, processed[m], "%s went on processing while C4 joined (ticks %d to %d)", m, from, w.Now())
	}
	// Only the partition that moved paused.
	_, paused := w.PauseMeter().Between(from, w.Now())
	assert.Equal(t, []string{"o1"}, func() []string { ps, _ := w.PauseMeter().Between(from, w.Now()); return ps }())
	assert.Positive(t, paused)

	// The eager protocol stops everybody.
	e := kgviz.NewWorld().Join("C1", "C2", "C3")
	from = e.Now()
	e.AddMember("C4").RunUntil(kgviz.Stable())
	parts, _ := e.PauseMeter().Between(from, e.Now())
	assert.Len(t, parts, 6, "eager: every partition pauses")
}

// Partitions are revoked before they are reassigned: at the end of every
// tick no partition is owned by two members of the group, through the four
// joins, a static restart, a crash and a close, in every commit mode; and
// for every partition that moves, the old owner's revocation comes before
// the new owner's assignment (CurrentAssignmentBuilder: a partition goes to
// its new member only once its current epoch is -1).
func TestKIP848RevokedBeforeReassigned(t *testing.T) {
	for _, mode := range []kgviz.CommitMode{kgviz.CommitAfter, kgviz.CommitBefore, kgviz.AutoCommit, kgviz.Transactional} {
		t.Run(mode.String(), func(t *testing.T) {
			w := consumerWorld(kgviz.WithCommit(mode), kgviz.WithIsolation(kgviz.ReadCommitted))
			owners := kgviz.CheckOwnersEveryTick(w)
			w.Join("C1", "C2", "C3").AddMember("C4", kgviz.Static()).RunUntil(kgviz.Stable())
			w.Restart("C4").RunUntil(kgviz.Stable())
			w.Crash("C2", kgviz.Immediately()).RunUntil(kgviz.Stable())
			w.Close("C3").RunUntil(kgviz.Stable()).RunUntil(kgviz.Quiet())
			require.NoError(t, w.Err())
			msg, stale := owners()
			assert.Empty(t, msg)
			assert.Zero(t, stale, "no stale-acknowledgement overlap in these scenarios")

			// Event order: every EvAssigned of a partition that another live
			// member held comes after that member's EvRevoked of it.
			holder := map[string]string{}
			for _, e := range w.Events() {
				switch e.Type {
				case kgviz.EvAssigned:
					for _, p := range e.Partitions() {
						if h, ok := holder[p]; ok && h != e.Member {
							t.Errorf("tick %d: %s assigned %s while %s still held it", e.Tick, e.Member, p, h)
						}
						holder[p] = e.Member
					}
				case kgviz.EvRevoked:
					for _, p := range e.Partitions() {
						if holder[p] == e.Member {
							delete(holder, p)
						}
					}
				case kgviz.EvCrash:
					for p, h := range holder {
						if h == e.Member {
							delete(holder, p) // a crashed member holds nothing once the coordinator removes it
						}
					}
				}
			}
			s := w.Stats()
			switch mode {
			case kgviz.Transactional:
				assert.Zero(t, s.Duplicates, "exactly once")
				assert.Zero(t, s.Lost, "exactly once")
			case kgviz.CommitAfter, kgviz.AutoCommit:
				assert.Zero(t, s.Lost, "at least once")
			}
		})
	}
}

// Member epochs fence zombies. A member stuck in a slow record longer than
// max.poll.interval.ms leaves the group from its heartbeat thread (epoch -1
// for a dynamic member; its commits carry no epoch from then on) while its
// application goes on: its commit is refused with UNKNOWN_MEMBER_ID, and
// its transaction's offsets (TxnOffsetCommit carries the member epoch of its
// ConsumerGroupMetadata) too, so the transaction aborts. A static zombie is
// kept at epoch -2 and its commit is STALE_MEMBER_EPOCH
// (TestFidelityStaleMemberEpoch); its TxnOffsetCommit ILLEGAL_GENERATION
// (validateTransactionalOffsetCommit). A heartbeat with a stale epoch is
// FENCED_MEMBER_EPOCH (TestFidelityFencedMemberEpoch).
func TestKIP848ZombieFenced(t *testing.T) {
	for _, c := range []struct {
		mode   kgviz.CommitMode
		static bool
		api    kgviz.APIKey
		code   kgviz.ErrorCode
	}{
		{kgviz.CommitAfter, false, kgviz.OffsetCommit, kgviz.UNKNOWN_MEMBER_ID},
		{kgviz.CommitAfter, true, kgviz.OffsetCommit, kgviz.STALE_MEMBER_EPOCH},
		{kgviz.Transactional, false, kgviz.TxnOffsetCommit, kgviz.UNKNOWN_MEMBER_ID},
		{kgviz.Transactional, true, kgviz.TxnOffsetCommit, kgviz.ILLEGAL_GENERATION},
	} {
		t.Run(fmt.Sprintf("%s static=%v", c.mode, c.static), func(t *testing.T) {
			w := consumerWorld(kgviz.WithCommit(c.mode), kgviz.WithIsolation(kgviz.ReadCommitted),
				kgviz.WithConfig("group.consumer.session.timeout.ms", 20)).Join("C1")
			var opts []kgviz.Option
			if c.static {
				opts = append(opts, kgviz.Static())
			}
			w.AddMember("C2", append(opts, kgviz.WithSlowRecordTicks(16))...).RunUntil(kgviz.Stable())
			w.RunUntil(kgviz.Processed("C2", "p0.0")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
			n := w.EventCount()
			w.RunUntil(kgviz.Quiet())
			require.NoError(t, w.Err())
			r := replies(w, n, c.api, c.code)
			require.NotEmpty(t, r, "the zombie's %s is refused with %s", c.api, c.code)
			assert.Equal(t, "C2", r[0].resp.To)
			_, timeout := firstEvent(w, n, func(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout && e.Member == "C2" })
			assert.True(t, timeout)
			s := w.Stats()
			if c.mode == kgviz.Transactional {
				assert.Positive(t, s.TxnAborted, "the zombie's transaction aborts")
				assert.Zero(t, s.Duplicates, "exactly once")
			}
			assert.Zero(t, s.Lost)
		})
	}
}

// A static member restarted within the session timeout keeps its
// assignment: the old process leaves with epoch -2 (the coordinator keeps
// its partitions at epoch -2), the new one joins with the same
// group.instance.id and a new member id and gets the same partitions at the
// current group epoch, without a new group epoch (GMM's static member
// replacement, KIP-848 with KIP-345).
func TestKIP848StaticRestartKeepsAssignment(t *testing.T) {
	w := consumerWorld().Join("C1", "C2", "C3").AddMember("C4", kgviz.Static()).RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	before, epoch := w.Assignment(), w.Generation()
	n := w.EventCount()
	w.Restart("C4").RunUntil(kgviz.Sent("C4", kgviz.ConsumerGroupHeartbeat))
	leaving, ok := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvSend && !e.Response && e.From == "C4" && e.API == kgviz.ConsumerGroupHeartbeat
	})
	require.True(t, ok, "close() sends the leave heartbeat")
	assert.Equal(t, -2, leaving.Body().(*kgviz.ConsumerGroupHeartbeatRequest).MemberEpoch, "a static member leaves for a while")
	w.RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	assert.Equal(t, before, w.Assignment(), "same assignment")
	assert.Equal(t, epoch, w.Generation(), "no new group epoch")
	assert.Equal(t, "C4-2", w.MemberID("C4"))
	replaced, ok := firstEvent(w, n, func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberAdded && e.Replaces == "C4-1" })
	require.True(t, ok)
	assert.Equal(t, "C4-2", replaced.MemberID)
	_, rebalance := firstEvent(w, n, func(e kgviz.Event) bool { return e.Type == kgviz.EvRebalance })
	assert.False(t, rebalance)
	// The pause of C4's partitions is no rebalance's.
	for _, r := range w.PauseMeter().Rebalances {
		assert.Less(t, r.Generation, epoch+1)
	}

	// Closed and not back within group.consumer.session.timeout.ms: the
	// coordinator removes it and gives its partitions away.
	n = w.EventCount()
	w.Close("C4").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	removed, ok := firstEvent(w, n, func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Member == "C4" })
	require.True(t, ok)
	assert.Equal(t, kgviz.ReasonSessionTimeout, removed.Reason)
	assert.Len(t, w.Assignment(), 3)
	assert.Equal(t, epoch+1, w.Generation())
}

// Leaving: a dynamic member's close() sends epoch -1 and the coordinator
// removes it at once (a new group epoch, its partitions handed out); a
// crashed member is removed after group.consumer.session.timeout.ms, the
// broker's setting (the client's session.timeout.ms is refused under
// KIP-848).
func TestKIP848LeaveAndSessionTimeout(t *testing.T) {
	w := consumerWorld(kgviz.WithConfig("group.consumer.session.timeout.ms", 9)).Join("C1", "C2")
	n := w.EventCount()
	at := w.Now()
	w.Close("C2").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	removed, ok := firstEvent(w, n, func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Member == "C2" })
	require.True(t, ok)
	assert.Equal(t, kgviz.ReasonLeaveGroup, removed.Reason)
	assert.LessOrEqual(t, removed.Tick, at+2, "at once")

	w.AddMember("C3").RunUntil(kgviz.Stable())
	n = w.EventCount()
	w.Crash("C3", kgviz.Immediately())
	last := w.Now()
	w.RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	removed, ok = firstEvent(w, n, func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.Member == "C3" })
	require.True(t, ok)
	assert.Equal(t, kgviz.ReasonSessionTimeout, removed.Reason)
	assert.InDelta(t, last+9, removed.Tick, 1, "group.consumer.session.timeout.ms=9 after its last heartbeat")

	// The heartbeat interval is the broker's too: every answer carries it.
	w2 := consumerWorld(kgviz.WithConfig("group.consumer.heartbeat.interval.ms", 3)).Join("C1")
	for _, e := range w2.Events() {
		if r, ok := e.Body().(*kgviz.ConsumerGroupHeartbeatResponse); ok {
			assert.Equal(t, 3, r.HeartbeatIntervalMs)
		}
	}
	require.NoError(t, w2.Err())
}

// The rebalance timeout: a member asked to revoke that does not acknowledge
// within its rebalance timeout (max.poll.interval.ms, sent when it joined)
// is fenced (GMM.scheduleConsumerGroupRebalanceTimeout), and its partitions
// move on; its next heartbeat learns it (UNKNOWN_MEMBER_ID), it gives its
// partitions up as lost and joins again with epoch 0 and its member id.
//
// The timer starts when the coordinator asks for the revocation and the
// poll timeout when the member last polled, both max.poll.interval.ms long:
// the rebalance timeout fires first when the request crosses the batch the
// member starts (the answer asking for the revocation arrives in the tick
// its Fetch returns a slow record). C2 joins at each of twenty ticks; when
// C1's Fetch is in flight as the coordinator asks it to revoke, its next
// record is made slow.
func TestKIP848RebalanceTimeout(t *testing.T) {
	hits := 0
	for offset := 0; offset < 20; offset++ {
		w := consumerWorld(kgviz.WithConfig("group.consumer.session.timeout.ms", 30)).Join("C1").RunFor(offset)
		n := w.EventCount()
		w.AddMember("C2").RunUntil(kgviz.On("C1 asked to revoke", func(e kgviz.Event) bool {
			return e.Type == kgviz.EvMemberEpoch && e.Member == "C1" && len(e.Partitions()) > 0
		}))
		if info, _ := w.Member("C1"); info.Phase != kgviz.PhaseFetch {
			continue
		}
		w.SlowNext("C1").RunUntil(kgviz.Stable())
		require.NoError(t, w.Err())
		removed, ok := firstEvent(w, n, func(e kgviz.Event) bool {
			return e.Type == kgviz.EvMemberRemoved && e.Member == "C1"
		})
		require.True(t, ok)
		assert.Equal(t, kgviz.ReasonRebalanceTimeout, removed.Reason)
		hits++
		revoke, ok := firstEvent(w, n, func(e kgviz.Event) bool {
			return e.Type == kgviz.EvMemberEpoch && e.Member == "C1" && len(e.Partitions()) > 0
		})
		require.True(t, ok, "C1 was asked to revoke")
		assert.Equal(t, revoke.Tick+12, removed.Tick, "max.poll.interval.ms after the request")
		require.NotEmpty(t, replies(w, n, kgviz.ConsumerGroupHeartbeat, kgviz.UNKNOWN_MEMBER_ID))
		lost, ok := firstEvent(w, n, func(e kgviz.Event) bool {
			return e.Type == kgviz.EvRevoked && e.Member == "C1" && e.Reason == kgviz.ReasonLost
		})
		require.True(t, ok, "onPartitionsLost")
		assert.Greater(t, lost.Tick, removed.Tick)
		rejoin, ok := firstEvent(w, n, func(e kgviz.Event) bool {
			if e.Type != kgviz.EvSend || e.Response || e.From != "C1" || e.API != kgviz.ConsumerGroupHeartbeat || e.Tick < lost.Tick {
				return false
			}
			return e.Body().(*kgviz.ConsumerGroupHeartbeatRequest).MemberEpoch == 0
		})
		require.True(t, ok, "C1 joins again with epoch 0")
		assert.Equal(t, "C1-1", rejoin.Body().(*kgviz.ConsumerGroupHeartbeatRequest).MemberID, "with the same member id")
		assert.Len(t, w.Assignment(), 2)
	}
	assert.Positive(t, hits, "a timing where the rebalance timeout fences C1")
}

// The client's states (ConsumerMembershipManager's MemberState), sampled
// tick by tick through a join, a reconciliation and a close.
func TestKIP848MemberStates(t *testing.T) {
	w := consumerWorld().Join("C1")
	seen := map[string][]kgviz.ConsumerMemberState{}
	track := func(names ...string) {
		for _, m := range names {
			info, err := w.Member(m)
			require.NoError(t, err)
			if s := seen[m]; len(s) == 0 || s[len(s)-1] != info.ConsumerState {
				seen[m] = append(seen[m], info.ConsumerState)
			}
		}
	}
	w.AddMember("C2")
	for !w.Holds(kgviz.Stable()) && w.Err() == nil {
		w.Step()
		track("C1", "C2")
	}
	require.NoError(t, w.Err())
	// Seen at the end of each tick: RECONCILING lasts from the answer that
	// brings an assignment to the poll() that reconciles it, within one tick
	// for an idle member.
	assert.Equal(t, []kgviz.ConsumerMemberState{kgviz.ConsumerUnsubscribed, kgviz.ConsumerJoining,
		kgviz.ConsumerAcknowledging, kgviz.ConsumerStable, kgviz.ConsumerAcknowledging, kgviz.ConsumerStable},
		seen["C2"], "C2: joins with nothing yet (an empty assignment, acknowledged), then gets the partitions C1 released")
	assert.Contains(t, seen["C1"], kgviz.ConsumerReconciling, "C1, busy with a batch, reconciles its revocation at its next poll")
	info, _ := w.Member("C2")
	assert.Equal(t, kgviz.Consumer, info.GroupProtocol)
	assert.Equal(t, w.Generation(), info.Generation, "Generation is the member epoch")
	assert.Empty(t, info.Assignors, "no partition.assignment.strategy under KIP-848")
	w.Close("C2")
	info, _ = w.Member("C2")
	assert.Equal(t, kgviz.ConsumerUnsubscribed, info.ConsumerState, "left")
}

// Stable() under KIP-848: every member at the group epoch with nothing to
// revoke, every process reconciled; a static member away with epoch -2
// keeps the group Reconciling.
func TestKIP848StableCondition(t *testing.T) {
	w := consumerWorld().Join("C1").AddMember("C2", kgviz.Static()).RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	g := w.BrokerState().Groups().Consumer(kgviz.GroupID)
	require.NotNil(t, g)
	assert.Equal(t, kgviz.GroupStable, g.State())
	for _, id := range g.MemberIDs() {
		info, ok := g.Member(id)
		require.True(t, ok)
		assert.Equal(t, g.GroupEpoch(), info.MemberEpoch)
		assert.Empty(t, info.PendingRevocation)
		assert.Equal(t, info.Target, info.Assigned)
	}
	w.Close("C2").RunFor(2)
	assert.Equal(t, kgviz.GroupReconciling, w.GroupState(), "C2 is away at epoch -2")
	assert.False(t, w.Holds(kgviz.Stable()))
	w.Restart("C2").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	assert.Equal(t, kgviz.GroupStable, w.GroupState())
}

// The settings Kafka refuses with the other group.protocol (ConsumerConfig):
// partition.assignment.strategy and session.timeout.ms with consumer,
// group.remote.assignor with classic; and WithConfig's string settings.
func TestKIP848Config(t *testing.T) {
	for _, c := range []struct {
		opts []kgviz.Option
		want string
	}{
		{[]kgviz.Option{kgviz.WithGroupProtocol(kgviz.Consumer), kgviz.WithAssignor(kgviz.Range)}, "partition.assignment.strategy cannot be set when group.protocol=consumer"},
		{[]kgviz.Option{kgviz.WithGroupProtocol(kgviz.Consumer), kgviz.WithSessionTimeout(10)}, "session.timeout.ms cannot be set when group.protocol=consumer"},
		{[]kgviz.Option{kgviz.WithRemoteAssignor("range")}, "group.remote.assignor cannot be set when group.protocol=classic"},
		{[]kgviz.Option{kgviz.WithConfig("group.protocol", "kip848")}, `group.protocol="kip848"`},
		{[]kgviz.Option{kgviz.WithConfig("group.protocol", 1)}, "want a string"},
		{[]kgviz.Option{kgviz.WithConfig("session.timeout.ms", "10")}, "want a whole number of ticks"},
		{[]kgviz.Option{kgviz.WithConfig("group.consumer.session.timeout.ms", 3)}, "world option"},
	} {
		w := kgviz.NewWorld().AddMember("C1", c.opts...)
		require.Error(t, w.Err(), c.want)
		assert.Contains(t, w.Err().Error(), c.want)
		assert.Empty(t, w.Members(), "the world is unchanged")
	}
	w := kgviz.NewWorld(kgviz.WithConfig("group.protocol", "consumer"), kgviz.WithConfig("group.remote.assignor", "range")).Join("C1", "C2")
	require.NoError(t, w.Err())
	info, _ := w.Member("C1")
	assert.Equal(t, kgviz.Consumer, info.GroupProtocol)
	assert.Equal(t, "range", info.RemoteAssignor)
	assert.Equal(t, map[string][]string{"C1": {"o0", "o1", "p0", "p1"}, "C2": {"o2", "p2"}}, w.Assignment())
}

// Each commit mode works under KIP-848 through joins, a crash and a close,
// with its guarantee: exactly-once with transactions, at-least-once after
// processing and with auto-commit, at-most-once before processing.
func TestKIP848CommitModes(t *testing.T) {
	for _, mode := range []kgviz.CommitMode{kgviz.CommitAfter, kgviz.CommitBefore, kgviz.AutoCommit, kgviz.Transactional} {
		w := consumerWorld(kgviz.WithCommit(mode), kgviz.WithIsolation(kgviz.ReadCommitted)).Join("C1", "C2", "C3")
		w.Crash("C2").RunUntil(kgviz.Crashed("C2")).RunUntil(kgviz.Stable()).Close("C1").RunUntil(kgviz.Stable()).RunUntil(kgviz.Quiet())
		require.NoError(t, w.Err(), mode.String())
		s := w.Stats()
		switch mode {
		case kgviz.Transactional:
			assert.Zero(t, s.Duplicates, "%s: exactly once", mode)
			assert.Zero(t, s.Lost, "%s: exactly once", mode)
			assert.Len(t, w.Invoices(), 48, "every record invoiced once")
		case kgviz.CommitBefore:
			assert.Zero(t, s.Duplicates, "%s: at most once", mode)
		default:
			assert.Zero(t, s.Lost, "%s: at least once", mode)
		}
	}
}

// TestKIP848CrashPointSweep is TestCrashPointSweep under KIP-848: C2 crashes
// at every tick of its life and at every AfterRecords point of every batch.
func TestKIP848CrashPointSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("hundreds of worlds")
	}
	checked := 0
	for _, mode := range []kgviz.CommitMode{kgviz.Transactional, kgviz.CommitBefore, kgviz.CommitAfter} {
		mk := func() *kgviz.World {
			return consumerWorld(kgviz.WithCommit(mode), kgviz.WithIsolation(kgviz.ReadCommitted)).Join("C1", "C2")
		}
		base := mk()
		start, end := base.Now(), base.RunUntil(kgviz.Quiet()).Now()
		batches := fetches(base)
		check := func(name string, w *kgviz.World) {
			t.Helper()
			w.RunUntil(kgviz.Quiet())
			require.NoError(t, w.Err(), name)
			s := w.Stats()
			switch mode {
			case kgviz.Transactional:
				require.Len(t, w.Invoices(), 48, "%s: exactly once", name)
				seen := map[string]bool{}
				for _, r := range w.Invoices() {
					seen[r] = true
				}
				require.Len(t, seen, 48, "%s: every input record invoiced", name)
			case kgviz.CommitBefore:
				require.Zero(t, s.Duplicates, "%s: commit-before never duplicates", name)
			case kgviz.CommitAfter:
				require.Zero(t, s.Lost, "%s: commit-after never loses (%v)", name, s.LostRecords)
			}
			checked++
		}
		for tick := start; tick <= end; tick++ {
			w := mk()
			w.RunUntil(kgviz.Tick(tick))
			if w.Running("C2") {
				check(fmt.Sprintf("%s crash at tick %d", mode, tick), w.Crash("C2", kgviz.Immediately()))
			}
		}
		for b := 1; b <= batches; b++ {
			for n := 0; n <= 3; n++ {
				w := mk()
				for fetches(w) < b && w.Err() == nil && w.Now() <= end {
					w.RunFor(1)
				}
				if w.Running("C2") {
					check(fmt.Sprintf("%s crash in batch %d after %d records", mode, b, n), w.Crash("C2", kgviz.AfterRecords(n)))
				}
			}
		}
	}
	t.Logf("KIP-848 crash-point sweep: %d crash points checked", checked)
	require.Greater(t, checked, 200)
}

// The members' rebalance callbacks, in order, through the four joins: under
// KIP-848 only the members whose assignment changes see a callback, and
// only for the partitions that change.
func TestKIP848WhatTheApplicationSees(t *testing.T) {
	w, _ := fourJoins(t)
	var got []string
	for _, e := range w.Events() {
		if e.Type == kgviz.EvAssigned || e.Type == kgviz.EvRevoked {
			kind := "assigned"
			if e.Type == kgviz.EvRevoked {
				kind = "revoked"
			}
			ps := append([]string(nil), e.Partitions()...)
			sort.Strings(ps)
			got = append(got, fmt.Sprintf("%s %s %s", e.Member, kind, strings.Join(ps, ",")))
		}
	}
	assert.Equal(t, []string{
		"C1 assigned o0,o1,o2,p0,p1,p2",
		"C1 revoked p0,p1,p2", "C2 assigned p0,p1,p2",
		"C2 revoked p2", "C3 assigned p2", "C1 revoked o2", "C3 assigned o2",
		"C1 revoked o1", "C4 assigned o1",
	}, got)
}

// The coordinator side of a member, as DescribeConsumerGroups would show it.
func TestKIP848Describe(t *testing.T) {
	w, _ := fourJoins(t, kgviz.WithRemoteAssignor("range"))
	g := w.BrokerState().Groups().Consumer(kgviz.GroupID)
	require.NotNil(t, g)
	assert.Equal(t, "range", g.PreferredAssignor())
	info, ok := g.Member("C4-1")
	require.True(t, ok)
	assert.Equal(t, broker.ConsumerMemberInfo{MemberID: "C4-1", ClientID: "C4", MemberEpoch: 4, State: kgviz.MemberStable,
		Assigned: []kgviz.TopicPartition{}, PendingRevocation: []kgviz.TopicPartition{}, Target: []kgviz.TopicPartition{},
		ServerAssignor: "range"}, info)
}

// close() in the middle of a batch: the application finishes the batch,
// commits it (commit after processing) and closes at its next poll, as a
// Java loop that checks its running flag between polls does; the next owner
// starts after the batch, so nothing is processed twice. Under both
// protocols, dynamic and static (a static restart keeps the partitions).
func TestCloseMidBatchCommitsTheBatchFirst(t *testing.T) {
	for _, p := range []kgviz.GroupProtocol{kgviz.Classic, kgviz.Consumer} {
		for _, static := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v static=%v", p, static), func(t *testing.T) {
				w := kgviz.NewWorld(kgviz.WithGroupProtocol(p)).Join("C1")
				var opts []kgviz.Option
				if static {
					opts = append(opts, kgviz.Static())
				}
				w.AddMember("C2", opts...).RunUntil(kgviz.Stable())
				// the first record of a batch of 3: the batch is in progress
				w.RunUntil(kgviz.On("C2 processed its first record", func(e kgviz.Event) bool {
					return e.Type == kgviz.EvProcessed && e.Member == "C2"
				}))
				require.NoError(t, w.Err())
				if static {
					w.Restart("C2")
				} else {
					w.Close("C2")
				}
				w.RunUntil(kgviz.Quiet())
				require.NoError(t, w.Err())
				assert.Empty(t, w.ProcessedTwice(), "the batch was committed before close()")
				assert.Empty(t, w.Stats().LostRecords)
			})
		}
	}
}

// Kafka 4.4.0's reconciliation (WithReconciliation(ReconcileKafka440)): a
// reconciliation that revokes starts only from the application thread, in
// the AsyncPollEvent its poll() sends (kafka-clients 4.4.0
// AbstractMembershipManager.maybeReconcile(false) returns early when
// partitions are to be revoked; ApplicationEventProcessor.process(AsyncPollEvent)
// calls maybeReconcile(true)), and onPartitionsRevoked runs in the poll
// after. C1, consuming batches of three records, is asked at C2's join to
// give partitions up:
//
//	4.1.1 (the default): C1 revokes in its first poll after the request and
//	  acknowledges; nobody is fenced.
//	4.4.0: C1's first poll only starts the revocation; it revokes in its second
//	  poll, which comes 12 ticks (max.poll.interval.ms, the rebalance timeout)
//	  after the request: the coordinator fences C1 ("did not revoke within the
//	  rebalance timeout", GroupMetadataManager's "failed to transition from
//	  epoch"), which gives its partitions up as lost and joins again.
func TestKIP848Reconciliation440RevokesAtNextPoll(t *testing.T) {
	for _, tc := range []struct {
		rule   kgviz.ClientReconciliation
		fenced bool
	}{
		{kgviz.ReconcileKafka411, false},
		{kgviz.ReconcileKafka440, true},
	} {
		t.Run(tc.rule.String(), func(t *testing.T) {
			w := consumerWorld(kgviz.WithReconciliation(tc.rule)).Join("C1").RunFor(5)
			n := w.EventCount()
			w.AddMember("C2").RunUntil(kgviz.Stable())
			require.NoError(t, w.Err())
			ask, ok := firstEvent(w, n, func(e kgviz.Event) bool {
				return e.Type == kgviz.EvMemberEpoch && e.Member == "C1" && len(e.Partitions()) > 0
			})
			require.True(t, ok, "C1 asked to revoke")
			var polls []int // C1's polls after the request: each sends a Fetch
			for _, e := range w.EventsSince(n) {
				if e.Type == kgviz.EvSend && !e.Response && e.From == "C1" && e.API == kgviz.Fetch && e.Tick > ask.Tick {
					polls = append(polls, e.Tick)
				}
			}
			removed, fenced := firstEvent(w, n, func(e kgviz.Event) bool {
				return e.Type == kgviz.EvMemberRemoved && e.Member == "C1"
			})
			require.Equal(t, tc.fenced, fenced)
			require.NotEmpty(t, polls)
			if !fenced {
				revoked, ok := firstEvent(w, n, func(e kgviz.Event) bool {
					return e.Type == kgviz.EvRevoked && e.Member == "C1" && e.Reason == kgviz.ReasonReconcileRevoke
				})
				require.True(t, ok, "onPartitionsRevoked")
				assert.Equal(t, polls[0], revoked.Tick, "C1 revokes in its first poll after the request (polls at %v)", polls)
				return
			}
			assert.Equal(t, kgviz.ReasonRebalanceTimeout, removed.Reason)
			assert.Equal(t, ask.Tick+12, removed.Tick, "the rebalance timeout after the request")
			require.GreaterOrEqual(t, len(polls), 2)
			assert.Less(t, polls[0], removed.Tick, "C1's first poll came in time: it only started the revocation")
			assert.Greater(t, polls[1], removed.Tick, "its next poll, which would revoke, came after the rebalance timeout")
			_, revokedFirst := firstEvent(w, n, func(e kgviz.Event) bool {
				return e.Type == kgviz.EvRevoked && e.Member == "C1" && e.Reason == kgviz.ReasonReconcileRevoke && e.Tick <= removed.Tick
			})
			assert.False(t, revokedFirst, "C1 did not revoke before it was fenced")
			lost, ok := firstEvent(w, n, func(e kgviz.Event) bool {
				return e.Type == kgviz.EvRevoked && e.Member == "C1" && e.Reason == kgviz.ReasonLost
			})
			require.True(t, ok, "onPartitionsLost")
			assert.Greater(t, lost.Tick, removed.Tick)
			assert.Len(t, w.Assignment(), 2, "C1 joined again")
		})
	}
}
