package kgviz

import (
	"slices"
	"strconv"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// consumerGroupClient is the consumer's side of the consumer group protocol
// (KIP-848, group.protocol=consumer): Kafka 4.1.1's ConsumerMembershipManager
// (with AbstractMembershipManager) and ConsumerHeartbeatRequestManager (with
// its HeartbeatState), as an AsyncKafkaConsumer runs them.
//
// The heartbeat thread (the consumer's background thread) sends
// ConsumerGroupHeartbeat at the interval the coordinator gives, or at once
// when the member joins, acknowledges a reconciliation or leaves; it learns
// its member epoch and its assignment from the answers. The application
// thread reconciles at its next poll(): it revokes what the new assignment
// no longer holds (committing first when auto-commit or its rebalance
// listener owes a commit: onPartitionsRevoked), takes what is new
// (onPartitionsAssigned) and keeps consuming the rest; a fenced or stale
// member gives its partitions up as lost (onPartitionsLost) and joins again
// with epoch 0. kgviz reconciles in poll() as Kafka does when a
// ConsumerRebalanceListener is registered or auto-commit is on
// (docs/simplifications.md).
type consumerGroupClient struct {
	state ConsumerMemberState
	epoch int // the member epoch: 0 to join, -1 or -2 to leave
	// The target assignment the coordinator sent and the assignment the
	// member reconciled, each with its local epoch (AbstractMembershipManager's
	// LocalAssignment; -1 is NONE). The member reconciled its target when the
	// local epochs are equal.
	target       []TopicPartition
	targetLocal  int
	current      []TopicPartition
	currentLocal int
	// subscribed: subscribe() was called; the next poll joins (onConsumerPoll).
	subscribed bool
	// lost: onPartitionsLost is owed (fenced, stale, fatal); the next poll
	// gives the partitions up.
	lost      bool
	fatal     event.Exception // the error a FATAL member's next poll throws
	fatalCode ErrorCode
	// The heartbeat request manager.
	inFlight  int // the heartbeat waiting for its answer (message id), 0: none
	nextAt    int // when the heartbeat interval expires
	interval  int // the coordinator's group.consumer.heartbeat.interval.ms
	sentLocal int // the local epoch of the assignment last reported; -2 after a reset
	sentAll   bool
	// commitEpoch is the member epoch offset commits and fetches carry
	// (CommitRequestManager's memberInfo): -1 while not in the group.
	commitEpoch int
	plainReq    broker.ConsumerGroupHeartbeatRequest
	// startedLocal is the local epoch of the target whose revocation a poll
	// started under ReconcileKafka440 (its AsyncPollEvent's
	// maybeReconcile(true)); -1: none.
	startedLocal int
}

// cgInit sets up a new process of a Consumer member: the member id is the
// consumer's own, made at startup and kept for the process's lifetime
// (ConsumerGroupHeartbeat version 1); kgviz makes it name-incarnation ("C1-1")
// instead of a UUID so that runs are reproducible.
func (p *member) cgInit() {
	c := &p.cg
	*c = consumerGroupClient{state: ConsumerUnsubscribed, targetLocal: -1, currentLocal: -1, sentLocal: -2, commitEpoch: -1, startedLocal: -1}
	p.group.memberID = p.name + "-" + strconv.Itoa(p.incarnation)
}

// consumerProtocol says whether the process uses the consumer group protocol.
func (p *member) consumerProtocol() bool { return p.cfg.groupProtocol == Consumer }

// cgSetEpoch is updateMemberEpoch with the MemberStateListeners: the commit
// manager's member epoch and the consumer's ConsumerGroupMetadata (which
// keeps the last epoch the member had once it leaves).
func (p *member) cgSetEpoch(e int) {
	c, g := &p.cg, &p.group
	c.epoch = e
	if e > 0 {
		c.commitEpoch = e
		g.generation, g.appMemberID, g.appGeneration = e, g.memberID, e
	} else {
		c.commitEpoch = -1
		g.generation = 0
	}
}

// cgJoin is transitionToJoining: epoch 0, the next heartbeat joins with
// every field.
func (p *member) cgJoin() {
	c := &p.cg
	p.cgSetEpoch(0)
	c.state = ConsumerJoining
	c.target, c.targetLocal, c.startedLocal = nil, -1, -1
	p.touch()
}

// cgHeartbeat is the heartbeat thread's turn (AbstractHeartbeatRequestManager.poll):
// one heartbeat at a time, when the interval expired, or at once to join, to
// acknowledge a reconciliation or to leave.
func (p *member) cgHeartbeat() {
	c := &p.cg
	switch c.state {
	case ConsumerUnsubscribed, ConsumerFatal, ConsumerStale, ConsumerFenced:
		return // shouldSkipHeartbeat
	}
	urgent := c.state == ConsumerLeaving || (c.state == ConsumerAcknowledging || c.state == ConsumerJoining) && c.inFlight == 0
	if !urgent && (c.inFlight != 0 || p.now() < c.nextAt) {
		return
	}
	p.cgSend(false)
}

// cgSend builds and sends a heartbeat as HeartbeatState.buildRequestData
// does (what did not change since the last one is not sent), then
// onHeartbeatRequestGenerated. A heartbeat that joins, leaves or reports the
// owned partitions is recorded; the others are not, as the classic
// heartbeats are not.
func (p *member) cgSend(ignoreAnswer bool) {
	c := &p.cg
	req := &c.plainReq
	all := c.state == ConsumerJoining
	plain := !all && c.sentAll && c.sentLocal == c.currentLocal && c.epoch > 0
	if !plain {
		req = &broker.ConsumerGroupHeartbeatRequest{}
	}
	// The plain request is only ever this value (or zero, before the
	// first): rewritten only when a field of it changed.
	if !plain || req.MemberEpoch != c.epoch || req.MemberID != p.group.memberID || req.InstanceID != p.cfg.instanceID ||
		req.GroupID != GroupID {
		*req = broker.ConsumerGroupHeartbeatRequest{GroupID: GroupID, MemberID: p.group.memberID, MemberEpoch: c.epoch,
			InstanceID: p.cfg.instanceID, RebalanceTimeoutMs: -1}
	}
	if all || !c.sentAll {
		req.RebalanceTimeoutMs = p.cfg.maxPollInterval
		req.SubscribedTopicNames = kafka.JavaHashMapOrder(p.t.topicNames())
		req.ServerAssignor = p.cfg.remoteAssignor
		c.sentAll = true
	}
	if all || c.sentLocal != c.currentLocal {
		req.TopicPartitions = p.t.assignmentOf(c.current)
		c.sentLocal = c.currentLocal
	}
	record := !plain
	id := p.h.sendConsumerHeartbeat(p.envelope(c.epoch, req), p, record)
	c.nextAt = p.now() + c.interval
	if !ignoreAnswer {
		c.inFlight = id
	}
	// onHeartbeatRequestGenerated
	switch c.state {
	case ConsumerAcknowledging:
		if c.currentLocal == c.targetLocal {
			c.state = ConsumerStable
		} else {
			c.state = ConsumerReconciling
		}
	case ConsumerLeaving:
		c.state = ConsumerUnsubscribed
	}
}

// resetSent is resetHeartbeatState: after an error the next heartbeat sends
// everything again.
func (c *consumerGroupClient) resetSent() { c.sentAll, c.sentLocal = false, -2 }

// onConsumerGroupHeartbeatResponse is onResponse: onHeartbeatSuccess, or
// the error handling of onErrorResponse.
func (p *member) onConsumerGroupHeartbeatResponse(env *broker.Envelope, m *broker.ConsumerGroupHeartbeatResponse) {
	c := &p.cg
	if env.ReplyTo != c.inFlight {
		return // the answer to a leave, which nobody waits for
	}
	c.inFlight = 0
	if m.ErrorCode != kafka.NONE {
		p.cgError(m.ErrorCode)
		return
	}
	if m.HeartbeatIntervalMs != c.interval {
		c.interval = m.HeartbeatIntervalMs
		c.nextAt = p.now() + c.interval
	}
	if !c.state.inGroup() || c.state == ConsumerLeaving || m.MemberEpoch < 0 {
		return
	}
	if m.MemberEpoch != c.epoch {
		p.cgSetEpoch(m.MemberEpoch)
	}
	if m.Assignment == nil {
		return
	}
	switch c.state {
	case ConsumerStable, ConsumerJoining, ConsumerAcknowledging, ConsumerReconciling: // canHandleNewAssignment
	default:
		return
	}
	// processAssignmentReceived
	names := m.Assignment.TopicPartitions.TopicPartitions(p.t.topicsImage())
	if c.targetLocal == -1 || !equalTPs(names, c.target) {
		c.target = names
		c.targetLocal++
	}
	if c.currentLocal != c.targetLocal {
		c.state = ConsumerReconciling
		p.wake()
	} else if c.state == ConsumerReconciling || c.state == ConsumerJoining {
		c.state = ConsumerStable
	}
	p.touch()
}

func equalTPs(a, b []TopicPartition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// cgError is onErrorResponse: FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID
// fence the member (it gives its partitions up as lost and joins again),
// COORDINATOR_NOT_AVAILABLE is retried, anything else is fatal
// (UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID, GROUP_ID_NOT_FOUND,
// UNSUPPORTED_ASSIGNOR, INVALID_REQUEST: handleFatalFailure).
func (p *member) cgError(code ErrorCode) {
	c := &p.cg
	c.resetSent()
	c.nextAt = p.now()
	switch code {
	case kafka.FENCED_MEMBER_EPOCH, kafka.UNKNOWN_MEMBER_ID:
		p.cgFenced()
	case kafka.COORDINATOR_NOT_AVAILABLE:
		c.nextAt = p.now() + 1 // retry.backoff.ms
	default:
		prev := c.state
		c.state, c.fatalCode = ConsumerFatal, code
		c.fatal = map[ErrorCode]event.Exception{kafka.UNRELEASED_INSTANCE_ID: event.UnreleasedInstanceIDException,
			kafka.FENCED_INSTANCE_ID: event.FencedInstanceIDException, kafka.GROUP_ID_NOT_FOUND: event.GroupIDNotFoundException,
			kafka.UNSUPPORTED_ASSIGNOR: event.UnsupportedAssignorException}[code]
		if c.fatal == "" {
			c.fatal = event.KafkaException
		}
		c.commitEpoch = -1 // the epoch listeners hear "no epoch": commits carry -1
		if prev != ConsumerUnsubscribed && prev != ConsumerLeaving && prev != ConsumerPrepareLeaving {
			c.lost = true
		}
	}
	p.touch()
	p.wake()
}

// cgFenced is transitionToFenced.
func (p *member) cgFenced() {
	c := &p.cg
	switch c.state {
	case ConsumerPrepareLeaving, ConsumerLeaving:
		c.state = ConsumerUnsubscribed
		return
	case ConsumerUnsubscribed:
		return
	}
	c.state = ConsumerFenced
	p.cgSetEpoch(0)
	c.lost = true
}

// cgLeaveEpoch is leaveGroupEpoch: a static member leaves for a while (-2),
// a dynamic one for good (-1).
func (p *member) cgLeaveEpoch() int {
	if p.cfg.instanceID != "" {
		return broker.LeaveGroupStaticMemberEpoch
	}
	return broker.LeaveGroupMemberEpoch
}

// cgLeave sends the heartbeat that leaves the group now
// (transitionToSendingLeaveGroup, then the heartbeat LEAVING sends at once).
func (p *member) cgLeave() {
	c := &p.cg
	if !c.state.inGroup() && c.state != ConsumerLeaving {
		return
	}
	c.epoch = p.cgLeaveEpoch()
	c.commitEpoch = -1
	c.current, c.currentLocal = nil, -1
	c.state = ConsumerLeaving
	p.cgSend(true)
}

// cgPollTimeout is the heartbeat thread's max.poll.interval.ms check for a
// Consumer member: it leaves the group (epoch -1, or -2 for a static member),
// turns STALE and gives its partitions up as lost at its next poll, when it
// joins again (AbstractHeartbeatRequestManager.poll,
// transitionToSendingLeaveGroup(true), transitionToStale).
func (p *member) cgPollTimeout() {
	c := &p.cg
	if !p.alive() || !c.state.inGroup() || c.state == ConsumerPrepareLeaving || c.state == ConsumerLeaving || p.phase.inPoll() {
		return
	}
	if p.now()-p.lastPoll <= p.cfg.maxPollInterval {
		return
	}
	p.event(event.Event{Type: event.EvPollTimeout, Generation: c.epoch, Ticks: p.now() - p.lastPoll, Count: p.cfg.maxPollInterval})
	c.state = ConsumerPrepareLeaving
	p.cgLeave()
	c.state = ConsumerStale
	c.lost = true
	c.inFlight = 0
	p.touch()
	p.event(event.Event{Type: event.EvZombie, Reason: event.ReasonPollTimeout})
}

// cgPoll is the membership's part of poll() for a Consumer member
// (AsyncKafkaConsumer.poll: onConsumerPoll, the rebalance callbacks, the
// reconciliation). It returns false when poll() cannot go on this step.
func (p *member) cgPoll(settled bool) bool {
	c, g := &p.cg, &p.group
	if c.state == ConsumerFatal {
		p.cgReleaseLost()
		p.fail(kafka.ConsumerGroupHeartbeat, c.fatalCode, c.fatal)
		return false
	}
	if c.subscribed && c.state == ConsumerUnsubscribed {
		c.subscribed = false
		p.cgJoin()
	}
	if c.lost {
		p.cgReleaseLost()
	}
	if c.state == ConsumerStale {
		p.cgJoin() // maybeRejoinStaleMember: the poll timer was reset
	}
	if c.state == ConsumerReconciling && c.currentLocal != c.targetLocal && !p.cgRevocationStarts() && !p.cgReconcile(settled) {
		return false
	}
	if p.cfg.commit == AutoCommit && g.assigned && c.state.inGroup() && p.now()-p.lastAuto >= p.cfg.autoCommitInterval {
		p.lastAuto = p.now()
		if offs := p.dirtyOffsets(p.owned); len(offs) > 0 {
			p.commitRequest(offs)
		}
	}
	if !g.assigned {
		// Nothing assigned yet: poll() waits for the first assignment.
		p.setPhase(PhaseRebalance)
		p.setActivity(event.ActivityJoining, "")
		return false
	}
	return true
}

// cgRevocationStarts reports whether this poll only starts the
// reconciliation, under kafka-clients 4.4.0's rule (ReconcileKafka440): a
// reconciliation that revokes partitions is started by the AsyncPollEvent
// the application's poll() sends (ApplicationEventProcessor calls
// AbstractMembershipManager.maybeReconcile(true)); the background thread's
// maybeReconcile(false) leaves it alone. onPartitionsRevoked, which the
// started reconciliation hands to the application thread
// (ConsumerRebalanceListenerInvoker), runs in the poll after, so the member
// acknowledges one poll later than under 4.1.1's rule.
func (p *member) cgRevocationStarts() bool {
	c := &p.cg
	if p.cfg.reconciliation != ReconcileKafka440 || c.startedLocal == c.targetLocal {
		return false
	}
	if revoked, _ := reconcileDiff(c.target, p.owned); len(revoked) == 0 {
		return false
	}
	c.startedLocal = c.targetLocal
	return true
}

// cgReleaseLost is onPartitionsLost, then clearAssignment; a fenced member
// then joins again.
func (p *member) cgReleaseLost() {
	c := &p.cg
	c.lost = false
	if len(p.owned) > 0 {
		p.revokeAll(event.ReasonLost)
	}
	c.current, c.currentLocal = nil, -1
	p.group.assigned = false
	p.touch()
	if c.state == ConsumerFenced {
		p.cgJoin()
	}
}

// cgReconcile is maybeReconcile with revokeAndAssign: commit what the
// revoked partitions owe (auto-commit commits everything consumed, as
// maybeAutoCommitSyncBeforeRebalance), onPartitionsRevoked, then
// onPartitionsAssigned, then ACKNOWLEDGING. It returns false when it waits
// for the commit.
func (p *member) cgReconcile(settled bool) bool {
	c := &p.cg
	revoked, added := reconcileDiff(c.target, p.owned)
	if len(revoked) > 0 {
		owes := revoked
		if p.cfg.commit == AutoCommit {
			owes = p.owned
		}
		if p.commitThenRevoke(owes, revoked, settled) {
			return false
		}
		if p.h.stopped() {
			return false
		}
	}
	p.revoke(revoked, event.ReasonReconcileRevoke)
	// owned may share its array with an assignment or an OffsetFetch
	// request, and is never changed in place (member.owned): the append
	// copies, so the sort reorders only the copy
	p.owned = append(slices.Clip(p.owned), added...)
	if !partitionsSorted(p.owned) {
		SortPartitions(p.owned)
	}
	p.syncOwned()
	if len(added) > 0 {
		p.event(event.Event{Type: event.EvAssigned, Generation: c.epoch}.WithPartitions(p.t.shortNames(added)))
	}
	c.current, c.currentLocal = c.target, c.targetLocal
	// ConsumerMembershipManager.signalReconciliationCompleting: "Reschedule
	// the auto commit starting from now that the member has a new
	// assignment" (CommitRequestManager.resetAutoCommitTimer)
	p.lastAuto = p.now()
	c.state = ConsumerAcknowledging
	p.group.assigned = true
	p.ownedGen = c.epoch
	p.touch()
	return true
}

// reconcileDiff returns the partitions of owned the target leaves out (in
// owned's order) and those of the target owned lacks (in the target's
// order).
func reconcileDiff(target, owned []TopicPartition) (revoked, added []TopicPartition) {
	want := make(map[TopicPartition]bool, len(target))
	for _, tp := range target {
		want[tp] = true
	}
	have := make(map[TopicPartition]bool, len(owned))
	for _, tp := range owned {
		have[tp] = true
		if !want[tp] {
			revoked = append(revoked, tp)
		}
	}
	for _, tp := range target {
		if !have[tp] {
			added = append(added, tp)
		}
	}
	return revoked, added
}

// cgClose is KafkaConsumer.close() for a Consumer member: the auto-commit,
// the rebalance callbacks (onPartitionsRevoked, or onPartitionsLost when
// the member is no longer in the group), then the heartbeat that leaves:
// epoch -1, or -2 for a static member, which the coordinator keeps (with its
// partitions) until it is back or its session expires.
func (p *member) cgClose() bool {
	c, g := &p.cg, &p.group
	if g.assigned && c.state.inGroup() && p.cfg.commit != Transactional {
		var offs []broker.PartitionOffset
		if p.cfg.commit == AutoCommit {
			offs = p.dirtyOffsets(p.owned)
		} else {
			offs = p.closeOffsets() // WithCommitOnClose
		}
		if len(p.owned) > 0 && !c.lost { // onPartitionsRevoked (onPartitionsLost when fenced)
			mine, ok := p.listenerOffsets(p.owned)
			if !ok {
				return false
			}
			offs = mergeOffsets(offs, mine)
		}
		if len(offs) > 0 {
			p.commitRequest(offs)
		}
	}
	if len(p.owned) > 0 {
		why := event.ReasonClose
		if !c.state.inGroup() || c.lost {
			why = event.ReasonLost
		}
		p.revokeAll(why)
	}
	c.state = ConsumerPrepareLeaving
	p.cgLeave()
	return true
}
