package kgviz_test

import (
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The student-facing rough edges of issue 11, each as the student meets it.

// Crash(Immediately()) then RunUntil(Crashed()) is reached at once, without
// a tick passing and without an error.
func TestCrashImmediatelyThenCrashed(t *testing.T) {
	w := scenarios.Group(2)
	now := w.Now()
	w.Crash("C2", kgviz.Immediately()).RunUntil(kgviz.Crashed("C2"))
	require.NoError(t, w.Err())
	assert.Equal(t, now, w.Now())
	info, err := w.Member("C2")
	require.NoError(t, err)
	assert.Equal(t, kgviz.LifecycleCrashed, info.Lifecycle)
	// Crashed on a member with no crash planned cannot be reached: said at once.
	w = scenarios.Group(2).RunUntil(kgviz.Crashed("C1"))
	require.Error(t, w.Err())
	assert.Contains(t, w.Err().Error(), "no crash")
}

// Conditions name members and records; a name that does not exist stops the
// world at once with a message naming it, instead of running to the limit.
func TestConditionsCheckNames(t *testing.T) {
	for _, c := range []struct {
		cond kgviz.Condition
		want string
	}{
		{kgviz.Polled("C9", "p2.3"), "C9"},
		{kgviz.Processed("C2", "x2.3"), "x2.3"},
		{kgviz.Crashed("c2"), "c2"},
		{kgviz.SlowStarted("C7"), "C7"},
		{kgviz.Sent("C8", kgviz.JoinGroup), "C8"},
		{kgviz.All(kgviz.Stable(), kgviz.Polled("C2", "p9.0")), "p9.0"},
	} {
		w := scenarios.Group(2)
		now := w.Now()
		w.RunUntil(c.cond)
		require.Error(t, w.Err(), c.cond.String())
		assert.Contains(t, w.Err().Error(), c.want)
		assert.Equal(t, now, w.Now(), "%s: no tick may pass", c.cond)
	}
}

// A failed RunUntil cannot be missed: the error is recorded as an event,
// String and Stats start with STOPPED, and later calls change nothing.
func TestFailedRunUntilIsVisible(t *testing.T) {
	w := scenarios.Group(2, kgviz.WithRunLimit(30)).RunUntil(kgviz.Polled("C2", "p2.5")).RunUntil(kgviz.Tick(10_000))
	require.Error(t, w.Err())
	assert.True(t, strings.HasPrefix(w.String(), "STOPPED"), w.String())
	assert.True(t, strings.HasPrefix(w.Stats().String(), "STOPPED"), w.Stats().String())
	assert.NotEmpty(t, w.Stats().Stopped)
	var stopped []kgviz.Event
	for _, e := range w.Events() {
		if e.Type == kgviz.EvWorldStopped {
			stopped = append(stopped, e)
		}
	}
	require.Len(t, stopped, 1)
	n, now := w.EventCount(), w.Now()
	w.AddMember("C3").RunFor(10).RunUntil(kgviz.Quiet())
	assert.Equal(t, n, w.EventCount(), "a stopped world records nothing more")
	assert.Equal(t, now, w.Now())
}

// When every member has closed, the group is Empty and Stable() can never
// be reached: RunUntil says so at once.
func TestAllClosedStableFailsAtOnce(t *testing.T) {
	w := scenarios.Group(2).Close("C1").Close("C2").RunFor(5)
	require.NoError(t, w.Err())
	assert.Equal(t, kgviz.GroupEmpty, w.GroupState())
	now := w.Now()
	w.RunUntil(kgviz.Stable())
	require.Error(t, w.Err())
	assert.Equal(t, now, w.Now(), "said at once, not after the run limit")
	assert.Contains(t, w.Err().Error(), "no member")
}

// An assignor that returns no plan, or leaves partitions out, gets an
// EvAssignmentIncomplete naming the partitions (Kafka's client logs it),
// counted in Stats; the group still settles.
func TestIncompleteAssignmentRecorded(t *testing.T) {
	lazy := kgviz.NewAssignor("lazy", kgviz.Eager, func([]kgviz.MemberSubscription, map[string]int) map[string][]kgviz.TopicPartition {
		return nil
	})
	half := kgviz.NewAssignor("half", kgviz.Eager, func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
		plan := map[string][]kgviz.TopicPartition{}
		for _, m := range ms {
			plan[m.MemberID] = nil
		}
		for p := 0; p < topics["orders"]; p++ {
			plan[ms[0].MemberID] = append(plan[ms[0].MemberID], kgviz.TopicPartition{Topic: "orders", Partition: p})
		}
		return plan
	})
	for _, c := range []struct {
		a          kgviz.Assignor
		reason     kgviz.Reason
		unassigned []string
	}{
		{lazy, kgviz.ReasonNilPlan, []string{"o0", "o1", "o2", "p0", "p1", "p2"}},
		{half, kgviz.ReasonUnassigned, []string{"p0", "p1", "p2"}},
	} {
		w := scenarios.Group(2, kgviz.WithAssignor(c.a))
		require.NoError(t, w.Err())
		var got []kgviz.Event
		for _, e := range w.Events() {
			if e.Type == kgviz.EvAssignmentIncomplete {
				got = append(got, e)
			}
		}
		require.Len(t, got, 2, "%s: one per rebalance", c.a.Name())
		assert.Equal(t, c.reason, got[1].Reason)
		assert.Equal(t, c.a.Name(), got[1].Assignor)
		assert.Equal(t, c.unassigned, got[1].Partitions())
		assert.Equal(t, 2, w.Stats().Unassigned)
		assert.Contains(t, w.Stats().String(), "left partitions unassigned")
		assert.Equal(t, kgviz.GroupStable, w.GroupState())
	}
}

// Liveness as in Kafka: a member stuck in a slow record misses the
// rebalance; the coordinator removes it at the rebalance timeout; it learns
// so from its heartbeat thread (UNKNOWN_MEMBER_ID), its next commit fails,
// it loses its partitions and rejoins with a new member id.
func TestRemovedMemberLearnsFromHeartbeatAndRejoins(t *testing.T) {
	w := scenarios.Group(2).RunFor(5).AddMember("C3").SlowNext("C2").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	step := 0
	var removedAt int
	for _, e := range w.Events() {
		switch {
		case step == 0 && e.Type == kgviz.EvMemberRemoved && e.Member == "C2":
			assert.Equal(t, kgviz.ReasonJoinTimeout, e.Reason)
			assert.Equal(t, "C2-1", e.MemberID)
			removedAt, step = e.Tick, 1
		case step == 0 && e.Type == kgviz.EvPollTimeout && e.Member == "C2":
			t.Fatal("C2 hit its poll timeout before the coordinator removed it: not the story under test")
		case step == 1 && e.Type == kgviz.EvSend && e.Response && e.To == "C2" && e.API == kgviz.Heartbeat:
			assert.Equal(t, kgviz.UNKNOWN_MEMBER_ID, e.Error)
			assert.LessOrEqual(t, e.Tick, removedAt+1, "the next heartbeat tells")
			step = 2
		case step == 2 && e.Type == kgviz.EvRevoked && e.Member == "C2":
			assert.Equal(t, kgviz.ReasonLost, e.Reason)
			step = 3
		case step == 3 && e.Type == kgviz.EvSend && !e.Response && e.From == "C2" && e.API == kgviz.JoinGroup:
			req := e.Body().(*kgviz.JoinGroupRequest)
			assert.Empty(t, req.MemberID, "a removed member rejoins with no member id")
			step = 4
		}
	}
	require.Equal(t, 4, step, "removed, told by a heartbeat, lost its partitions, rejoined")
	info, _ := w.Member("C2")
	assert.Equal(t, "C2-2", info.MemberID)
	assert.Equal(t, kgviz.ClassicStable, info.Membership)
	assert.NotEmpty(t, w.Assignment()["C2"])
}

// Switching eager to cooperative as Kafka documents it (KIP-429): one
// SetAssignor, two rolling bounces. In the first, C1 and C2 restart while the
// group still uses range, so they list cooperative-sticky and range: they
// speak the eager protocol (the highest common to their own lists), and once
// both are back the group votes cooperative-sticky. C3 restarts after the
// switch, without the fallback: cooperative. The second bounce drops the
// fallback everywhere. Transactions and read_committed keep exactly-once
// throughout.
func TestEagerToCooperativeTakesTwoBounces(t *testing.T) {
	opts := []kgviz.Option{kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithRecords(8)}
	w := scenarios.Group(3, opts...).RunFor(10)
	w.SetAssignor(kgviz.CooperativeSticky)
	bounce := func() {
		for _, m := range scenarios.Members(3) {
			w.Close(m).RunUntil(kgviz.Stable()).Restart(m).RunUntil(kgviz.Stable()).RunFor(3)
		}
	}
	protocols := func() (out []kgviz.RebalanceProtocol) {
		for _, m := range scenarios.Members(3) {
			info, err := w.Member(m)
			require.NoError(t, err)
			out = append(out, info.Protocol)
		}
		return out
	}
	bounce()
	require.NoError(t, w.Err())
	assert.Equal(t, "cooperative-sticky", w.BrokerState().Groups().Classic(kgviz.GroupID).ProtocolName())
	assert.Equal(t, []kgviz.RebalanceProtocol{kgviz.Eager, kgviz.Eager, kgviz.Cooperative}, protocols())
	info, _ := w.Member("C1")
	assert.Equal(t, []string{"cooperative-sticky", "range"}, info.Assignors)
	bounce()
	require.NoError(t, w.Err())
	assert.Equal(t, []kgviz.RebalanceProtocol{kgviz.Cooperative, kgviz.Cooperative, kgviz.Cooperative}, protocols())
	w.RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	s := w.Stats()
	assert.Zero(t, s.Duplicates, "read_committed sees every invoice once")
	assert.Zero(t, s.Lost)
}

// The generation an application uses for its transactional commits is the
// one of its last completed rebalance, fixed between polls even when the
// heartbeat thread learns of a new one.
func TestAppGenerationFixedBetweenPolls(t *testing.T) {
	w := scenarios.Group(2, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithMaxPollRecords(5))
	w.RunUntil(kgviz.Polled("C2", "p2.0")).AddMember("C3")
	before, _ := w.Member("C2")
	for i := 0; i < 4; i++ { // the batch is still being processed
		w.RunFor(1)
		info, _ := w.Member("C2")
		if info.Phase != kgviz.PhaseProcess {
			break
		}
		assert.Equal(t, before.AppGeneration, info.AppGeneration)
	}
	w.RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	assert.Zero(t, w.Stats().Duplicates)
}
