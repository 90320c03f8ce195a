package kgviz

import (
	"strconv"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// shareMembership is a share consumer's membership manager and its poll
// loop (KIP-932; Kafka's ShareMembershipManager, ShareHeartbeatRequestManager
// and ShareConsumeRequestManager behind KafkaShareConsumer): it joins its
// share group with ShareGroupHeartbeat, takes the partitions the broker
// assigns it at once (there is nothing to revoke first), and polls with
// ShareFetch, which acquires records for it and carries the
// acknowledgements of the records it processed since the last poll. It
// commits no offsets.
type shareMembership struct {
	p *member
	s *shareClient
}

// shareState is the share consumer's membership state (ShareMembershipManager's MemberState).
type shareState uint8

const (
	shareUnsubscribed shareState = iota
	shareJoining                 // the next heartbeat joins with epoch 0
	shareStable                  // in the group
	shareStale                   // left after max.poll.interval.ms; the next poll rejoins
	shareLeft                    // closed
)

// shareClient is the share consumer's state.
type shareClient struct {
	state    shareState
	epoch    int // the member epoch
	inFlight int // the heartbeat waiting for its answer (message id), 0: none
	nextAt   int // when the heartbeat interval expires
	interval int // group.share.heartbeat.interval.ms
	assigned []TopicPartition
	rotation int // where the next ShareFetch starts
	session  int // the share session epoch of the next ShareFetch
	// acks are the acknowledgements the next ShareFetch (or close) sends.
	acks  []broker.ShareFetchPartition
	batch []shareDelivery
}

// shareDelivery is a record a ShareFetch acquired for the member.
type shareDelivery struct {
	tp       TopicPartition
	offset   int
	record   string
	delivery int
}

func newShareMembership(p *member) *shareMembership {
	p.group.memberID = p.name + "-" + strconv.Itoa(p.incarnation)
	return &shareMembership{p: p, s: &shareClient{interval: 1}}
}

// groupID is the group the member's FindCoordinator looks for: its share
// group, or the world's consumer group.
func (p *member) groupID() string {
	if g := p.cfg.share.group; g != "" {
		return g
	}
	return GroupID
}

// topics is the share consumer's subscription.
func (m *shareMembership) topics() []string {
	if t := m.p.cfg.share.topics; len(t) > 0 {
		return kafka.JavaHashMapOrder(t)
	}
	return kafka.JavaHashMapOrder(m.p.t.topicNames())
}

func (m *shareMembership) subscribe() { m.s.state = shareJoining }

// heartbeat is the heartbeat request manager's send, once a tick.
func (m *shareMembership) heartbeat() {
	s, p := m.s, m.p
	switch s.state {
	case shareJoining:
		if s.inFlight == 0 {
			m.send(&broker.ShareGroupHeartbeatRequest{GroupID: p.groupID(), MemberID: p.group.memberID, MemberEpoch: 0,
				SubscribedTopicNames: m.topics()}, true)
		}
	case shareStable:
		if s.inFlight == 0 && p.now() >= s.nextAt {
			m.send(&broker.ShareGroupHeartbeatRequest{GroupID: p.groupID(), MemberID: p.group.memberID, MemberEpoch: s.epoch}, false)
		}
	}
}

func (m *shareMembership) send(req *broker.ShareGroupHeartbeatRequest, record bool) {
	p := m.p
	id := p.h.sendConsumerHeartbeat(p.envelope(req.MemberEpoch, req), p, record)
	if req.MemberEpoch >= 0 {
		m.s.inFlight = id
	}
	m.s.nextAt = p.now() + m.s.interval
}

// checkPollTimeout: a share consumer that did not poll within
// max.poll.interval.ms leaves its group (AbstractHeartbeatRequestManager's
// poll timer) and rejoins at its next poll.
func (m *shareMembership) checkPollTimeout() {
	s, p := m.s, m.p
	if s.state != shareStable || p.phase.inPoll() || p.now()-p.lastPoll <= p.cfg.maxPollInterval {
		return
	}
	p.event(event.Event{Type: event.EvPollTimeout, Generation: s.epoch, Ticks: p.now() - p.lastPoll, Count: p.cfg.maxPollInterval})
	m.send(&broker.ShareGroupHeartbeatRequest{GroupID: p.groupID(), MemberID: p.group.memberID, MemberEpoch: broker.LeaveGroupMemberEpoch}, true)
	m.setAssigned(nil, event.ReasonPollTimeout)
	s.state, s.epoch, s.inFlight = shareStale, 0, 0
}

// poll is KafkaShareConsumer.poll(): one ShareFetch carrying the
// acknowledgements owed, once the member has partitions.
func (m *shareMembership) poll(bool) bool {
	s, p := m.s, m.p
	if s.state == shareStale {
		s.state = shareJoining // the stale member rejoins
	}
	if s.state != shareStable || len(s.assigned) == 0 {
		m.sendAcknowledge(false)
		p.setPhase(PhaseRebalance)
		p.setActivity(event.ActivityJoining, "")
		return false
	}
	assigned := map[TopicPartition]int{}
	topics := make([]broker.ShareFetchPartition, len(s.assigned))
	for i, tp := range s.assigned {
		topics[i].Partition = tp
		assigned[tp] = i
	}
	var elsewhere []broker.ShareFetchPartition
	for _, a := range s.acks {
		if i, ok := assigned[a.Partition]; ok {
			topics[i].AcknowledgementBatches = a.AcknowledgementBatches
		} else {
			elsewhere = append(elsewhere, a)
		}
	}
	s.acks = elsewhere
	m.sendAcknowledge(false) // the acknowledgements of partitions it no longer has
	p.request(&broker.ShareFetchRequest{GroupID: p.groupID(), MemberID: p.group.memberID, ShareSessionEpoch: s.session,
		MaxRecords: p.cfg.maxPollRecords, Start: s.rotation % len(topics), Topics: topics}, s.epoch)
	s.session++
	p.setPhase(PhaseFetch)
	if p.activity != event.ActivityIdle { // an idle member's fetches go on while it stays idle
		p.setActivity(event.ActivityFetching, "")
	}
	return false
}

// sendAcknowledge sends the acknowledgements owed in a ShareAcknowledge
// (final: closing the share session, which releases what the member still holds).
func (m *shareMembership) sendAcknowledge(final bool) {
	s, p := m.s, m.p
	if len(s.acks) == 0 && !final {
		return
	}
	epoch := s.session
	if final {
		epoch = broker.FinalShareSessionEpoch
	}
	p.request(&broker.ShareAcknowledgeRequest{GroupID: p.groupID(), MemberID: p.group.memberID, ShareSessionEpoch: epoch, Topics: s.acks}, s.epoch)
	s.acks = nil
	s.session++
}

// acknowledge notes an acknowledgement for the next request.
func (m *shareMembership) acknowledge(r shareDelivery, t AcknowledgeType) {
	s := m.s
	b := broker.AcknowledgementBatch{FirstOffset: r.offset, LastOffset: r.offset, AcknowledgeTypes: []kafka.AcknowledgeType{t}}
	for i := range s.acks {
		if s.acks[i].Partition == r.tp {
			s.acks[i].AcknowledgementBatches = append(s.acks[i].AcknowledgementBatches, b)
			return
		}
	}
	s.acks = append(s.acks, broker.ShareFetchPartition{Partition: r.tp, AcknowledgementBatches: []broker.AcknowledgementBatch{b}})
}

// receive handles the share group protocol's answers.
func (m *shareMembership) receive(env *broker.Envelope) {
	switch r := env.Msg.(type) {
	case *broker.ShareGroupHeartbeatResponse:
		m.onHeartbeat(env, r)
	case *broker.ShareFetchResponse:
		m.onShareFetch(r)
	case *broker.ShareAcknowledgeResponse:
		for _, d := range r.Responses {
			m.ackFailed(kafka.ShareAcknowledge, d.ErrorCode)
		}
	}
}

func (m *shareMembership) onHeartbeat(env *broker.Envelope, r *broker.ShareGroupHeartbeatResponse) {
	s, p := m.s, m.p
	if env.ReplyTo != s.inFlight || s.state == shareLeft || s.state == shareStale {
		return
	}
	s.inFlight = 0
	switch r.ErrorCode {
	case kafka.NONE:
	case kafka.UNKNOWN_MEMBER_ID, kafka.FENCED_MEMBER_EPOCH:
		// transitionToFenced: give the partitions up and rejoin with epoch 0
		p.event(event.Event{Type: event.EvError, API: kafka.ShareGroupHeartbeat, Error: r.ErrorCode, Generation: s.epoch})
		m.setAssigned(nil, event.ReasonLost)
		s.state, s.epoch = shareJoining, 0
		return
	default:
		p.fail(kafka.ShareGroupHeartbeat, r.ErrorCode, event.GroupIDNotFoundException)
		return
	}
	if r.HeartbeatIntervalMs > 0 {
		s.interval = r.HeartbeatIntervalMs
		s.nextAt = p.now() + s.interval
	}
	s.epoch, s.state = r.MemberEpoch, shareStable
	if r.Assignment != nil {
		m.setAssigned(r.Assignment.TopicPartitions, event.ReasonShareAssignment)
	}
	if p.phase == PhaseRebalance {
		p.setPhase(PhasePoll)
	}
}

// setAssigned takes a new assignment, recording what was added and removed.
func (m *shareMembership) setAssigned(tps []TopicPartition, why event.Reason) {
	s, p := m.s, m.p
	in := func(list []TopicPartition, tp TopicPartition) bool {
		for _, x := range list {
			if x == tp {
				return true
			}
		}
		return false
	}
	var added, removed []TopicPartition
	for _, tp := range tps {
		if !in(s.assigned, tp) {
			added = append(added, tp)
		}
	}
	for _, tp := range s.assigned {
		if !in(tps, tp) {
			removed = append(removed, tp)
		}
	}
	if len(removed) > 0 {
		p.event(event.Event{Type: event.EvRevoked, Generation: s.epoch, Reason: why}.WithPartitions(p.t.shortNames(removed)))
	}
	s.assigned = append([]TopicPartition(nil), tps...)
	if len(added) > 0 {
		p.event(event.Event{Type: event.EvAssigned, Generation: s.epoch}.WithPartitions(p.t.shortNames(added)))
	}
}

func (m *shareMembership) ackFailed(api APIKey, code ErrorCode) {
	if code == kafka.NONE {
		return
	}
	m.p.event(event.Event{Type: event.EvCommitFailed, API: api, Error: code, Generation: m.s.epoch, Exception: event.InvalidRecordStateException})
}

func (m *shareMembership) onShareFetch(r *broker.ShareFetchResponse) {
	s, p := m.s, m.p
	if p.phase != PhaseFetch {
		return
	}
	s.rotation = r.Next
	s.batch = s.batch[:0]
	for _, d := range r.Responses {
		m.ackFailed(kafka.ShareFetch, d.AcknowledgeErrorCode)
		for _, a := range d.AcquiredRecords {
			rec := shareDelivery{tp: d.Partition, offset: a.FirstOffset, record: a.Record, delivery: a.DeliveryCount}
			s.batch = append(s.batch, rec)
			p.event(event.Event{Type: event.EvFetched, Partition: p.t.short(d.Partition), Offset: a.FirstOffset, Record: a.Record,
				Generation: s.epoch, Count: a.DeliveryCount})
		}
	}
	if len(s.batch) == 0 {
		p.setPhase(PhasePoll)
		p.setActivity(event.ActivityIdle, "")
		return
	}
	p.lastPoll = p.now()
	p.idx, p.recordStarted = 0, false
	p.setPhase(PhaseProcess)
	m.process()
}

// poisoned says whether the member's processing fails on the record.
func (m *shareMembership) poisoned(r shareDelivery) bool {
	for _, ps := range m.p.cfg.share.poison {
		tp, ok := m.p.t.parsePartition(ps.partition)
		if !ok || tp != r.tp {
			continue
		}
		for _, o := range ps.offsets {
			if o == r.offset {
				return true
			}
		}
	}
	return false
}

// process processes the acquired records, 1 tick each (a slow one
// WithSlowRecordTicks), and acknowledges each: ACCEPT once processed; a
// poison record in explicit mode with the poison acknowledge type, in
// implicit mode the application fails and the process dies.
func (m *shareMembership) process() bool {
	s, p := m.s, m.p
	for p.phase == PhaseProcess {
		if !p.recordStarted {
			if p.crashDue(p.idx) {
				return true
			}
			r := s.batch[p.idx]
			d := p.cfg.recordTicks
			p.slowRecord = false
			if p.slowNext {
				p.slowNext, p.slowRecord = false, true
				d = p.cfg.slowTicks
				p.event(event.Event{Type: event.EvSlowStart, Record: r.record, Generation: s.epoch, Ticks: d})
			}
			p.recordStarted = true
			p.recordEnd = p.now() + d
			p.setActivity(event.ActivityProcessing, r.record)
			return true
		}
		if p.now() < p.recordEnd {
			return true
		}
		r := s.batch[p.idx]
		if m.poisoned(r) {
			if p.cfg.share.ackMode == Implicit {
				p.event(event.Event{Type: event.EvCrash, Generation: s.epoch, Reason: event.ReasonPoisonRecord, Record: r.record,
					Partition: p.t.short(r.tp), Offset: r.offset, Count: r.offset})
				p.end(LifecycleCrashed)
				return true
			}
			m.acknowledge(r, p.cfg.share.poisonAck)
		} else {
			p.event(event.Event{Type: event.EvProcessed, Partition: p.t.short(r.tp), Offset: r.offset, Record: r.record, Generation: s.epoch,
				Count: r.delivery})
			m.acknowledge(r, Accept)
		}
		p.idx++
		p.recordStarted, p.slowRecord = false, false
		if p.idx >= len(s.batch) {
			if p.crashDue(p.idx) {
				return true
			}
			if p.lifecycle == LifecycleReplaced {
				p.event(event.Event{Type: event.EvExit, Reason: event.ReasonZombieDone})
				p.end(LifecycleStopped)
				return true
			}
			p.setPhase(PhasePoll)
			p.poll()
			return true
		}
	}
	return true
}

// close is KafkaShareConsumer.close(): the acknowledgements owed go out in
// a ShareAcknowledge that closes the share session (what the member still
// holds is released), and the member leaves its group.
func (m *shareMembership) close() bool {
	s, p := m.s, m.p
	if s.state == shareStable || s.state == shareJoining {
		m.sendAcknowledge(true)
		m.send(&broker.ShareGroupHeartbeatRequest{GroupID: p.groupID(), MemberID: p.group.memberID, MemberEpoch: broker.LeaveGroupMemberEpoch}, true)
		m.setAssigned(nil, event.ReasonClose)
	}
	s.state = shareLeft
	return true
}

func (m *shareMembership) joined() bool                           { return m.s.state == shareStable }
func (m *shareMembership) consuming() bool                        { return m.joined() }
func (m *shareMembership) stable() bool                           { return m.joined() }
func (m *shareMembership) commit([]broker.PartitionOffset) bool   { return false }
func (m *shareMembership) commitFailed(ErrorCode)                 {}
func (m *shareMembership) afterCommitError(ErrorCode, bool)       {}
func (m *shareMembership) offsetFetch(*broker.OffsetFetchRequest) {}
func (m *shareMembership) info(info *MemberInfo) {
	info.Generation, info.ShareGroup, info.AcknowledgementMode = m.s.epoch, m.p.cfg.share.group, m.p.cfg.share.ackMode
	info.Owned = m.p.t.shortNames(m.s.assigned)
	info.Assignors = nil
}
