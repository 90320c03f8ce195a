package kgviz

import (
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// A member is one process of a group member: a KafkaConsumer in the group
// plus a KafkaProducer to invoices, talking to the broker only through
// messages. A restarted member gets a new process; the old one may keep
// running as a zombie. The member's code is split by concern:
//
//	member.go          the process: its state, lifecycle, one step per tick, response dispatch
//	member_host.go     host: all it reaches of its world (clock, outbox, event log)
//	member_state.go    the state enums (Lifecycle, ClassicMemberState, Phase) and MemberInfo
//	member_group.go    the group client: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup
//	member_assign.go   the leader's assignor run and plan check
//	member_poll.go     poll(): rebalance work, auto-commit, OffsetFetch, Fetch
//	member_process.go  processing a batch, crash points
//	member_commit.go   the commit modes and their answers
//	producer.go        the producer: idempotence, transactions
type member struct {
	h           host         // the world it runs in (member_host.go)
	clk         *clock.Clock // h.timers(), the world's clock (member.now)
	brokerName  string       // h.brokerName(), every request's recipient (asked once: one interface call less per heartbeat)
	t           *topology    // what it reads of the world's topics
	name        string
	incarnation int
	conn        int    // the network connection of this process
	seq         int    // start order in the world
	settledPass uint64 // the World.settledPass that found it settled in its group
	// superseded: a newer process of the same name started, so this one is
	// no longer w.current[name] (the only writer of w.current is
	// startProcess): the same answer without the lookup.
	superseded bool
	cfg        config
	lifecycle  Lifecycle

	// The group, as the consumer sees it (AbstractCoordinator; a Consumer
	// member's ConsumerMembershipManager in cg, which keeps group's member
	// id, generation (its member epoch) and application metadata up to date).
	mm       membership // the manager of group.protocol's membership: newMembership
	group    groupClient
	cg       consumerGroupClient
	protocol RebalanceProtocol // the member's rebalance protocol, fixed for the process
	// owned: the partitions the application owns. Its elements are never
	// written in place: it is only replaced, by a new slice or by an append
	// to a clipped one (which copies), so an OffsetFetch request may share
	// its array (missingPositions).
	owned    []TopicPartition
	ownedGen int // the generation they were assigned in
	// By owned's position (syncOwned keeps them with it): each owned
	// partition's input partition index (World.index, -1 for another
	// partition) and short name. ownedShort is replaced whenever owned
	// changes, by a fresh slice or one of World.shortBy (shortRun), and
	// never written, so events may carry it.
	ownedIdx   []int32
	ownedShort []string
	// By input partition index (World.index): where the application reads,
	// what it knows is committed, each partition's end as the last fetch saw it.
	positions      offsetTable
	committedPos   offsetTable
	logEnd         offsetTable
	rotation       int
	lastPoll       int
	lastAuto       int
	activity       event.Activity
	activityRec    string
	ver            int // bumped whenever owned partitions or positions change
	changed        bool
	refreshStamp   uint32  // the pause tracker's stamp of the refresh that saw this process changed
	held           []int32 // input partitions (indices) the pause tracker counts as consumed by this process
	noteStamp      [2]uint32
	noteIdx        [2]int
	readyVer       int
	readyVal       bool
	idleVer        int // ver when poll() last found nothing to fetch (-1: not idle; member_idle.go)
	restartOnClose bool
	flushThenClose bool // PhaseFlush is close() waiting for the producer (else the batch's commit)
	commitOwed     bool // a commit failed with RebalanceInProgressException: poll() commits again
	commitSent     sentCommit
	revokeSettled  bool          // the commit before a revocation was answered: poll() revokes without committing again
	lastProcessed  map[int32]int // by input partition: the offset of the last record the application processed
	sinceCommit    int           // batches processed since the last commit (WithCommitEvery)
	hbReq          broker.HeartbeatRequest
	// out is the envelope of the member's requests: envelope writes each
	// one here and the member lends it to its host (host.send), which
	// copies it (broker.Envelope's seams; a host never calls back into the
	// member while it sends, so one suffices).
	out             broker.Envelope
	crashPlan       *CrashPoint
	frozen          bool // Freeze: the process stops, its connection stays open
	slowNext        bool
	loseNextProduce bool
	paused          map[int32]bool // by input partition index: KafkaConsumer.pause (consumer_control.go)

	// The application thread.
	phase         Phase
	backoffOf     Phase // PhaseBackoff: the phase whose request is sent again
	backoffUntil  int
	batch         []broker.FetchedRecord
	idx           int
	recordEnd     int
	recordStarted bool
	// failing: the failing record being tried (WithFailingRecords) and its attempts so far
	failing struct {
		record   string
		attempts int
	}
	slowRecord   bool
	batchOffsets []broker.PartitionOffset
	producer     producer
}

func (w *World) startProcess(name string, cfg config) *member {
	inc := 1
	if old, ok := w.current[name]; ok {
		inc = old.incarnation + 1
		old.superseded = true
	}
	w.nextConn++
	p := newMember(w, &w.topology, name, inc, w.nextConn, cfg)
	p.seq = len(w.procs)
	w.procs = append(w.procs, p)
	w.running = append(w.running, p)
	w.current[name] = p
	w.currentVer++
	w.conns = append(w.conns, p)
	if inc > 1 {
		w.record(event.Event{Type: event.EvRestart, Member: name, Count: inc, InstanceID: cfg.instanceID})
	}
	p.start()
	return p
}

// newMember is a process of member name (its incarnation inc, on network
// connection conn) in host h, not started yet (start).
func newMember(h host, t *topology, name string, inc, conn int, cfg config) *member {
	n := len(t.inputTPs)
	p := &member{h: h, clk: h.timers(), t: t, brokerName: h.brokerName(), name: name, incarnation: inc, conn: conn, cfg: cfg, lifecycle: LifecycleStarting,
		positions: newOffsetTable(n), committedPos: newOffsetTable(n), logEnd: newOffsetTable(n), lastProcessed: map[int32]int{},
		lastPoll: h.timers().Now(), lastAuto: h.timers().Now(), idleVer: -1, readyVer: -1}
	p.protocol = memberProtocol(cfg.assignors)
	p.mm = newMembership(p)
	p.producer.init(p)
	return p
}

// start is the process's first step: a transactional producer's
// initTransactions(), or else the consumer's FindCoordinator.
func (p *member) start() {
	p.setActivity(event.ActivityStarting, "")
	if p.producer.mode == producerTransactional {
		p.producer.initTransactions()
		p.setPhase(PhaseInitProducerID)
	} else {
		p.findCoordinator()
	}
}

// memberProtocol is ConsumerCoordinator's choice of the rebalance protocol:
// the most capable one that every assignor of the member supports.
func memberProtocol(assignors []Assignor) RebalanceProtocol {
	for _, a := range assignors {
		if !supportsCooperative(a) {
			return Eager
		}
	}
	return Cooperative
}

// alive says whether the process still runs.
func (p *member) alive() bool { return p.lifecycle.Alive() }

// now is the current tick.
func (p *member) now() int { return p.clk.Now() }

// memberID is the member id the process refers to in its events: the one its
// consumer holds, or, once reset, the one its application still believes in.
func (p *member) memberID() string {
	if p.group.memberID != "" {
		return p.group.memberID
	}
	return p.group.appMemberID
}

// event records an event of this process (Member, MemberID filled in).
func (p *member) event(e event.Event) {
	e.Member = p.name
	if e.MemberID == "" {
		e.MemberID = p.memberID()
	}
	p.h.record(e)
}

// setActivity records the member's activity if it changed (the most
// frequent event of a member), as event would, without event's copy.
func (p *member) setActivity(a event.Activity, rec string) {
	if p.activity == a && p.activityRec == rec {
		return
	}
	p.activity, p.activityRec = a, rec
	var e event.Event // set field by field: built in place, where a literal would be built apart and copied
	e.Type, e.Activity, e.Record, e.Generation = event.EvActivity, a, rec, p.group.generation
	e.Member, e.MemberID = p.name, p.memberID()
	p.h.record(e)
}

// syncOwned brings ownedIdx and ownedShort up to date after owned changed.
func (p *member) syncOwned() {
	w := p.t
	p.ownedIdx = p.ownedIdx[:0]
	for _, tp := range p.owned {
		p.ownedIdx = append(p.ownedIdx, w.index(tp))
	}
	p.prunePaused()
	p.ownedShort = nil
	if len(p.owned) == 0 {
		return
	}
	if names, ok := w.shortRun(p.ownedIdx); ok {
		p.ownedShort = names // a range of a topic, as the range assignor gives
		return
	}
	p.ownedShort = make([]string, len(p.owned))
	for k, tp := range p.owned {
		if i := p.ownedIdx[k]; i >= 0 {
			p.ownedShort[k] = w.shortBy[i]
		} else {
			p.ownedShort[k] = tp.String()
		}
	}
}

// touch records that the process's partitions, positions or state changed.
func (p *member) touch() {
	p.ver++
	p.h.changed(p)
}

// consuming says whether the process consumes its partitions for the group:
// it runs, was not replaced, and believes it is in the group.
func (p *member) consuming() bool {
	if !p.alive() || p.lifecycle == LifecycleReplaced || !p.group.assigned {
		return false
	}
	return p.mm.consuming()
}

// ready says whether the process knows where to read every partition it owns.
func (p *member) ready() bool {
	if p.readyVer != p.ver {
		p.readyVer, p.readyVal = p.ver, true
		for _, i := range p.ownedIdx {
			if !p.positions.has(i) {
				p.readyVal = false
				break
			}
		}
	}
	return p.readyVal
}

func (p *member) inSlowRecord() bool {
	return p.alive() && p.phase == PhaseProcess && p.recordStarted && p.slowRecord
}

// end stops the process: crash, close, a fatal error or a finished zombie.
// A process that ended never joins again: it lets go of its last assignment
// and of a JoinGroup answer it did not read, which point into the leader's
// plan (one array for the whole group) and its member list. The world keeps
// every process it ever started (procs): without this, a rolling restart
// would keep a plan alive for every process it stopped.
func (p *member) end(l Lifecycle) {
	if !p.frozen {
		p.h.closeConnection(p.conn)
	}
	p.setLifecycle(l)
	p.setPhase(PhaseDone)
	p.producer.stop()
	p.setActivity(event.ActivityDead, "")
	p.touch()
	p.group.pending, p.group.havePending, p.group.prevAssignment, p.group.deferredJoin = nil, false, nil, nil
}

// crash stops the process at once: no commit, no LeaveGroup.
func (p *member) crash(how CrashPoint) {
	if !p.alive() {
		return
	}
	e := event.Event{Type: event.EvCrash, Generation: p.group.generation, Reason: how.kind, Count: how.arg}
	if how.frozen {
		p.frozen = true
		e = e.WithText(event.FrozenText)
	}
	p.event(e)
	p.end(LifecycleCrashed)
}

// fail ends the process on a fatal error.
func (p *member) fail(api kafka.APIKey, code ErrorCode, ex event.Exception) {
	if !p.alive() {
		return
	}
	p.event(event.Event{Type: event.EvError, Generation: p.group.generation, API: api, Error: code, Exception: ex, Fatal: true,
		PID: p.producer.pid, Epoch: p.producer.epoch})
	p.event(event.Event{Type: event.EvExit, Reason: event.ReasonFatal, Exception: ex})
	p.end(LifecycleFailed)
}

// step runs the application thread for one tick.
func (p *member) step() {
	if p.phase.inPoll() {
		p.lastPoll = p.now()
	}
	if g := &p.group; g.deferredJoin != nil && g.deferredUntil > 0 && p.now() >= g.deferredUntil {
		p.pollNetwork() // WithSyncGroupDelay: the application's poll() after its busy ticks
	}
	if p.lifecycle == LifecycleClosing && (p.phase == PhasePoll || p.phase == PhaseRebalance || p.phase == PhaseOffsetFetch || p.phase == PhaseListOffsets) {
		p.close()
		return
	}
	switch p.phase {
	case PhasePoll:
		if !p.idle() { // member_idle.go
			p.poll()
		}
	case PhaseProcess:
		p.processStep()
	case PhaseFlush:
		if p.producer.flushed() {
			if p.flushThenClose {
				p.close()
			} else {
				p.afterFlush()
			}
		}
	case PhaseBackoff:
		if p.now() >= p.backoffUntil {
			p.resend()
		}
	}
	if p.phase.inPoll() {
		p.lastPoll = p.now()
	}
}

// backoff waits retry.backoff.ms (one tick) before doing phase ph's request again.
func (p *member) backoff(ph Phase) {
	p.setPhase(PhaseBackoff)
	p.backoffOf, p.backoffUntil = ph, p.now()+1
}

// resend does again what the phase the process backed off from was waiting for.
func (p *member) resend() {
	switch p.backoffOf {
	case PhaseInitProducerID:
		p.setPhase(PhaseInitProducerID)
		p.producer.sendInitProducerID()
	case PhaseFindCoordinator:
		p.findCoordinator()
	case PhaseTxnAddOffsets:
		p.producer.commitTransaction()
	case PhaseTxnOffsetCommit:
		p.producer.sendTxnOffsetCommit()
	case PhaseTxnEnd:
		p.producer.endTxn()
	default:
		p.setPhase(PhasePoll)
		p.poll()
	}
}

// receive dispatches a response that arrived for this process. env is
// lent for the call (broker.Envelope's seams): what a handler keeps of it,
// it copies (today only ReplyTo is read).
func (p *member) receive(env *broker.Envelope) {
	switch m := env.Msg.(type) {
	case *broker.FindCoordinatorResponse:
		p.onFindCoordinatorResponse(m)
	case *broker.HeartbeatResponse:
		p.onHeartbeatResponse(env.ReplyTo, m)
	case *broker.ConsumerGroupHeartbeatResponse:
		p.onConsumerGroupHeartbeatResponse(env, m)
	case *broker.JoinGroupResponse:
		p.receiveJoinGroup(m)
	case *broker.SyncGroupResponse:
		p.onSyncGroupResponse(m)
	case *broker.LeaveGroupResponse:
	case *broker.OffsetFetchResponse:
		p.onOffsetFetchResponse(m)
	case *broker.ListOffsetsResponse:
		p.onListOffsetsResponse(m)
	case *broker.FetchResponse:
		p.onFetchResponse(m)
	case *broker.OffsetCommitResponse:
		p.onOffsetCommitResponse(m)
	case *broker.ProduceResponse:
		p.producer.onProduceResponse(env, m)
	case *broker.InitProducerIDResponse:
		p.producer.onInitProducerIDResponse(m)
	case *broker.AddPartitionsToTxnResponse:
		p.producer.onAddPartitionsResponse(m)
	case *broker.AddOffsetsToTxnResponse:
		p.producer.onAddOffsetsResponse(m)
	case *broker.TxnOffsetCommitResponse:
		p.producer.onTxnOffsetCommitResponse(m)
	case *broker.EndTxnResponse:
		p.producer.onEndTxnResponse(m)
	default:
		p.mm.receive(env)
	}
}

// request sends a request to the broker; gen is the generation it refers to (for the record).
func (p *member) request(m kafka.Message, gen int) int {
	return p.h.send(p.envelope(gen, m), p)
}

// envelope writes the member's next request, m of generation gen, in its
// one envelope p.out and returns it, to lend to the host: a pointer to an
// envelope on the sender's stack would escape through the host's interface
// (a heap allocation per message), and by value its ten words were copied
// at each crossing.
func (p *member) envelope(gen int, m kafka.Message) *broker.Envelope {
	o := &p.out
	o.ID, o.ReplyTo, o.From, o.To, o.Conn, o.Generation, o.Msg = 0, 0, p.name, p.brokerName, p.conn, gen, m
	return o
}

// info returns the process's state.
func (p *member) info() MemberInfo {
	names := make([]string, len(p.cfg.assignors))
	for i, a := range p.cfg.assignors {
		names[i] = a.Name()
	}
	owned := make([]string, len(p.owned))
	for i, tp := range p.owned {
		owned[i] = p.t.short(tp)
	}
	info := MemberInfo{Name: p.name, Incarnation: p.incarnation, Lifecycle: p.lifecycle, Membership: p.group.state, Phase: p.phase,
		MemberID: p.group.memberID, Generation: p.group.generation, AppGeneration: p.group.appGeneration,
		RejoinNeeded: p.group.rejoinNeeded, Protocol: p.protocol, Assignors: names, Owned: owned, GroupProtocol: p.cfg.groupProtocol}
	p.mm.info(&info)
	return info
}
