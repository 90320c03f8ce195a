package kgviz

import (
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// groupClient is the consumer's side of the classic group protocol (Kafka's
// AbstractCoordinator and ConsumerCoordinator): the member id and generation
// it holds, its ClassicMemberState, and what the application saw at its last
// completed rebalance.
type groupClient struct {
	state        ClassicMemberState
	memberID     string
	generation   int
	protocolName string // the assignor the group chose
	rejoinNeeded bool
	// assigned: the application completed a rebalance (onJoinComplete) since
	// the consumer last joined; it consumes its partitions for the group.
	assigned bool
	// lost: the generation was reset while the application owned partitions;
	// its next poll revokes them as lost (onPartitionsLost).
	lost bool
	// The assignment SyncGroup returned, applied by the next poll.
	pending     []TopicPartition
	havePending bool
	// prevAssignment is the last assignment, which an eager member sends as
	// the sticky assignor's user data.
	prevAssignment []TopicPartition
	// deferredJoin is a JoinGroup answer that arrived while nothing polled
	// the consumer's network: the heartbeat thread does not run in
	// PREPARING_REBALANCE, so the answer waits for the application's next
	// poll() or commitSync (a cooperative member keeps processing its
	// partitions while it rejoins).
	deferredJoin *broker.JoinGroupResponse
	// deferredUntil: WithSyncGroupDelay's tick before which the deferred
	// answer is not handled (the application is still in its batch).
	deferredUntil int
	// syncFailed: SyncGroup was answered REBALANCE_IN_PROGRESS. Kafka's
	// SyncGroupResponseHandler only fails the join future: the member stays
	// COMPLETING_REBALANCE, so its heartbeat thread keeps the session alive,
	// and joinGroupIfNeeded sends a new JoinGroup the next time the
	// application polls (at once if it is polling).
	syncFailed bool
	// The application's ConsumerGroupMetadata: member id and generation as of
	// its last completed rebalance, fixed between polls.
	appMemberID   string
	appGeneration int
	// The heartbeat thread.
	hbStopped bool             // stopped after max.poll.interval.ms
	hbFailed  event.Exception  // a fatal heartbeat error, thrown by the next poll
	hbSent    [2]sentHeartbeat // the last two heartbeats sent (at most two are unanswered)
}

type sentHeartbeat struct {
	msg        int
	generation int
	memberID   string
}

func (p *member) findCoordinator() {
	p.request(&broker.FindCoordinatorRequest{CoordinatorKey: p.groupID(), KeyType: broker.CoordinatorGroup}, 0)
	p.setPhase(PhaseFindCoordinator)
}

func (p *member) onFindCoordinatorResponse(m *broker.FindCoordinatorResponse) {
	if p.phase != PhaseFindCoordinator {
		return
	}
	if m.ErrorCode != kafka.NONE {
		p.backoff(PhaseFindCoordinator)
		return
	}
	if p.lifecycle == LifecycleStarting {
		p.setLifecycle(LifecycleRunning)
	}
	p.mm.subscribe() // the next poll joins
	p.setPhase(PhasePoll)
}

// heartbeat is the heartbeat thread's send, once a tick
// (heartbeat.interval.ms), while the member is in the group or completing a
// rebalance (AbstractCoordinator.HeartbeatThread stops while it has not
// joined: UNJOINED or PREPARING_REBALANCE).
func (p *member) heartbeat() { p.mm.heartbeat() }

// classicHeartbeat is the classic protocol's heartbeat thread.
func (p *member) classicHeartbeat() {
	g := &p.group
	if !p.alive() || g.hbStopped || g.hbFailed != "" || g.memberID == "" || (g.state != ClassicStable && g.state != ClassicCompletingRebalance) {
		return
	}
	if p.pollTimeoutDue() {
		return // the heartbeat thread leaves the group instead (checkPollTimeout)
	}
	// One request value per process: a heartbeat sent at tick t is handled
	// at t+1 before the next one is sent, and heartbeat requests are not
	// recorded, so it can be reused; it is written only when one of its
	// fields changed (no stores, and no write barriers, for nothing).
	if r := &p.hbReq; r.GenerationID != g.generation || r.MemberID != g.memberID || r.GroupInstanceID != p.cfg.instanceID || r.GroupID != GroupID {
		*r = broker.HeartbeatRequest{GroupID: GroupID, GenerationID: g.generation, MemberID: g.memberID, GroupInstanceID: p.cfg.instanceID}
	}
	id := p.h.sendHeartbeat(p.envelope(g.generation, &p.hbReq), p)
	old := 0
	if g.hbSent[1].msg < g.hbSent[0].msg {
		old = 1
	}
	g.hbSent[old] = sentHeartbeat{id, g.generation, g.memberID}
}

// onHeartbeatResponse is HeartbeatResponseHandler, for the answer to
// heartbeat replyTo. A successful answer, the usual one, does nothing: the
// heartbeat it answers is looked up only for an error that depends on it.
func (p *member) onHeartbeatResponse(replyTo int, m *broker.HeartbeatResponse) {
	g := &p.group
	switch m.ErrorCode {
	case kafka.REBALANCE_IN_PROGRESS:
		if g.state == ClassicStable {
			g.rejoinNeeded = true // requestRejoin("group is already rebalancing")
			p.wake()
		}
	case kafka.ILLEGAL_GENERATION, kafka.UNKNOWN_MEMBER_ID, kafka.FENCED_INSTANCE_ID:
		var sent sentHeartbeat
		for _, s := range g.hbSent {
			if s.msg == replyTo {
				sent = s
			}
		}
		if sent.generation != g.generation || sent.memberID != g.memberID {
			return // the generation changed since: ignore
		}
		p.resetGeneration(m.ErrorCode != kafka.ILLEGAL_GENERATION)
		if m.ErrorCode == kafka.FENCED_INSTANCE_ID {
			g.hbFailed = event.FencedInstanceIDException
		}
		p.wake()
	}
}

// resetGeneration is resetStateAndRejoin: the member learned it is no longer
// in the group (or its generation is gone); it keeps its member id only for
// ILLEGAL_GENERATION, and its next poll revokes what it owns as lost and
// rejoins.
func (p *member) resetGeneration(resetMemberID bool) {
	g := &p.group
	if g.assigned && len(p.owned) > 0 {
		g.lost = true
	}
	g.state, g.generation, g.rejoinNeeded, g.havePending, g.syncFailed = ClassicUnjoined, 0, true, false, false
	if resetMemberID {
		g.memberID = ""
	}
	p.touch()
}

// checkPollTimeout is the heartbeat thread's max.poll.interval.ms check
// (KIP-62): after that long without poll() it leaves the group (a dynamic
// member sends LeaveGroup; a static one just stops heartbeating) while the
// application goes on.
//
// The check runs on the heartbeat thread, which runs only while the member is
// COMPLETING_REBALANCE or STABLE and has not failed
// (AbstractCoordinator.HeartbeatThread disables itself otherwise).
func (p *member) checkPollTimeout() { p.mm.checkPollTimeout() }

// classicCheckPollTimeout is checkPollTimeout under the classic protocol.
func (p *member) classicCheckPollTimeout() {
	if !p.pollTimeoutDue() {
		return
	}
	g := &p.group
	p.event(event.Event{Type: event.EvPollTimeout, Generation: g.generation, Ticks: p.now() - p.lastPoll, Count: p.cfg.maxPollInterval})
	if p.cfg.instanceID == "" {
		p.request(&broker.LeaveGroupRequest{GroupID: GroupID,
			Members: []broker.MemberIdentity{{MemberID: g.memberID, Reason: "consumer poll timeout has expired"}}}, g.generation)
	}
	g.hbStopped = true
	p.resetGeneration(true) // resetGenerationOnLeaveGroup
	p.event(event.Event{Type: event.EvZombie, Reason: event.ReasonPollTimeout})
}

// pollTimeoutDue says whether the heartbeat thread finds max.poll.interval.ms
// expired: it then leaves the group instead of sending a heartbeat
// (HeartbeatThread.run checks pollTimeoutExpired before shouldHeartbeat).
//
// The phase is read first: a member inside poll(), the usual one, is
// answered at once (the conditions are only reads, in any order the same).
func (p *member) pollTimeoutDue() bool {
	g := &p.group
	if p.phase.inPoll() || !p.alive() || g.hbStopped || g.hbFailed != "" || !g.assigned || g.memberID == "" ||
		(g.state != ClassicStable && g.state != ClassicCompletingRebalance) {
		return false
	}
	return p.now()-p.lastPoll > p.cfg.maxPollInterval
}

// sendJoin sends JoinGroup with the member's assignors, in order of
// preference, each with the same subscription: its topics and, under the
// cooperative protocol, the partitions it owns (KIP-429); an eager member
// sends its previous assignment as the sticky assignor's user data.
func (p *member) sendJoin() {
	g := &p.group
	g.rejoinNeeded, g.state, g.hbStopped, g.syncFailed = false, ClassicPreparingRebalance, false, false
	sub := broker.ConsumerProtocolSubscription{Topics: p.t.topicNames(), GenerationID: -1, OwnedGenerationID: -1}
	if g.generation > 0 {
		sub.GenerationID = g.generation
	}
	if p.ownedGen != 0 {
		sub.OwnedGenerationID = p.ownedGen
	}
	if p.protocol == Cooperative {
		sub.OwnedPartitions = append([]TopicPartition(nil), p.owned...)
	} else {
		sub.UserData = g.prevAssignment // never changed once set (onSyncGroupResponse)
	}
	protocols := make([]broker.JoinGroupProtocol, len(p.cfg.assignors))
	for i, a := range p.cfg.assignors {
		protocols[i] = broker.JoinGroupProtocol{Name: a.Name(), Metadata: sub}
	}
	req := &broker.JoinGroupRequest{GroupID: GroupID, SessionTimeout: p.cfg.sessionTimeout, RebalanceTimeout: p.cfg.maxPollInterval,
		MemberID: g.memberID, GroupInstanceID: p.cfg.instanceID, ProtocolType: "consumer", Protocols: protocols}
	p.request(req, g.generation)
}

// groupRequestFailed handles an error answer to JoinGroup or SyncGroup: a
// fenced static instance or an inconsistent protocol is fatal; otherwise the
// member joins again (as a new member if its id is unknown).
func (p *member) groupRequestFailed(api kafka.APIKey, code ErrorCode) {
	switch code {
	case kafka.FENCED_INSTANCE_ID:
		p.fail(api, code, event.FencedInstanceIDException)
		return
	case kafka.INCONSISTENT_GROUP_PROTOCOL:
		p.fail(api, code, event.InconsistentGroupProtocolException)
		return
	case kafka.UNKNOWN_MEMBER_ID, kafka.ILLEGAL_GENERATION:
		p.resetGeneration(code == kafka.UNKNOWN_MEMBER_ID)
	case kafka.REBALANCE_IN_PROGRESS:
		if api == kafka.SyncGroup {
			p.group.syncFailed, p.group.rejoinNeeded = true, true
			break
		}
		p.group.state, p.group.rejoinNeeded = ClassicUnjoined, true
	default:
		p.group.state, p.group.rejoinNeeded = ClassicUnjoined, true
	}
	p.wake()
}

func (p *member) onJoinGroupResponse(m *broker.JoinGroupResponse) {
	g := &p.group
	if g.state != ClassicPreparingRebalance {
		return
	}
	if m.ErrorCode != kafka.NONE {
		p.groupRequestFailed(kafka.JoinGroup, m.ErrorCode)
		return
	}
	g.memberID, g.generation, g.protocolName = m.MemberID, m.GenerationID, m.ProtocolName
	g.state = ClassicCompletingRebalance
	var assignments []broker.SyncGroupAssignment
	if m.Leader == g.memberID && !m.SkipAssignment {
		var err error
		assignments, err = p.runAssignor(m)
		if err != nil {
			p.h.stop(err)
			return
		}
	}
	req := &broker.SyncGroupRequest{GroupID: GroupID, GenerationID: m.GenerationID, MemberID: g.memberID,
		GroupInstanceID: p.cfg.instanceID, ProtocolType: "consumer", ProtocolName: m.ProtocolName, Assignments: assignments}
	p.request(req, m.GenerationID)
	if p.phase == PhaseRebalance {
		p.setActivity(event.ActivitySyncing, "")
	}
}

func (p *member) onSyncGroupResponse(m *broker.SyncGroupResponse) {
	g := &p.group
	if g.state != ClassicCompletingRebalance {
		return
	}
	if m.ErrorCode != kafka.NONE {
		p.groupRequestFailed(kafka.SyncGroup, m.ErrorCode)
		return
	}
	g.state = ClassicStable
	// pending and prevAssignment are only read, never changed: a sorted
	// assignment is the answer's own list (which nobody changes either).
	if len(m.Assignment) > 0 && partitionsSorted(m.Assignment) {
		g.pending = m.Assignment[:len(m.Assignment):len(m.Assignment)]
	} else {
		g.pending = append([]TopicPartition(nil), m.Assignment...)
		SortPartitions(g.pending)
	}
	g.prevAssignment = g.pending
	g.havePending = true
	p.wake()
}

// onNetwork says whether the application thread is polling the consumer's
// network now: inside poll(), or blocked in commitSync.
func (p *member) onNetwork() bool {
	switch p.phase {
	case PhaseCommitBefore, PhaseCommitAfter:
		return true
	case PhaseBackoff:
		return p.backoffOf.inPoll()
	}
	return p.phase.inPoll()
}

// receiveJoinGroup handles a JoinGroup answer now, or keeps it for the
// application's next network poll (see groupClient.deferredJoin).
//
// With WithSyncGroupDelay(n) the application thread is taken to be busy in
// the batch its poll() returned when the answer comes (unless it is blocked
// in poll() for the rebalance itself): the answer, and with it the SyncGroup,
// is handled n ticks after it arrived (member.step), not before.
func (p *member) receiveJoinGroup(m *broker.JoinGroupResponse) {
	g := &p.group
	busy := p.cfg.syncGroupDelay > 0 && p.phase != PhaseRebalance
	if g.state == ClassicPreparingRebalance && (!p.onNetwork() || busy) {
		g.deferredJoin = m
		g.deferredUntil = 0
		if busy {
			g.deferredUntil = p.now() + p.cfg.syncGroupDelay
		}
		return
	}
	p.onJoinGroupResponse(m)
}

// pollNetwork is the application thread polling the consumer's network
// (ConsumerNetworkClient.poll): a JoinGroup answer that waited is handled.
func (p *member) pollNetwork() {
	if m := p.group.deferredJoin; m != nil && p.now() >= p.group.deferredUntil {
		p.group.deferredJoin = nil
		p.onJoinGroupResponse(m)
	}
}

// wake lets an application blocked in poll() continue at its next step.
func (p *member) wake() {
	if p.phase == PhaseRebalance {
		p.setPhase(PhasePoll)
	}
}

// applyAssignment is onJoinComplete, in poll(): revoke what was lost, take
// what is new, and take the new generation into the application's
// ConsumerGroupMetadata. It returns false when it had to wait for a commit first.
func (p *member) applyAssignment(settled bool) bool {
	g := &p.group
	revoked, added := assignmentDiff(g.pending, p.owned)
	if len(revoked) > 0 && p.commitThenRevoke(revoked, revoked, settled) {
		return false
	}
	if p.h.stopped() {
		return false
	}
	g.havePending = false
	g.appMemberID, g.appGeneration, g.assigned = g.memberID, g.generation, true
	// ConsumerCoordinator.onJoinComplete: "Reschedule the auto commit
	// starting from now" (nextAutoCommitTimer.updateAndReset, before
	// onPartitionsAssigned; kafka-clients 4.1.1 to 4.4.0)
	p.lastAuto = p.now()
	p.revoke(revoked, event.ReasonCooperativeRevoke)
	fresh := len(p.owned) == 0
	if fresh && len(added) > 0 {
		// added is pending, sorted, which nobody changes: owned is never
		// changed in place either, only replaced (or appended to, which
		// copies a full list)
		p.owned = added[:len(added):len(added)]
	} else {
		p.owned = append(p.owned[:len(p.owned):len(p.owned)], added...) // a copy (member.owned): the sort below must not reorder a shared array
		if !partitionsSorted(p.owned) {
			SortPartitions(p.owned)
		}
	}
	p.syncOwned()
	if len(added) > 0 {
		names := p.ownedShort // added is the whole assignment, sorted as pending is
		if !fresh {
			names = p.t.shortNames(added)
		}
		p.event(event.Event{Type: event.EvAssigned, Generation: g.generation}.WithPartitions(names))
	}
	p.ownedGen = g.generation
	if len(revoked) > 0 && p.protocol == Cooperative {
		g.rejoinNeeded = true // KIP-429: rejoin at once so the partitions can move
	}
	p.touch()
	return true
}

// assignmentDiff returns what applyAssignment revokes (the owned partitions
// the assignment lacks, in owned's order) and adds (the assignment's
// partitions owned lacks, in the assignment's order: what owned still holds
// after the revocation is what it shares with the assignment). When nothing
// is owned (an eager member revoked everything before it joined), added is
// the assignment itself, not a copy: the caller only reads it.
func assignmentDiff(pending, owned []TopicPartition) (revoked, added []TopicPartition) {
	if len(owned) == 0 {
		return nil, pending
	}
	return reconcileDiff(pending, owned)
}

// revoke gives partitions up (onPartitionsRevoked, or onPartitionsLost).
func (p *member) revoke(tps []TopicPartition, why event.Reason) {
	if len(tps) == 0 {
		return
	}
	p.setActivity(event.ActivityRevoking, "")
	drop := make(map[TopicPartition]bool, len(tps))
	for _, tp := range tps {
		drop[tp] = true
		p.positions.del(p.t.index(tp))
		delete(p.lastProcessed, p.t.index(tp))
	}
	p.event(event.Event{Type: event.EvRevoked, Generation: p.group.generation, Reason: why}.WithPartitions(p.t.shortNames(tps)))
	var kept []TopicPartition // new: an owned emptied points into no plan
	for _, tp := range p.owned {
		if !drop[tp] {
			kept = append(kept, tp)
		}
	}
	p.owned = kept
	p.syncOwned()
	p.touch()
}

// revokeAll is revoke of everything the application owns, by its indices
// and short names.
func (p *member) revokeAll(why event.Reason) {
	if len(p.owned) == 0 {
		return
	}
	p.setActivity(event.ActivityRevoking, "")
	for _, i := range p.ownedIdx {
		p.positions.del(i)
		delete(p.lastProcessed, i)
	}
	p.event(event.Event{Type: event.EvRevoked, Generation: p.group.generation, Reason: why}.WithPartitions(p.ownedShort))
	p.owned = nil // not owned[:0:0], which would keep the plan's array alive
	p.syncOwned()
	p.touch()
}

// close is the application closing its producer (KafkaProducer.close()
// sends what it still holds and waits for the answers) and its consumer
// (KafkaConsumer.close(): auto-commit, revoke, LeaveGroup for dynamic
// members only: KIP-345 static members leave by session timeout).
func (p *member) close() {
	if !p.producer.flushed() {
		p.setPhase(PhaseFlush)
		p.flushThenClose = true // step() calls close again once flushed
		p.setActivity(event.ActivityProducing, "")
		return
	}
	if !p.mm.close() {
		return
	}
	p.end(LifecycleClosed)
	if p.restartOnClose {
		p.h.restart(p)
	}
}

// classicClose is the classic consumer's part of close(). It returns false
// when the rebalance listener failed (the world has stopped).
func (p *member) classicClose() bool {
	g := &p.group
	if g.assigned && g.state != ClassicUnjoined && p.cfg.commit != Transactional {
		var offs []broker.PartitionOffset
		if p.cfg.commit == AutoCommit && g.state == ClassicStable {
			offs = p.dirtyOffsets(p.owned)
		} else if g.state == ClassicStable {
			offs = p.closeOffsets() // WithCommitOnClose
		}
		if len(p.owned) > 0 && g.state == ClassicStable { // onLeavePrepare: onPartitionsRevoked (onPartitionsLost during a rebalance)
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
		p.revokeAll(event.ReasonClose)
	}
	if p.cfg.instanceID == "" && g.memberID != "" {
		p.request(&broker.LeaveGroupRequest{GroupID: GroupID,
			Members: []broker.MemberIdentity{{MemberID: g.memberID, Reason: "the consumer is being closed"}}}, g.generation)
	}
	return true
}
