package kgviz

import "github.com/kgviz/kgviz/kgviz/broker"

// membership is a member's group membership manager: the part of the
// consumer that speaks one group protocol (group.protocol). The member calls
// it at the points where Kafka's consumer hands over to its coordinator or
// membership manager, and nowhere else decides by protocol:
//
//	classicMembership   group.protocol=classic: AbstractCoordinator and
//	                    ConsumerCoordinator (JoinGroup, SyncGroup, Heartbeat,
//	                    LeaveGroup; member_group.go)
//	consumerMembership  group.protocol=consumer: KIP-848's
//	                    ConsumerMembershipManager (ConsumerGroupHeartbeat;
//	                    member_consumer_group.go)
//	shareMembership     a KafkaShareConsumer (KIP-932): ShareMembershipManager
//	                    with its poll loop (ShareGroupHeartbeat, ShareFetch,
//	                    ShareAcknowledge; member_share_group.go)
type membership interface {
	// subscribe is subscribe() once the coordinator is found: the next poll joins.
	subscribe()
	// heartbeat is the heartbeat thread, once a tick.
	heartbeat()
	// checkPollTimeout leaves the group when max.poll.interval.ms expired.
	checkPollTimeout()
	// poll is the rebalance part of poll(); false when poll() cannot go on
	// this step.
	poll(settled bool) bool
	// close is close()'s part for the group; false while it waits.
	close() bool
	// joined says whether the member believes it is in the group;
	// consuming, whether it may consume what it owns (not lost).
	joined() bool
	consuming() bool
	// stable says whether the membership is stable (an owed commit is
	// retried, WithCommitEvery commits once caught up).
	stable() bool
	// commit sends an OffsetCommit of offsets (false: failed without a
	// request); commitFailed and afterCommitError handle its error answer.
	commit(offsets []broker.PartitionOffset) bool
	commitFailed(code ErrorCode)
	afterCommitError(code ErrorCode, changed bool)
	// offsetFetch names the member in an OffsetFetch request when the
	// protocol does (OffsetFetch v9 under KIP-848).
	offsetFetch(req *broker.OffsetFetchRequest)
	// info fills the protocol's part of a MemberInfo.
	info(*MemberInfo)
	// receive handles an answer of the protocol's own APIs that the member
	// does not dispatch itself (the share group protocol's).
	receive(env *broker.Envelope)
	// process runs the application's processing step when the protocol has
	// its own (a share consumer acknowledges each record); false: the
	// member's (member_process.go).
	process() bool
}

// newMembership is the membership manager of a new process of p, by its group.protocol.
func newMembership(p *member) membership {
	if p.cfg.share.group != "" {
		return newShareMembership(p)
	}
	if p.cfg.groupProtocol == Consumer {
		p.cgInit()
		return consumerMembership{p}
	}
	return classicMembership{p}
}

// classicMembership is the classic protocol's manager (member_group.go).
type classicMembership struct{ p *member }

func (m classicMembership) subscribe()             { m.p.group.rejoinNeeded = true }
func (m classicMembership) heartbeat()             { m.p.classicHeartbeat() }
func (m classicMembership) checkPollTimeout()      { m.p.classicCheckPollTimeout() }
func (m classicMembership) poll(settled bool) bool { return m.p.classicPoll(settled) }
func (m classicMembership) close() bool            { return m.p.classicClose() }
func (m classicMembership) joined() bool           { return m.p.group.state != ClassicUnjoined }
func (m classicMembership) consuming() bool        { return m.joined() }
func (m classicMembership) stable() bool           { return m.p.group.state == ClassicStable }
func (m classicMembership) commit(offsets []broker.PartitionOffset) bool {
	return m.p.classicCommitRequest(offsets)
}
func (m classicMembership) commitFailed(code ErrorCode) { m.p.classicCommitFailed(code) }
func (m classicMembership) afterCommitError(code ErrorCode, changed bool) {
	m.p.classicAfterCommitError(code, changed)
}
func (m classicMembership) offsetFetch(*broker.OffsetFetchRequest) {}
func (m classicMembership) info(*MemberInfo)                       {}
func (m classicMembership) receive(*broker.Envelope)               {}
func (m classicMembership) process() bool                          { return false }

// consumerMembership is the consumer protocol's manager (member_consumer_group.go).
type consumerMembership struct{ p *member }

func (m consumerMembership) subscribe()             { m.p.cg.subscribed = true }
func (m consumerMembership) heartbeat()             { m.p.cgHeartbeat() }
func (m consumerMembership) checkPollTimeout()      { m.p.cgPollTimeout() }
func (m consumerMembership) poll(settled bool) bool { return m.p.cgPoll(settled) }
func (m consumerMembership) close() bool            { return m.p.cgClose() }
func (m consumerMembership) joined() bool           { return m.p.cg.state.inGroup() }
func (m consumerMembership) consuming() bool        { return m.joined() && !m.p.cg.lost }
func (m consumerMembership) stable() bool           { return m.p.cg.state == ConsumerStable }
func (m consumerMembership) commit(offsets []broker.PartitionOffset) bool {
	return m.p.cgCommitRequest(offsets)
}
func (m consumerMembership) commitFailed(code ErrorCode) { m.p.cgCommitFailed(code) }
func (m consumerMembership) afterCommitError(code ErrorCode, _ bool) {
	m.p.cgAfterCommitError(code)
}
func (m consumerMembership) offsetFetch(req *broker.OffsetFetchRequest) {
	if e := m.p.cg.commitEpoch; e > 0 {
		req.MemberID, req.MemberEpoch = m.p.group.memberID, e // OffsetFetch v9: the member names itself
	}
}
func (m consumerMembership) receive(*broker.Envelope) {}
func (m consumerMembership) process() bool            { return false }
func (m consumerMembership) info(info *MemberInfo) {
	p := m.p
	info.Generation, info.ConsumerState, info.RemoteAssignor, info.Assignors = p.cg.epoch, p.cg.state, p.cfg.remoteAssignor, nil
}
