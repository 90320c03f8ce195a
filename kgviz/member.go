package kgviz

import (
	"fmt"
	"strconv"
)

// phase is where a member's application thread is.
type phase int

const (
	phInitPID         phase = iota // waiting for InitProducerId
	phFindCoord                    // waiting for FindCoordinator
	phPoll                         // calls poll() at its next step
	phJoinWait                     // blocked in poll() during a rebalance
	phOffsetFetch                  // waiting for OffsetFetch
	phFetch                        // waiting for Fetch
	phCommitBefore                 // waiting for the commit that precedes processing
	phProcess                      // processing the batch
	phFlush                        // waiting for produce acknowledgements
	phCommitAfter                  // waiting for commitSync after processing
	phRevokeCommit                 // waiting for the commit in onPartitionsRevoked
	phTxnAddOffsets                // waiting for AddOffsetsToTxn
	phTxnOffsetCommit              // waiting for TxnOffsetCommit
	phTxnEnd                       // waiting for EndTxn
	phRetry                        // resend a request at retryAt
	phDead
)

// inPoll says whether the application is inside poll() in this phase (which
// keeps max.poll.interval.ms from expiring).
func (ph phase) inPoll() bool {
	switch ph {
	case phInitPID, phFindCoord, phPoll, phJoinWait, phOffsetFetch, phFetch, phRevokeCommit, phRetry:
		return true
	}
	return false
}

type fetched struct {
	tp     TopicPartition
	offset int
	name   string
}

// process is one running instance of a member: a consumer in the group plus
// a producer to invoices. A restarted member gets a new process; the old one
// may keep running as a zombie.
type process struct {
	w           *World
	name        string
	incarnation int
	cfg         config

	alive, zombie, closing, closed, restartAfterClose bool

	// the group, as the client sees it
	memberID      string
	generation    int
	joined        bool // has an assignment from some generation
	kicked        bool // left the group without knowing it yet (poll timeout)
	hbStopped     bool
	rejoin        bool
	joinInFlight  bool
	syncInFlight  bool
	havePending   bool
	pending       []TopicPartition
	pendingGen    int
	owned         []TopicPartition
	ownedGen      int
	positions     map[TopicPartition]int
	committedPos  map[TopicPartition]int
	logEnd        map[TopicPartition]int
	rotation      int
	lastPoll      int
	lastAuto      int
	activity      string
	activityRec   string
	retryAt       int
	retry         func()
	afterRevoke   func()
	fetchInFlight bool
	ver           int // bumped whenever owned partitions or positions change
	seq           int // start order in the world
	changed       bool
	readyVer      int
	readyVal      bool
	idleVer       int // ver when poll() last found nothing to fetch (-1: not idle)

	// the application thread
	phase           phase
	batch           []fetched
	idx             int
	recordEnd       int
	recordStarted   bool
	batchGen        int
	batchMember     string
	batchOffsets    []partOffset
	crashPlan       *CrashPoint
	slowNext        bool
	slowRecord      bool
	producer        producer
	loseNextProduce bool
}

func (w *World) startProcess(name string, cfg config) *process {
	inc := 1
	if old, ok := w.current[name]; ok {
		inc = old.incarnation + 1
	}
	p := &process{w: w, name: name, incarnation: inc, cfg: cfg, alive: true,
		positions: map[TopicPartition]int{}, committedPos: map[TopicPartition]int{}, logEnd: map[TopicPartition]int{},
		lastPoll: w.now, lastAuto: w.now, idleVer: -1, readyVer: -1, seq: len(w.procs)}
	p.producer.init(p)
	w.procs = append(w.procs, p)
	w.current[name] = p
	if inc > 1 {
		w.record(Event{Type: EvRestart, Member: name, PID: -1, Detail: "incarnation " + strconv.Itoa(inc) + staticSuffix(cfg.instanceID)})
	}
	p.setActivity(ActivityStarting, "")
	if p.producer.mode == TransactionalProducer {
		p.producer.initProducerID() // initTransactions()
		p.phase = phInitPID
	} else {
		p.findCoordinator()
	}
	return p
}

func staticSuffix(instanceID string) string {
	if instanceID == "" {
		return ""
	}
	return ", group.instance.id=" + instanceID
}

func (p *process) findCoordinator() {
	p.w.request(p, "FindCoordinator", 0, nil)
	p.phase = phFindCoord
}

func (p *process) protocol() RebalanceProtocol { return p.w.assignor.Protocol() }

func (p *process) setActivity(state, rec string) {
	if p.activity == state && p.activityRec == rec {
		return
	}
	p.activity, p.activityRec = state, rec
	p.w.record(Event{Type: EvActivity, Member: p.name, MemberID: p.memberID, State: state, Record: rec, Generation: p.generation, PID: -1})
}

// heartbeating says whether the background heartbeat thread is alive.
func (p *process) heartbeating() bool { return p.alive && !p.hbStopped }

// consumes says whether this process is consuming tp for the group right now.
func (p *process) consumes(tp TopicPartition) bool {
	if !p.alive || p.kicked || p.zombie || !p.joined {
		return false
	}
	if _, ok := p.positions[tp]; !ok {
		return false
	}
	for _, o := range p.owned {
		if o == tp {
			return true
		}
	}
	return false
}

func (p *process) closedGracefully() bool { return p.closed }

// touch records that the process's partitions, positions or state changed.
func (p *process) touch() {
	p.ver++
	p.w.dirty = true
	if !p.changed {
		p.changed = true
		p.w.changedProcs = append(p.w.changedProcs, p)
	}
}

// ready says whether the process knows where to read every partition it owns.
func (p *process) ready() bool {
	if p.readyVer != p.ver {
		p.readyVer, p.readyVal = p.ver, true
		for _, tp := range p.owned {
			if _, ok := p.positions[tp]; !ok {
				p.readyVal = false
				break
			}
		}
	}
	return p.readyVal
}

// idleFast is poll() for a member that found nothing to read last time and
// whose partitions and positions have not changed since: input topics never
// grow, so it would find nothing again.
func (p *process) idleFast() bool {
	if p.idleVer != p.ver || p.rejoin || p.havePending || p.kicked || p.closing || p.joinInFlight || p.syncInFlight {
		return false
	}
	if p.cfg.commit == AutoCommit && p.w.now-p.lastAuto >= p.cfg.autoCommitInterval {
		return false
	}
	p.lastPoll = p.w.now
	return true
}

func (p *process) inSlowRecord() bool {
	return p.alive && p.phase == phProcess && p.recordStarted && p.slowRecord
}

// crash stops the process at once: no commit, no LeaveGroup.
func (p *process) crash(why string) {
	if !p.alive {
		return
	}
	p.alive = false
	p.phase = phDead
	p.w.record(Event{Type: EvCrash, Member: p.name, MemberID: p.memberID, Generation: p.generation, PID: -1, Detail: why})
	p.setActivity(ActivityDead, "")
	p.touch()
}

// exit ends the process after a fatal error or, for a zombie, after its batch.
func (p *process) exit(why string) {
	if !p.alive {
		return
	}
	p.alive = false
	p.phase = phDead
	p.w.record(Event{Type: EvError, Member: p.name, MemberID: p.memberID, Generation: p.generation, PID: -1, Detail: why})
	p.setActivity(ActivityDead, "")
	p.touch()
}

// step runs the application thread for one tick.
func (p *process) step() {
	if p.phase.inPoll() {
		p.lastPoll = p.w.now
	}
	if p.closing && (p.phase == phPoll || p.phase == phJoinWait || p.phase == phOffsetFetch) {
		p.close()
		return
	}
	p.producer.retryDue()
	switch p.phase {
	case phPoll:
		if !p.idleFast() {
			p.poll()
		}
	case phProcess:
		p.processStep()
	case phFlush:
		if p.producer.flushed() {
			p.afterFlush()
		}
	case phRetry:
		if p.w.now >= p.retryAt {
			f := p.retry
			p.retry = nil
			f()
		}
	}
	if p.phase.inPoll() {
		p.lastPoll = p.w.now
	}
}

// heartbeatThread enforces max.poll.interval.ms from the background thread.
func (p *process) heartbeatThread() {
	if p.hbStopped || p.kicked || !p.joined || p.memberID == "" || p.phase.inPoll() {
		return
	}
	if p.w.now-p.lastPoll <= p.cfg.maxPollInterval {
		return
	}
	p.kicked, p.hbStopped = true, true
	p.w.record(Event{Type: EvPollTimeout, Member: p.name, MemberID: p.memberID, Generation: p.generation, PID: -1,
		Detail: fmt.Sprintf("no poll() for %d ticks > max.poll.interval.ms=%d", p.w.now-p.lastPoll, p.cfg.maxPollInterval)})
	if p.cfg.instanceID == "" {
		p.w.request(p, "LeaveGroup", p.generation, &leaveReq{memberID: p.memberID, reason: "consumer poll timeout has expired"})
	}
	p.w.record(Event{Type: EvZombie, Member: p.name, MemberID: p.memberID, PID: -1, Detail: "out of the group, the application goes on"})
	p.touch()
}

func (p *process) ownedSet() map[TopicPartition]bool {
	s := make(map[TopicPartition]bool, len(p.owned))
	for _, tp := range p.owned {
		s[tp] = true
	}
	return s
}

// dirtyOffsets lists positions not yet committed, for the given partitions.
func (p *process) dirtyOffsets(tps []TopicPartition) []partOffset {
	var out []partOffset
	for _, tp := range tps {
		pos, ok := p.positions[tp]
		if !ok {
			continue
		}
		if c, ok := p.committedPos[tp]; ok && c == pos {
			continue
		}
		out = append(out, partOffset{tp, pos})
	}
	return out
}

func (p *process) commitRequest(offsets []partOffset) *message {
	return p.w.request(p, "OffsetCommit", p.generation, &commitReq{memberID: p.memberID, instanceID: p.cfg.instanceID, offsets: offsets})
}

// revoke gives partitions up (onPartitionsRevoked); lost says the member
// learned it is no longer in the group (onPartitionsLost).
func (p *process) revoke(tps []TopicPartition, why string) {
	if len(tps) == 0 {
		return
	}
	p.setActivity(ActivityRevoking, "")
	drop := map[TopicPartition]bool{}
	for _, tp := range tps {
		drop[tp] = true
		delete(p.positions, tp)
		p.w.record(Event{Type: EvRevoked, Member: p.name, MemberID: p.memberID, Partition: p.w.short(tp), Generation: p.generation, PID: -1, Detail: why})
	}
	kept := p.owned[:0:0]
	for _, tp := range p.owned {
		if !drop[tp] {
			kept = append(kept, tp)
		}
	}
	p.owned = kept
	p.touch()
}

// commitThenRevoke commits what onPartitionsRevoked owes (auto-commit, or
// positions a failed commit left behind) and then runs next.
func (p *process) commitThenRevoke(tps []TopicPartition, next func()) bool {
	if p.cfg.commit == Transactional || p.kicked {
		return false
	}
	offs := p.dirtyOffsets(tps)
	if len(offs) == 0 {
		return false
	}
	p.setActivity(ActivityCommitting, "")
	p.commitRequest(offs)
	p.afterRevoke = next
	p.phase = phRevokeCommit
	return true
}

// poll is KafkaConsumer.poll(): rebalance work, auto-commit, then a fetch.
func (p *process) poll() {
	p.lastPoll = p.w.now
	if p.closing {
		p.close()
		return
	}
	if p.kicked {
		p.resetMembership("the member left the group; it rejoins as a new member")
	}
	if p.havePending {
		if !p.applyAssignment() {
			return
		}
	}
	if p.cfg.commit == AutoCommit && p.joined && p.w.now-p.lastAuto >= p.cfg.autoCommitInterval {
		p.lastAuto = p.w.now
		if offs := p.dirtyOffsets(p.owned); len(offs) > 0 {
			p.commitRequest(offs) // commitAsync of what earlier polls returned
		}
	}
	if p.rejoin && !p.joinInFlight && !p.syncInFlight {
		if p.protocol() == Eager && len(p.owned) > 0 {
			// onJoinPrepare: commit (auto-commit), then revoke everything.
			if p.commitThenRevoke(p.owned, p.poll) {
				return
			}
			p.revoke(append([]TopicPartition(nil), p.owned...), "eager rebalance: revoke everything before JoinGroup")
		} else if p.protocol() == Cooperative && p.cfg.commit == AutoCommit {
			if p.commitThenRevoke(p.owned, p.poll) {
				return
			}
		}
		p.sendJoin()
	}
	if p.joinInFlight || p.syncInFlight {
		if p.protocol() == Eager || !p.joined || len(p.owned) == 0 {
			p.phase = phJoinWait
			if p.joinInFlight {
				p.setActivity(ActivityJoining, "")
			} else {
				p.setActivity(ActivitySyncing, "")
			}
			return
		}
	}
	if !p.joined {
		p.phase = phJoinWait
		return
	}
	var missing []TopicPartition
	for _, tp := range p.owned {
		if _, ok := p.positions[tp]; !ok {
			missing = append(missing, tp)
		}
	}
	if len(missing) > 0 {
		p.w.request(p, "OffsetFetch", p.generation, &offsetFetchReq{parts: missing})
		p.phase = phOffsetFetch
		p.setActivity(ActivityOffsetFetch, "")
		return
	}
	var want []partOffset
	data := false
	for _, tp := range p.owned {
		end, known := p.logEnd[tp]
		if !known || p.positions[tp] < end {
			data = true
		}
		want = append(want, partOffset{tp, p.positions[tp]})
	}
	if !data {
		p.phase = phPoll
		p.idleVer = p.ver
		p.setActivity(ActivityIdle, "")
		return
	}
	p.w.request(p, "Fetch", 0, &fetchReq{parts: want, start: p.rotation, max: p.cfg.maxPollRecords})
	p.phase = phFetch
	p.setActivity(ActivityFetching, "")
}

func (p *process) resetMembership(why string) {
	if len(p.owned) > 0 {
		p.revoke(append([]TopicPartition(nil), p.owned...), "partitions lost: "+why)
	}
	if p.cfg.instanceID == "" {
		p.memberID = ""
	}
	p.generation, p.joined, p.kicked, p.hbStopped = 0, false, false, false
	p.joinInFlight, p.syncInFlight, p.havePending = false, false, false
	p.rejoin = true
	p.touch()
}

func (p *process) sendJoin() {
	p.rejoin = false
	p.joinInFlight = true
	owned := append([]TopicPartition(nil), p.owned...)
	if p.protocol() == Eager {
		owned = append([]TopicPartition(nil), p.pending...) // the previous assignment, as sticky's user data
	}
	p.w.request(p, "JoinGroup", p.generation, &joinReq{memberID: p.memberID, instanceID: p.cfg.instanceID,
		topics: p.w.topicNames(), owned: owned, ownedGen: p.ownedGenOrNone(), protocol: p.w.assignor.Name()})
}

func (p *process) ownedGenOrNone() int {
	if p.ownedGen == 0 {
		return -1
	}
	return p.ownedGen
}

// applyAssignment is onJoinComplete: revoke what was lost, take what is new.
// It returns false when it had to wait for a commit first.
func (p *process) applyAssignment() bool {
	target := map[TopicPartition]bool{}
	for _, tp := range p.pending {
		target[tp] = true
	}
	var revoked []TopicPartition
	for _, tp := range p.owned {
		if !target[tp] {
			revoked = append(revoked, tp)
		}
	}
	if len(revoked) > 0 && p.commitThenRevoke(revoked, p.poll) {
		return false
	}
	p.havePending = false
	p.generation = p.pendingGen
	p.revoke(revoked, "cooperative rebalance: revoke only what moves")
	have := p.ownedSet()
	for _, tp := range p.pending {
		if !have[tp] {
			p.owned = append(p.owned, tp)
			p.w.record(Event{Type: EvAssigned, Member: p.name, MemberID: p.memberID, Partition: p.w.short(tp), Generation: p.generation, PID: -1})
		}
	}
	SortPartitions(p.owned)
	p.ownedGen = p.generation
	p.joined = true
	if len(revoked) > 0 && p.protocol() == Cooperative {
		p.rejoin = true // KIP-429: rejoin at once so the partitions can move
	}
	p.touch()
	return true
}

// groupRequestFailed handles an error answer to JoinGroup or SyncGroup: a
// fenced static instance stops; otherwise the member joins again (as a new
// member if its id is unknown).
func (p *process) groupRequestFailed(code ErrorCode) {
	if code == FENCED_INSTANCE_ID {
		p.exit("FencedInstanceIdException: another process uses group.instance.id " + p.cfg.instanceID)
		return
	}
	if code == UNKNOWN_MEMBER_ID {
		p.memberID = ""
	}
	p.rejoin = true
	p.wake()
}

func (p *process) onJoinResponse(m *message) {
	p.joinInFlight = false
	if m.err != NONE {
		p.groupRequestFailed(m.err)
		return
	}
	resp := m.body.(*joinResp)
	p.memberID = resp.memberID
	p.pendingGen = m.gen
	p.generation = m.gen // the client takes the new generation from the JoinGroup response
	var plan map[string][]TopicPartition
	if resp.leader == p.memberID && !resp.skipAssignment {
		var err error
		plan, err = p.w.runAssignor(p, resp.members)
		if err != nil {
			p.w.record(Event{Type: EvError, Member: p.name, MemberID: p.memberID, Generation: m.gen, PID: -1, Detail: err.Error()})
			p.w.fail(err)
			return
		}
	}
	p.syncInFlight = true
	p.w.request(p, "SyncGroup", m.gen, &syncReq{memberID: p.memberID, instanceID: p.cfg.instanceID, plan: plan})
	if p.phase == phJoinWait {
		p.setActivity(ActivitySyncing, "")
	}
}

// runAssignor runs the assignor on the leader, checks the plan, and under the
// cooperative protocol withholds partitions another member still owns (KIP-429).
func (w *World) runAssignor(leader *process, members []MemberSubscription) (plan map[string][]TopicPartition, err error) {
	a := w.assignor
	topics := w.topicCounts()
	in := make([]MemberSubscription, len(members))
	for i, m := range members {
		in[i] = m
		in[i].Topics = append([]string(nil), m.Topics...)
		in[i].Owned = append([]TopicPartition(nil), m.Owned...)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("assignor %q panicked on the leader %s: %v", a.Name(), leader.name, r)
			}
		}()
		plan = a.Assign(in, topics)
	}()
	if err != nil {
		return nil, err
	}
	if plan == nil {
		plan = map[string][]TopicPartition{}
	}
	if err := validatePlan(a, members, topics, plan); err != nil {
		return nil, err
	}
	out := make(map[string][]TopicPartition, len(members))
	for _, m := range members {
		out[m.MemberID] = append([]TopicPartition(nil), plan[m.MemberID]...)
		SortPartitions(out[m.MemberID])
	}
	detail := "target " + planString(w, out)
	if a.Protocol() == Cooperative {
		owner := map[TopicPartition]string{}
		for _, m := range members {
			for _, tp := range m.Owned {
				owner[tp] = m.MemberID
			}
		}
		var withheld []TopicPartition
		for _, m := range members {
			kept := out[m.MemberID][:0:0]
			for _, tp := range out[m.MemberID] {
				if o, ok := owner[tp]; ok && o != m.MemberID {
					withheld = append(withheld, tp)
					continue
				}
				kept = append(kept, tp)
			}
			out[m.MemberID] = kept
		}
		if len(withheld) > 0 {
			SortPartitions(withheld)
			detail += "; withheld until revoked: " + w.shortList(withheld)
		}
	}
	w.record(Event{Type: EvAssignorRun, Member: leader.name, MemberID: leader.memberID, Generation: w.coord.generation, PID: -1,
		State: a.Name(), Detail: detail})
	return out, nil
}

func (p *process) onSyncResponse(m *message) {
	p.syncInFlight = false
	if m.err != NONE {
		p.groupRequestFailed(m.err)
		return
	}
	p.pending = append([]TopicPartition(nil), m.body.(*syncResp).assignment...)
	SortPartitions(p.pending)
	p.pendingGen = m.gen
	p.havePending = true
	p.wake()
}

// wake lets a member blocked in poll() continue at its next step.
func (p *process) wake() {
	if p.phase == phJoinWait || (p.phase == phPoll) {
		p.phase = phPoll
	}
}

func (p *process) onOffsetFetchResponse(m *message) {
	if p.phase != phOffsetFetch {
		return
	}
	if m.err == UNSTABLE_OFFSET_COMMIT {
		p.phase = phRetry
		p.retryAt = p.w.now + 1
		p.retry = p.poll
		return
	}
	if m.err != NONE {
		p.phase = phPoll
		return
	}
	owned := p.ownedSet()
	for _, po := range m.body.(*offsetFetchResp).offsets {
		if !owned[po.tp] {
			continue
		}
		off := po.offset
		if off < 0 {
			off = 0 // auto.offset.reset=earliest
		}
		p.committedPos[po.tp] = off // nothing to commit until the position moves
		p.positions[po.tp] = off
	}
	p.touch()
	p.phase = phPoll
	p.poll()
}

func (p *process) onFetchResponse(m *message) {
	if p.phase != phFetch {
		return
	}
	resp := m.body.(*fetchResp)
	for _, le := range resp.logEnd {
		p.logEnd[le.tp] = le.offset
	}
	p.rotation = resp.next
	owned := p.ownedSet()
	p.batch = p.batch[:0]
	for _, r := range resp.records {
		if !owned[r.tp] || p.positions[r.tp] != r.offset {
			continue
		}
		p.batch = append(p.batch, r)
		p.positions[r.tp] = r.offset + 1
		p.w.record(Event{Type: EvFetched, Member: p.name, MemberID: p.memberID, Partition: p.w.short(r.tp), Offset: r.offset, Record: r.name, Generation: p.generation, PID: -1})
	}
	if len(p.batch) == 0 {
		p.phase = phPoll
		return
	}
	p.lastPoll = p.w.now
	p.idx, p.recordStarted = 0, false
	p.batchGen, p.batchMember = p.generation, p.memberID
	p.batchOffsets = p.dirtyOffsets(p.owned)
	switch p.cfg.commit {
	case CommitBefore:
		p.setActivity(ActivityCommitting, "")
		p.commitRequest(append([]partOffset(nil), p.batchOffsets...))
		p.phase = phCommitBefore
	default:
		if p.cfg.commit == Transactional {
			p.producer.beginTransaction()
		}
		p.phase = phProcess
		p.processStep()
	}
}

// processStep processes records: 1 tick each, a slow one slowTicks.
func (p *process) processStep() {
	for p.phase == phProcess {
		if !p.recordStarted {
			if p.crashDue(p.idx) {
				return
			}
			r := p.batch[p.idx]
			d := p.cfg.recordTicks
			p.slowRecord = false
			if p.slowNext {
				p.slowNext, p.slowRecord = false, true
				d = p.cfg.slowTicks
				p.w.record(Event{Type: EvSlowStart, Member: p.name, MemberID: p.memberID, Record: r.name, Generation: p.generation, PID: -1,
					Detail: fmt.Sprintf("%d ticks", d)})
			}
			p.recordStarted = true
			p.recordEnd = p.w.now + d
			p.setActivity(ActivityProcessing, r.name)
			return
		}
		if p.w.now < p.recordEnd {
			return
		}
		r := p.batch[p.idx]
		p.w.record(Event{Type: EvProcessed, Member: p.name, MemberID: p.memberID, Partition: p.w.short(r.tp), Offset: r.offset, Record: r.name, Generation: p.generation, PID: -1})
		p.producer.send("inv(" + r.name + ")")
		p.idx++
		p.recordStarted, p.slowRecord = false, false
		if p.idx >= len(p.batch) {
			if p.crashDue(p.idx) {
				return
			}
			p.endBatch()
			return
		}
	}
}

// crashDue crashes the process if its crash plan says "after n records".
func (p *process) crashDue(n int) bool {
	if p.crashPlan != nil && p.crashPlan.afterRecords == n {
		p.crashPlan = nil
		p.crash(fmt.Sprintf("Crash(AfterRecords(%d))", n))
		return true
	}
	return false
}

func (p *process) endBatch() {
	switch p.cfg.commit {
	case CommitAfter:
		if !p.producer.flushed() {
			p.phase = phFlush
			p.setActivity(ActivityProducing, "")
			return
		}
		p.afterFlush()
	case Transactional:
		p.producer.commitTransaction()
	default:
		p.finishBatch()
	}
}

func (p *process) afterFlush() {
	switch p.cfg.commit {
	case CommitAfter:
		p.setActivity(ActivityCommitting, "")
		p.commitRequest(append([]partOffset(nil), p.batchOffsets...))
		p.phase = phCommitAfter
	case Transactional:
		p.producer.endTxn()
	}
}

// finishBatch returns to poll(); a replaced zombie stops here.
func (p *process) finishBatch() {
	if p.zombie {
		p.exit("the zombie finished its batch and stops")
		return
	}
	p.phase = phPoll
	p.poll()
}

func (p *process) onOffsetCommitResponse(m *message) {
	if m.err == NONE {
		for _, po := range p.lastCommitOffsets(m) {
			p.committedPos[po.tp] = po.offset
		}
	}
	switch p.phase {
	case phCommitBefore:
		if m.err != NONE {
			p.commitFailed(m.err)
			p.finishBatch()
			return
		}
		p.phase = phProcess
		p.processStep()
	case phCommitAfter:
		if m.err != NONE {
			p.commitFailed(m.err)
		}
		p.finishBatch()
	case phRevokeCommit:
		if m.err != NONE {
			p.commitFailed(m.err)
		}
		next := p.afterRevoke
		p.afterRevoke = nil
		p.phase = phPoll
		// mark the owed offsets as settled so the retry does not loop
		for _, po := range p.dirtyOffsets(p.owned) {
			p.committedPos[po.tp] = po.offset
		}
		if next != nil {
			next()
		}
	default:
		if m.err != NONE && p.cfg.commit == AutoCommit {
			p.w.record(Event{Type: EvCommitFailed, Member: p.name, MemberID: p.memberID, Generation: p.generation, Error: m.err, PID: -1, Detail: "auto-commit failed"})
			p.afterCommitError(m.err)
		}
	}
}

func (p *process) lastCommitOffsets(m *message) []partOffset {
	if req, ok := m.body.(*commitReq); ok {
		return req.offsets
	}
	return nil
}

// commitFailed is CommitFailedException (or RebalanceInProgressException).
func (p *process) commitFailed(code ErrorCode) {
	name := "CommitFailedException"
	if code == REBALANCE_IN_PROGRESS {
		name = "RebalanceInProgressException"
	}
	p.w.record(Event{Type: EvCommitFailed, Member: p.name, MemberID: p.memberID, Generation: p.generation, Error: code, PID: -1, Detail: name})
	p.afterCommitError(code)
}

func (p *process) afterCommitError(code ErrorCode) {
	switch code {
	case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION:
		p.kicked = true
		p.touch()
	case FENCED_INSTANCE_ID:
		p.zombie = true
		p.touch()
	case REBALANCE_IN_PROGRESS:
		if !p.joinInFlight && !p.syncInFlight && !p.havePending {
			p.rejoin = true
		}
	}
}

// close is KafkaConsumer.close(): auto-commit, revoke, LeaveGroup (dynamic members only).
func (p *process) close() {
	if p.cfg.commit == AutoCommit && p.joined && !p.kicked {
		if offs := p.dirtyOffsets(p.owned); len(offs) > 0 {
			p.commitRequest(offs)
		}
	}
	if len(p.owned) > 0 {
		p.revoke(append([]TopicPartition(nil), p.owned...), "close()")
	}
	if p.cfg.instanceID == "" && p.memberID != "" && !p.kicked {
		p.w.request(p, "LeaveGroup", p.generation, &leaveReq{memberID: p.memberID, reason: "the consumer is being closed"})
	}
	p.alive, p.closed = false, true
	p.phase = phDead
	p.setActivity(ActivityDead, "")
	p.touch()
	if p.restartAfterClose {
		p.w.startProcess(p.name, p.cfg)
	}
}

// handleClient dispatches a response (or the rebalance notice) to a process.
func (w *World) handleClient(p *process, m *message) {
	switch m.api {
	case "FindCoordinator":
		p.rejoin = true
		p.phase = phPoll
	case "Heartbeat":
		if m.err == REBALANCE_IN_PROGRESS && p.joined && !p.kicked && !p.joinInFlight {
			p.rejoin = true
		}
	case "JoinGroup":
		p.onJoinResponse(m)
	case "SyncGroup":
		p.onSyncResponse(m)
	case "OffsetFetch":
		p.onOffsetFetchResponse(m)
	case "Fetch":
		p.onFetchResponse(m)
	case "OffsetCommit":
		p.onOffsetCommitResponse(m)
	case "Produce":
		p.producer.onProduceResponse(m)
	case "InitProducerId":
		p.producer.onInitProducerIDResponse(m)
	case "AddPartitionsToTxn":
		p.producer.onAddPartitionsResponse(m)
	case "AddOffsetsToTxn":
		p.producer.onAddOffsetsResponse(m)
	case "TxnOffsetCommit":
		p.producer.onTxnOffsetCommitResponse(m)
	case "EndTxn":
		p.producer.onEndTxnResponse(m)
	}
}
