package kgviz_test

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/modern"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protocol fidelity of the consumer group protocol (KIP-848): each error
// code only the new protocol answers with, in the situation where Kafka
// 4.1.1 answers it. GMM is group-coordinator's GroupMetadataManager, CG its
// modern.consumer.ConsumerGroup, GCS GroupCoordinatorService, HRM the
// client's ConsumerHeartbeatRequestManager / AbstractHeartbeatRequestManager,
// CRM its CommitRequestManager.

// consumerWorld is a world of Consumer members (group.protocol=consumer).
func consumerWorld(opts ...kgviz.Option) *kgviz.World {
	return kgviz.NewWorld(append([]kgviz.Option{kgviz.WithGroupProtocol(kgviz.Consumer)}, opts...)...)
}

// heartbeat steps a broker with one ConsumerGroupHeartbeat and returns its answer.
func heartbeat(t *testing.T, b *broker.Broker, out *outbox, conn int, req *broker.ConsumerGroupHeartbeatRequest) *broker.ConsumerGroupHeartbeatResponse {
	t.Helper()
	n := len(out.sent)
	req.GroupID = kgviz.GroupID
	b.Receive(&broker.Envelope{ID: 100 + n, From: "C" + string(rune('0'+conn)), To: "B1", Conn: conn, Msg: req})
	require.Len(t, out.sent, n+1, "one answer")
	return out.sent[n].Msg.(*broker.ConsumerGroupHeartbeatResponse)
}

// joinRequest is the first heartbeat of a member (epoch 0, every field).
func joinRequest(memberID string) *broker.ConsumerGroupHeartbeatRequest {
	return &broker.ConsumerGroupHeartbeatRequest{MemberID: memberID, RebalanceTimeoutMs: 12,
		SubscribedTopicNames: []string{"orders", "payments"}, TopicPartitions: modern.Assignment{}}
}

func consumerBroker() (*broker.Broker, *outbox) {
	b, _, out := freshBroker()
	b.CreateTopic("orders", 3)
	b.CreateTopic("payments", 3)
	return b, out
}

// FENCED_MEMBER_EPOCH: a heartbeat whose member epoch is ahead of the
// member's, or behind it other than by the one step a lost answer explains.
// Kafka: GMM.throwIfConsumerGroupMemberEpochIsInvalid; the consumer gives its
// partitions up as lost and joins again with epoch 0 (HRM: transitionToFenced).
func TestFidelityFencedMemberEpoch(t *testing.T) {
	b, out := consumerBroker()
	r := heartbeat(t, b, out, 1, joinRequest("C1-1"))
	require.Equal(t, kgviz.NONE, r.ErrorCode)
	require.Equal(t, 1, r.MemberEpoch)
	owned := r.Assignment.TopicPartitions

	// The answer that took C1 to epoch 1 was lost: it asks again with the
	// previous epoch, owning nothing more than its assignment, and is answered.
	again := heartbeat(t, b, out, 1, &broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", MemberEpoch: 0, RebalanceTimeoutMs: 12,
		SubscribedTopicNames: []string{"orders", "payments"}, TopicPartitions: modern.Assignment{}})
	assert.Equal(t, kgviz.NONE, again.ErrorCode, "the previous epoch with a subset of the assignment is accepted")
	assert.Equal(t, 1, again.MemberEpoch)

	// An epoch ahead of the coordinator's.
	ahead := heartbeat(t, b, out, 1, &broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", MemberEpoch: 5, RebalanceTimeoutMs: -1})
	assert.Equal(t, kgviz.FENCED_MEMBER_EPOCH, ahead.ErrorCode)
	assert.Contains(t, ahead.ErrorMessage, "greater member epoch (5)")

	// C2 joins (group epoch 2); C1 acknowledges its assignment and moves on.
	heartbeat(t, b, out, 2, joinRequest("C2-1"))
	moved := heartbeat(t, b, out, 1, &broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", MemberEpoch: 1, RebalanceTimeoutMs: -1,
		TopicPartitions: modern.Assignment{}})
	require.Equal(t, kgviz.NONE, moved.ErrorCode)
	require.Equal(t, 2, moved.MemberEpoch, "C1 revoked everything it owned, so it is at epoch 2")
	// A zombie's heartbeat: epoch 1 is C1's previous one, but it still
	// reports partitions it no longer has.
	zombie := heartbeat(t, b, out, 1, &broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", MemberEpoch: 1, RebalanceTimeoutMs: -1,
		TopicPartitions: owned})
	assert.Equal(t, kgviz.FENCED_MEMBER_EPOCH, zombie.ErrorCode)
	assert.Contains(t, zombie.ErrorMessage, "smaller member epoch (1)")
	// One without its owned partitions (nil: not reported) is fenced too.
	stale := heartbeat(t, b, out, 1, &broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", MemberEpoch: 1, RebalanceTimeoutMs: -1})
	assert.Equal(t, kgviz.FENCED_MEMBER_EPOCH, stale.ErrorCode)
	g := b.Groups().Consumer(kgviz.GroupID)
	e, ok := g.MemberEpoch("C1-1")
	assert.True(t, ok, "a fenced heartbeat does not remove the member")
	assert.Equal(t, 2, e)
}

// STALE_MEMBER_EPOCH: an OffsetCommit whose member epoch is not the
// member's. Kafka: CG.validateOffsetCommit (validateMemberEpoch); the
// consumer's commitSync throws CommitFailedException ("OffsetCommit failed
// with stale member epoch", CRM.commitSyncExceptionForError).
//
// C2 is static and stuck in a slow record longer than max.poll.interval.ms:
// its heartbeat thread leaves the group for a while (member epoch -2, the
// coordinator keeps its partitions until it is back or its session expires)
// and its commits carry no epoch (-1) from then on. The commit after the
// slow record (within the session timeout, 20 ticks here) is refused; C2
// joins again at its next poll and gets its partitions back.
func TestFidelityStaleMemberEpoch(t *testing.T) {
	w := consumerWorld(kgviz.WithConfig("group.consumer.session.timeout.ms", 20)).Join("C1").
		AddMember("C2", kgviz.Static(), kgviz.WithSlowRecordTicks(16)).RunUntil(kgviz.Stable())
	w.RunUntil(kgviz.Processed("C2", "p0.0")).SlowNext("C2").RunUntil(kgviz.SlowStarted("C2"))
	n := w.EventCount()
	w.RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())

	r := replies(w, n, kgviz.OffsetCommit, kgviz.STALE_MEMBER_EPOCH)
	require.NotEmpty(t, r)
	assert.Equal(t, "C2", r[0].resp.To)
	assert.Equal(t, -1, r[0].req.Generation, "the zombie's commit carries no member epoch")
	assert.Equal(t, -2, r[0].resp.Generation, "the coordinator holds C2 at epoch -2")
	left, ok := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvMemberEpoch && e.Member == "C2" && e.Generation == -2
	})
	require.True(t, ok, "C2 left for a while (epoch -2) after its poll timeout")
	assert.Less(t, left.Tick, r[0].resp.Tick)
	_, failed := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvCommitFailed && e.Member == "C2" && e.Error == kgviz.STALE_MEMBER_EPOCH &&
			e.Exception == kgviz.CommitFailedException
	})
	assert.True(t, failed, "commitSync throws CommitFailedException")
	info, err := w.Member("C2")
	require.NoError(t, err)
	assert.Equal(t, kgviz.ConsumerStable, info.ConsumerState, "C2 joined again at its next poll")
	assert.Zero(t, w.Stats().Lost)
}

// UNRELEASED_INSTANCE_ID: a static member joins (epoch 0) while another
// member still holds its group.instance.id and did not leave with epoch -2.
// Kafka: GMM.throwIfInstanceIdIsUnreleased; fatal for the consumer (HRM:
// handleFatalFailure, UnreleasedInstanceIdException).
//
// Under the classic protocol a static member that crashed and comes back
// within session.timeout.ms takes its place again (KIP-345); under KIP-848
// (Kafka 4.1.1) the new process is refused until the old member's session
// expires, and the refusal is fatal.
func TestFidelityUnreleasedInstanceID(t *testing.T) {
	w := consumerWorld().Join("C1").AddMember("C2", kgviz.Static()).RunUntil(kgviz.Stable())
	w.Crash("C2", kgviz.Immediately()).Restart("C2")
	n := w.EventCount()
	w.RunUntil(kgviz.On("C2 failed", func(e kgviz.Event) bool { return e.Type == kgviz.EvError && e.Member == "C2" && e.Fatal }))
	require.NoError(t, w.Err())
	r := replies(w, n, kgviz.ConsumerGroupHeartbeat, kgviz.UNRELEASED_INSTANCE_ID)
	require.Len(t, r, 1)
	assert.Equal(t, 0, r[0].req.Body().(*broker.ConsumerGroupHeartbeatRequest).MemberEpoch, "a join")
	info, err := w.Member("C2")
	require.NoError(t, err)
	assert.Equal(t, kgviz.LifecycleFailed, info.Lifecycle)
	_, fatal := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvError && e.Exception == kgviz.UnreleasedInstanceIDException && e.Fatal
	})
	assert.True(t, fatal)

	// Restarted after the old member's session expired, C2 joins as a new member.
	w.RunUntil(kgviz.On("C2-1 removed", func(e kgviz.Event) bool { return e.Type == kgviz.EvMemberRemoved && e.MemberID == "C2-1" }))
	w.Restart("C2").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	assert.Equal(t, "C2-3", w.MemberID("C2"))
	assert.Len(t, w.Assignment(), 2)
}

// GROUP_ID_NOT_FOUND: a Consumer member joins a classic group that has
// members. Kafka 4.1.1 would migrate the group online
// (group.consumer.migration.policy=bidirectional); kgviz does not model the
// migration and answers as Kafka does with the policy disabled
// (GMM.validateOnlineUpgrade: GroupIdNotFoundException), fatal for the
// consumer. An empty classic group becomes a consumer group
// (GMM.maybeDeleteEmptyClassicGroup).
func TestFidelityGroupIDNotFound(t *testing.T) {
	w := kgviz.NewWorld().Join("C1")
	n := w.EventCount()
	w.AddMember("C2", kgviz.WithGroupProtocol(kgviz.Consumer)).RunUntil(kgviz.On("C2 failed", func(e kgviz.Event) bool {
		return e.Type == kgviz.EvError && e.Member == "C2" && e.Fatal
	}))
	require.NoError(t, w.Err())
	r := replies(w, n, kgviz.ConsumerGroupHeartbeat, kgviz.GROUP_ID_NOT_FOUND)
	require.Len(t, r, 1)
	assert.Contains(t, r[0].resp.Body().(*broker.ConsumerGroupHeartbeatResponse).ErrorMessage, "online upgrade is disabled")
	_, fatal := firstEvent(w, n, func(e kgviz.Event) bool {
		return e.Type == kgviz.EvError && e.Exception == kgviz.GroupIDNotFoundException
	})
	assert.True(t, fatal)
	assert.Equal(t, kgviz.GroupStable, w.GroupState(), "the classic group goes on")

	// Once the classic group is empty, a Consumer member turns it into a consumer group.
	w.Close("C1").RunFor(3).AddMember("C3", kgviz.WithGroupProtocol(kgviz.Consumer)).RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	assert.Equal(t, map[string][]string{"C3": {"o0", "o1", "o2", "p0", "p1", "p2"}}, w.Assignment())
	assert.NotNil(t, w.BrokerState().Groups().Consumer(kgviz.GroupID))

	// And a classic member joining the consumer group with members is refused.
	n = w.EventCount()
	w.AddMember("C4").RunUntil(kgviz.On("C4 failed", func(e kgviz.Event) bool { return e.Type == kgviz.EvError && e.Member == "C4" }))
	require.NoError(t, w.Err())
	assert.Len(t, replies(w, n, kgviz.JoinGroup, kgviz.INCONSISTENT_GROUP_PROTOCOL), 1)
}

// INVALID_REQUEST: a malformed ConsumerGroupHeartbeat. Kafka:
// GCS.throwIfConsumerGroupHeartbeatRequestIsInvalid; fatal for the
// consumer. kgviz's members never send one; the broker is stepped by
// messages.
func TestFidelityInvalidRequest(t *testing.T) {
	b, out := consumerBroker()
	for _, c := range []struct {
		req  *broker.ConsumerGroupHeartbeatRequest
		want string
	}{
		{&broker.ConsumerGroupHeartbeatRequest{MemberEpoch: 0, RebalanceTimeoutMs: 12, SubscribedTopicNames: []string{"orders"},
			TopicPartitions: modern.Assignment{}}, "MemberId can't be empty."},
		{&broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", RebalanceTimeoutMs: -1, SubscribedTopicNames: []string{"orders"},
			TopicPartitions: modern.Assignment{}}, "RebalanceTimeoutMs must be provided in first request."},
		{&broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", RebalanceTimeoutMs: 12, SubscribedTopicNames: []string{"orders"}},
			"TopicPartitions must be empty when (re-)joining."},
		{&broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", RebalanceTimeoutMs: 12, TopicPartitions: modern.Assignment{}},
			"Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."},
		{&broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", MemberEpoch: -2, RebalanceTimeoutMs: -1}, "InstanceId can't be null."},
		{&broker.ConsumerGroupHeartbeatRequest{MemberID: "C1-1", MemberEpoch: -3, RebalanceTimeoutMs: -1}, "MemberEpoch is invalid."},
	} {
		r := heartbeat(t, b, out, 1, c.req)
		assert.Equal(t, kgviz.INVALID_REQUEST, r.ErrorCode, c.want)
		assert.Equal(t, c.want, r.ErrorMessage)
	}
	assert.Nil(t, b.Groups().Consumer(kgviz.GroupID), "no group was created")
}

// UNSUPPORTED_ASSIGNOR: a heartbeat asking for a server-side assignor the
// broker does not have (group.consumer.assignors: uniform, range). Kafka:
// GCS.throwIfConsumerGroupHeartbeatRequestIsInvalid; fatal for the
// consumer. kgviz refuses such a group.remote.assignor when the member is
// configured (WithRemoteAssignor), so the broker is stepped by messages.
func TestFidelityUnsupportedAssignor(t *testing.T) {
	b, out := consumerBroker()
	req := joinRequest("C1-1")
	req.ServerAssignor = "cooperative-sticky"
	r := heartbeat(t, b, out, 1, req)
	assert.Equal(t, kgviz.UNSUPPORTED_ASSIGNOR, r.ErrorCode)
	assert.Equal(t, "ServerAssignor cooperative-sticky is not supported. Supported assignors: uniform, range.", r.ErrorMessage)
	req.ServerAssignor = "range"
	assert.Equal(t, kgviz.NONE, heartbeat(t, b, out, 1, req).ErrorCode)

	w := consumerWorld().AddMember("C1", kgviz.WithRemoteAssignor("sticky"))
	require.Error(t, w.Err())
	assert.Contains(t, w.Err().Error(), `group.remote.assignor="sticky"`)
}
