package kgviz

import (
	"slices"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// poll is KafkaConsumer.poll(): the rebalance work (onJoinComplete,
// onJoinPrepare, JoinGroup), auto-commit, then OffsetFetch for partitions
// without a position, then one Fetch.
func (p *member) poll() {
	p.lastPoll = p.now()
	p.pollNetwork()
	if p.lifecycle == LifecycleClosing {
		p.close()
		return
	}
	settled := p.revokeSettled // the commit before a revocation was answered
	p.revokeSettled = false
	if !p.mm.poll(settled) {
		return
	}
	p.pollFetch()
}

// classicPoll is the classic consumer's rebalance part of poll()
// (onJoinComplete, onJoinPrepare, JoinGroup) and its auto-commit. It returns
// false when poll() cannot go on this step.
func (p *member) classicPoll(settled bool) bool {
	g := &p.group
	if g.hbFailed != "" {
		p.fail(kafka.Heartbeat, kafka.FENCED_INSTANCE_ID, g.hbFailed) // the heartbeat thread's fatal error
		return false
	}
	if g.havePending && !p.applyAssignment(settled) {
		return false
	}
	if p.cfg.commit == AutoCommit && g.assigned && g.state == ClassicStable && p.now()-p.lastAuto >= p.cfg.autoCommitInterval {
		p.lastAuto = p.now()
		if offs := p.dirtyOffsets(p.owned); len(offs) > 0 {
			p.commitRequest(offs) // commitAsync of what earlier polls returned
		}
	}
	if g.rejoinNeeded && (g.syncFailed || g.state != ClassicPreparingRebalance && g.state != ClassicCompletingRebalance) {
		if !p.onJoinPrepare(settled) {
			return false
		}
		p.sendJoin()
	}
	if g.state == ClassicPreparingRebalance || g.state == ClassicCompletingRebalance {
		if p.protocol == Eager || !g.assigned || len(p.owned) == 0 {
			p.setPhase(PhaseRebalance)
			if g.state == ClassicPreparingRebalance {
				p.setActivity(event.ActivityJoining, "")
			} else {
				p.setActivity(event.ActivitySyncing, "")
			}
			return false
		}
	}
	if !g.assigned {
		p.setPhase(PhaseRebalance)
		return false
	}
	return true
}

// onJoinPrepare is ConsumerCoordinator.onJoinPrepare before a JoinGroup:
// lost partitions are dropped, an eager member commits and revokes all it
// owns, a cooperative auto-committing one commits. It returns false while
// a commit is in flight or the world stopped (no JoinGroup yet).
func (p *member) onJoinPrepare(settled bool) bool {
	g := &p.group
	switch {
	case g.lost:
		g.lost = false
		if len(p.owned) > 0 {
			p.revokeAll(event.ReasonLost)
		}
		g.assigned = false
	case p.protocol == Eager && len(p.owned) > 0:
		// commit (auto-commit, or what a failed commit left), then revoke everything
		if p.commitThenRevoke(p.owned, p.owned, settled) || p.h.stopped() {
			return false
		}
		p.revokeAll(event.ReasonEagerRevoke)
	case p.protocol == Cooperative && p.cfg.commit == AutoCommit:
		if p.commitThenRevoke(p.owned, nil, settled) {
			return false
		}
	}
	return true
}

// pollFetch is the rest of poll(): a commit owed after
// RebalanceInProgressException, OffsetFetch for the partitions without a
// position, then one Fetch.
func (p *member) pollFetch() {
	g := &p.group
	retry := p.mm.stable() && (p.consumerProtocol() || !g.rejoinNeeded)
	if p.commitOwed && retry && (p.cfg.commit == CommitAfter || p.cfg.commit == CommitBefore) {
		// RebalanceInProgressException: "try completing the rebalance by
		// calling poll() and then retry the operation"; under the consumer
		// protocol, STALE_MEMBER_EPOCH: "The member must retry after
		// receiving its updated member epoch via the ConsumerGroupHeartbeat API".
		p.commitOwed = false
		if offs := p.dirtyOffsets(p.owned); len(offs) > 0 {
			p.setActivity(event.ActivityCommitting, "")
			if p.commitRequest(offs) {
				p.setPhase(PhaseRetryCommit)
				return
			}
		}
	}
	if missing := p.missingPositions(); missing != nil {
		req := &broker.OffsetFetchRequest{GroupID: GroupID, MemberEpoch: -1, Partitions: missing, RequireStable: true}
		p.mm.offsetFetch(req)
		p.request(req, g.generation)
		p.setPhase(PhaseOffsetFetch)
		p.setActivity(event.ActivityOffsetFetch, "")
		return
	}
	want, data := p.fetchWanted()
	if !data {
		if p.cfg.commit == CommitAfter && p.cfg.commitEvery > 1 && p.mm.stable() {
			// WithCommitEvery: the application commits what it has processed
			// once it has caught up (commitAsync)
			if offs := p.dirtyOffsets(p.owned); len(offs) > 0 {
				p.sinceCommit = 0
				p.commitRequest(offs)
			}
		}
		p.setPhase(PhasePoll)
		p.idleVer = p.ver
		p.setActivity(event.ActivityIdle, "")
		return
	}
	p.request(&broker.FetchRequest{IsolationLevel: p.cfg.isolation, MaxRecords: p.cfg.maxPollRecords, Start: p.rotation, Partitions: want}, 0)
	p.setPhase(PhaseFetch)
	p.setActivity(event.ActivityFetching, "")
}

// missingPositions returns the owned partitions without a position, in
// owned's order, for an OffsetFetch request, or nil when there are none.
// When none has a position (the common case: an eager member's new
// assignment), it is owned itself, capacity clipped so that nothing appends
// into it: owned is never changed in place, only replaced (applyAssignment,
// revoke, cgReconcile), so the request, which must never change once sent,
// may share its array.
func (p *member) missingPositions() []TopicPartition {
	n := 0 // partitions without a position
	for _, i := range p.ownedIdx {
		if !p.positions.has(i) {
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case len(p.owned):
		return p.owned[:n:n]
	}
	missing := make([]TopicPartition, 0, n)
	for k, i := range p.ownedIdx {
		if !p.positions.has(i) {
			missing = append(missing, p.owned[k])
		}
	}
	return missing
}

// fetchWanted returns what a Fetch asks for, every owned partition from its
// position, and whether any of them may have data (its end is unknown, or
// beyond the position). When none may, nothing is fetched and the list is
// not built (nil): input topics never grow, and a member that has read its
// partitions to their ends polls without a Fetch, rebalance after rebalance.
func (p *member) fetchWanted() (want []broker.FetchPartition, data bool) {
	for _, i := range p.ownedIdx {
		end, known := p.logEnd.get(i)
		if (!known || p.positions.at(i) < end) && p.fetchable(i) {
			data = true
			break
		}
	}
	if !data {
		return nil, false
	}
	want = make([]broker.FetchPartition, 0, len(p.owned))
	for k, tp := range p.owned {
		if p.fetchable(p.ownedIdx[k]) {
			want = append(want, broker.FetchPartition{Partition: tp, FetchOffset: p.positions.at(p.ownedIdx[k])})
		}
	}
	return want, true
}

func (p *member) onOffsetFetchResponse(m *broker.OffsetFetchResponse) {
	if p.phase != PhaseOffsetFetch {
		return
	}
	if m.ErrorCode == kafka.UNSTABLE_OFFSET_COMMIT {
		p.backoff(PhaseOffsetFetch) // a transactional offset is pending: ask again
		return
	}
	if m.ErrorCode != kafka.NONE {
		p.setPhase(PhasePoll)
		return
	}
	owned := p.markOwned()
	var reset []TopicPartition
	for _, po := range m.Offsets {
		i := p.t.index(po.Partition)
		if !owned.has(i, po.Partition) {
			continue
		}
		off := po.Offset
		if off < 0 {
			off = 0 // auto.offset.reset=earliest
			if p.cfg.listOffsets {
				reset = append(reset, po.Partition)
			}
		}
		p.committedPos.put(i, off) // nothing to commit until the position moves
		p.positions.put(i, off)
	}
	p.touch()
	if len(reset) > 0 {
		// WithListOffsets: the Java consumer resets a partition without a
		// committed offset with a ListOffsets to its leader and fetches it
		// only once the answer came (ClassicKafkaConsumer.updateFetchPositions:
		// SubscriptionState.resetInitializingPositions, then
		// OffsetFetcher.resetPositionsIfNeeded; AWAIT_RESET is not FETCHING).
		// The position is kgviz's already (earliest: 0), so Stable() does not
		// wait for it, as DescribeGroups does not.
		p.request(&broker.ListOffsetsRequest{Timestamp: broker.EarliestTimestamp, Partitions: reset}, 0)
		p.setPhase(PhaseListOffsets)
		p.setActivity(event.ActivityOffsetFetch, "")
		return
	}
	p.setPhase(PhasePoll)
	p.poll()
}

// onListOffsetsResponse (WithListOffsets) sets the positions the leader
// answered and goes on with poll(): the first Fetch.
func (p *member) onListOffsetsResponse(m *broker.ListOffsetsResponse) {
	if p.phase != PhaseListOffsets {
		return
	}
	owned := p.markOwned()
	for _, po := range m.Offsets {
		i := p.t.index(po.Partition)
		if po.Offset >= 0 && owned.has(i, po.Partition) && p.positions.has(i) && p.positions.at(i) == p.committedPos.at(i) {
			p.positions.put(i, po.Offset)
			p.committedPos.put(i, po.Offset)
		}
	}
	p.touch()
	p.setPhase(PhasePoll)
	p.poll()
}

func (p *member) onFetchResponse(m *broker.FetchResponse) {
	if p.phase != PhaseFetch {
		return
	}
	for _, hw := range m.HighWatermarks {
		p.logEnd.put(p.t.index(hw.Partition), hw.Offset)
	}
	p.rotation = m.Next
	owned := p.markOwned()
	p.batch = p.batch[:0]
	for _, r := range m.Records {
		i := p.t.index(r.Partition)
		if !owned.has(i, r.Partition) || p.positions.at(i) != r.Offset || !p.fetchable(i) {
			continue
		}
		p.batch = append(p.batch, r)
		p.positions.put(i, r.Offset+1)
		p.event(event.Event{Type: event.EvFetched, Partition: p.t.short(r.Partition), Offset: r.Offset, Record: r.Record, Generation: p.group.generation})
	}
	if len(p.batch) == 0 {
		p.setPhase(PhasePoll)
		return
	}
	p.lastPoll = p.now()
	p.idx, p.recordStarted = 0, false
	p.batchOffsets = p.dirtyOffsets(p.owned)
	switch p.cfg.commit {
	case CommitBefore:
		p.setActivity(event.ActivityCommitting, "")
		if !p.commitRequest(append([]broker.PartitionOffset(nil), p.batchOffsets...)) {
			p.finishBatch()
			return
		}
		p.setPhase(PhaseCommitBefore)
	default:
		if p.cfg.commit == Transactional {
			p.producer.beginTransaction()
		}
		p.setPhase(PhaseProcess)
		p.processStep()
	}
}

// partitionMarks is a set of input partitions, by index, cleared in O(1):
// a partition is in it when its stamp is the current one.
type partitionMarks struct {
	stamp []uint32
	cur   uint32
	p     *member // the process whose owned partitions are marked
}

// markOwned marks the process's owned partitions in the world's scratch set,
// which holds them until the next markOwned.
func (p *member) markOwned() *partitionMarks {
	m := &p.t.marks
	if len(m.stamp) < len(p.t.inputTPs) {
		m.stamp = make([]uint32, len(p.t.inputTPs))
	}
	m.cur++
	if m.cur == 0 { // wrapped: no stale stamp may match
		clear(m.stamp)
		m.cur = 1
	}
	m.p = p
	for _, i := range p.ownedIdx {
		if i >= 0 {
			m.stamp[i] = m.cur
		}
	}
	return m
}

// has says whether the process owns tp, whose input partition index is i.
func (m *partitionMarks) has(i int32, tp TopicPartition) bool {
	if i < 0 { // not an input partition
		return slices.Contains(m.p.owned, tp)
	}
	return m.stamp[i] == m.cur
}

// offsetTable is an offset per input partition index (World.index), as a
// map[int32]int would keep it, index -1 (any partition that is not an input
// partition) included: in pages of offsetPageSize partitions, each
// allocated at its first put. A process reads a few partitions of many, and
// a group's assignors give it neighbouring ones (a range of a topic), so it
// touches a few pages however many partitions the world has: cheaper to
// allocate than a slice of all of them, and faster than a map.
type offsetTable struct {
	n     int           // the input partitions
	pages []*offsetPage // by index / offsetPageSize, allocated at the first put
	// index -1
	other      int
	otherKnown bool
}

// offsetPageBits: a page holds 1<<offsetPageBits partitions' offsets.
const (
	offsetPageBits = 6
	offsetPageSize = 1 << offsetPageBits
)

// offsetPage is offsetPageSize partitions' offsets; off[k] is 0 unless
// known's bit k says it holds an offset.
type offsetPage struct {
	off   [offsetPageSize]int
	known uint64
}

func newOffsetTable(n int) offsetTable { return offsetTable{n: n} }

// get returns the offset of partition i, and whether there is one (0 if not).
func (t *offsetTable) get(i int32) (int, bool) {
	if i < 0 {
		return t.other, t.otherKnown
	}
	pg := i >> offsetPageBits
	if int(pg) >= len(t.pages) || t.pages[pg] == nil {
		return 0, false
	}
	page, k := t.pages[pg], i&(offsetPageSize-1)
	return page.off[k], page.known&(1<<k) != 0
}

// at returns the offset of partition i, 0 if there is none (a map's m[i]).
func (t *offsetTable) at(i int32) int {
	off, _ := t.get(i)
	return off
}

// has says whether partition i has an offset.
func (t *offsetTable) has(i int32) bool {
	_, ok := t.get(i)
	return ok
}

// put sets the offset of partition i.
func (t *offsetTable) put(i int32, off int) {
	if i < 0 {
		t.other, t.otherKnown = off, true
		return
	}
	if t.pages == nil {
		t.pages = make([]*offsetPage, (t.n+offsetPageSize-1)/offsetPageSize)
	}
	page := t.pages[i>>offsetPageBits]
	if page == nil {
		page = new(offsetPage)
		t.pages[i>>offsetPageBits] = page
	}
	k := i & (offsetPageSize - 1)
	page.off[k] = off
	page.known |= 1 << k
}

// del forgets the offset of partition i (a map's delete).
func (t *offsetTable) del(i int32) {
	if i < 0 {
		t.other, t.otherKnown = 0, false
		return
	}
	if pg := i >> offsetPageBits; int(pg) < len(t.pages) && t.pages[pg] != nil {
		k := i & (offsetPageSize - 1)
		t.pages[pg].off[k] = 0
		t.pages[pg].known &^= 1 << k
	}
}

// reset forgets every offset (a map's clear).
func (t *offsetTable) reset() {
	clear(t.pages)
	t.other, t.otherKnown = 0, false
}
