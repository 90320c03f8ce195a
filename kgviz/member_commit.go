package kgviz

import (
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// dirtyOffsets lists positions not yet committed, for the given partitions.
func (p *member) dirtyOffsets(tps []TopicPartition) []broker.PartitionOffset {
	var out []broker.PartitionOffset
	var idx []int32 // tps's indices, when tps is owned
	if len(tps) > 0 && len(tps) == len(p.owned) && &tps[0] == &p.owned[0] {
		idx = p.ownedIdx
	}
	for k, tp := range tps {
		var i int32
		if idx != nil {
			i = idx[k]
		} else {
			i = p.t.index(tp)
		}
		pos, ok := p.positions.get(i)
		if !ok {
			continue
		}
		if c, ok := p.committedPos.get(i); ok && c == pos {
			continue
		}
		out = append(out, broker.PartitionOffset{Partition: tp, Offset: pos})
	}
	return out
}

// commitRequest is commitSync's sendOffsetCommitRequest (ConsumerCoordinator):
// the consumer commits with the generation it holds only while it is STABLE
// (generationIfStable). While it rejoins (PREPARING_REBALANCE,
// COMPLETING_REBALANCE) the commit fails in the client with
// RebalanceInProgressException; once its generation was reset (a poll-timeout
// LeaveGroup, a heartbeat answered UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION)
// it fails with CommitFailedException. Neither sends a request: the wire shows
// nothing, the application sees the exception. Either way the call polls the
// consumer's network once (ConsumerNetworkClient.poll(future, timer)), which
// handles a JoinGroup answer that waited for it. It returns false when the
// commit failed without a request.
func (p *member) commitRequest(offsets []broker.PartitionOffset) bool { return p.mm.commit(offsets) }

// cgCommitRequest is commitRequest under the consumer group protocol: the
// commit carries the member id and the member epoch the consumer holds, -1
// while it is not in the group (CommitRequestManager); the broker's fence
// decides (KIP-848).
func (p *member) cgCommitRequest(offsets []broker.PartitionOffset) bool {
	req := &broker.OffsetCommitRequest{GroupID: GroupID, GroupInstanceID: p.cfg.instanceID, Offsets: offsets,
		MemberID: p.group.memberID, GenerationID: p.cg.commitEpoch}
	p.request(req, req.GenerationID)
	return true
}

// classicCommitRequest is commitRequest under the classic protocol.
func (p *member) classicCommitRequest(offsets []broker.PartitionOffset) bool {
	g := &p.group
	defer p.pollNetwork()
	switch g.state {
	case ClassicStable:
		req := &broker.OffsetCommitRequest{GroupID: GroupID, GroupInstanceID: p.cfg.instanceID, Offsets: offsets,
			MemberID: g.memberID, GenerationID: g.generation}
		p.commitSent = sentCommit{generation: g.generation, memberID: g.memberID}
		p.request(req, req.GenerationID)
		return true
	case ClassicPreparingRebalance, ClassicCompletingRebalance:
		p.event(event.Event{Type: event.EvCommitFailed, Generation: g.appGeneration, API: kafka.OffsetCommit, Exception: event.RebalanceInProgressException})
		p.commitOwed = true
	default:
		p.event(event.Event{Type: event.EvCommitFailed, Generation: g.appGeneration, API: kafka.OffsetCommit, Exception: event.CommitFailedException})
	}
	return false
}

// sentCommit is the generation an OffsetCommit was sent with
// (OffsetCommitResponseHandler's sentGeneration).
type sentCommit struct {
	generation int
	memberID   string
}

// commitThenRevoke commits what is owed before the revoked partitions go
// (owed: the partitions whose consumed positions are committed; revoked:
// what the listener is told, nil when nothing is revoked): auto-commit's
// positions (ConsumerCoordinator.onJoinPrepare, or the consumer protocol's
// maybeAutoCommitSyncBeforeRebalance), positions a failed commit left
// behind, and, when revoking, what the application's rebalance listener asks
// for (onPartitionsRevoked). poll() runs again when the commit is answered
// (settled: it was, so nothing is committed again). It returns false when
// there is nothing to commit, or when the listener failed (the world has
// stopped).
func (p *member) commitThenRevoke(owed, revoked []TopicPartition, settled bool) bool {
	if p.cfg.commit == Transactional || settled {
		return false
	}
	if !p.mm.joined() {
		return false
	}
	var offs []broker.PartitionOffset
	if p.cfg.commit == AutoCommit || p.commitOwed || p.cfg.commitEvery <= 1 {
		offs = p.dirtyOffsets(owed)
	}
	if len(revoked) > 0 {
		mine, ok := p.listenerOffsets(revoked)
		if !ok {
			return false
		}
		offs = mergeOffsets(offs, mine)
	}
	if len(offs) == 0 {
		return false
	}
	p.setActivity(event.ActivityCommitting, "")
	if !p.commitRequest(offs) {
		return false
	}
	p.setPhase(PhaseRevokeCommit)
	return true
}

func (p *member) onOffsetCommitResponse(m *broker.OffsetCommitResponse) {
	if m.ErrorCode == kafka.NONE {
		for _, po := range m.Offsets {
			p.committedPos.put(p.t.index(po.Partition), po.Offset)
		}
	}
	switch p.phase {
	case PhaseCommitBefore:
		if m.ErrorCode != kafka.NONE {
			p.commitFailed(m.ErrorCode)
			p.finishBatch()
			return
		}
		p.setPhase(PhaseProcess)
		p.processStep()
	case PhaseCommitAfter:
		if m.ErrorCode != kafka.NONE {
			p.commitFailed(m.ErrorCode)
		}
		p.finishBatch()
	case PhaseRetryCommit:
		if m.ErrorCode != kafka.NONE {
			p.commitFailed(m.ErrorCode)
		}
		p.setPhase(PhasePoll)
		p.poll()
	case PhaseRevokeCommit:
		if m.ErrorCode != kafka.NONE {
			p.commitFailed(m.ErrorCode)
		}
		// the offsets this commit owed are settled either way, so the
		// revocation goes on (and does not commit them again)
		for _, po := range m.Offsets {
			p.committedPos.put(p.t.index(po.Partition), po.Offset)
		}
		p.revokeSettled = true
		p.setPhase(PhasePoll)
		p.poll()
	default:
		if m.ErrorCode != kafka.NONE && p.cfg.commit == AutoCommit {
			p.commitFailed(m.ErrorCode)
		}
	}
}

// commitFailed is the exception commitSync throws after the broker refused a
// commit (OffsetCommitResponseHandler): REBALANCE_IN_PROGRESS is
// RebalanceInProgressException; FENCED_INSTANCE_ID is FencedInstanceIdException
// while the generation is the one sent; UNKNOWN_MEMBER_ID and
// ILLEGAL_GENERATION are RebalanceInProgressException when the member has
// rejoined since it sent the commit, else CommitFailedException.
func (p *member) commitFailed(code ErrorCode) { p.mm.commitFailed(code) }

// cgCommitFailed is commitFailed under the consumer group protocol.
func (p *member) cgCommitFailed(code ErrorCode) {
	ex := event.CommitFailedException
	if code == kafka.REBALANCE_IN_PROGRESS {
		ex = event.RebalanceInProgressException
	}
	p.event(event.Event{Type: event.EvCommitFailed, Generation: p.group.generation, API: kafka.OffsetCommit, Error: code, Exception: ex})
	p.afterCommitError(code, false)
}

// classicCommitFailed is commitFailed under the classic protocol.
func (p *member) classicCommitFailed(code ErrorCode) {
	g := &p.group
	changed := p.commitSent.generation != g.generation || p.commitSent.memberID != g.memberID
	ex := event.CommitFailedException
	switch code {
	case kafka.REBALANCE_IN_PROGRESS:
		ex = event.RebalanceInProgressException
	case kafka.FENCED_INSTANCE_ID:
		if !changed {
			ex = event.FencedInstanceIDException
		} else if g.state == ClassicPreparingRebalance {
			ex = event.RebalanceInProgressException
		}
	case kafka.UNKNOWN_MEMBER_ID, kafka.ILLEGAL_GENERATION:
		if changed && g.state == ClassicPreparingRebalance {
			ex = event.RebalanceInProgressException
		}
	}
	p.event(event.Event{Type: event.EvCommitFailed, Generation: p.commitSent.generation, API: kafka.OffsetCommit, Error: code, Exception: ex})
	p.afterCommitError(code, changed)
}

// afterCommitError reacts to a refused commit as ConsumerCoordinator does:
// UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION reset the generation (the member
// rejoins; ILLEGAL_GENERATION keeps the member id) unless the member rejoined
// since, REBALANCE_IN_PROGRESS asks for a rejoin, FENCED_INSTANCE_ID for the
// generation sent is fatal.
func (p *member) afterCommitError(code ErrorCode, changed bool) { p.mm.afterCommitError(code, changed) }

// cgAfterCommitError: the consumer group protocol's commit errors
// (STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID) raise CommitFailedException and
// leave the membership to the heartbeats. The application commits again
// after a stale epoch, as the exception's message tells it to.
func (p *member) cgAfterCommitError(code ErrorCode) {
	if code == kafka.STALE_MEMBER_EPOCH {
		p.commitOwed = true
	}
}

// classicAfterCommitError is afterCommitError under the classic protocol.
func (p *member) classicAfterCommitError(code ErrorCode, changed bool) {
	g := &p.group
	switch code {
	case kafka.UNKNOWN_MEMBER_ID, kafka.ILLEGAL_GENERATION:
		if changed && g.state == ClassicPreparingRebalance {
			p.commitOwed = true
			return
		}
		p.resetGeneration(code == kafka.UNKNOWN_MEMBER_ID)
	case kafka.FENCED_INSTANCE_ID:
		if !changed && p.lifecycle != LifecycleReplaced {
			g.hbFailed = event.FencedInstanceIDException
		}
	case kafka.REBALANCE_IN_PROGRESS:
		p.commitOwed = true
		if g.state == ClassicStable && !g.havePending {
			g.rejoinNeeded = true
		}
	}
}
