package kgviz

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
)

// World is one simulated Kafka cluster: broker B1 with its partitions, the
// group coordinator of "billing" and the transaction coordinator (package
// broker), the members of the group (member*.go) and the audit reader of
// "invoices". It is a pure state machine: nothing happens between calls,
// time advances only in Step, RunFor and RunUntil, the members and the
// broker talk only through typed messages, and the same calls give the same
// events, byte for byte.
//
// Calls chain. The first error (bad input, an unreachable RunUntil, an
// assignor that failed) is kept in Err and recorded as an EvWorldStopped
// event; later calls then do nothing, so the world stays as it was when the
// error happened.
type World struct {
	cfg    config
	err    error
	clock  *clock.Clock
	events event.Log
	net    network
	broker *broker.Broker

	// topology: the topics, their partitions' indices and names, which the
	// members read too (topology.go).
	topology

	procs    []*member          // every process ever started, in start order
	current  map[string]*member // member name → its newest process
	conns    []*member          // network connection → process (connections are numbered from 1)
	running  []*member          // the processes that run, in start order
	names    []string           // member names in the order they were added
	nextConn int
	pauses   pauseTracker
	plans    []crashAt   // AtTick crash points, by tick
	closing  []connClose // connections of ended processes the broker sees close (member_host.go)
	runFrom  int         // event index where the running RunUntil started
	// ver counts what can change what a condition sees: every recorded event
	// and every message a member receives (but a heartbeat's plain answer).
	ver        uint64
	settledVer uint64
	settledVal bool
	// unsettledHint is the process computeSettled last found unsettled.
	unsettledHint *member
	settledPass   uint64 // computeSettled's passes (member.settledPass)
	currentVer    uint64 // bumped whenever current changes (startProcess)
	// settledAt: the classic pass's group member ids and their processes
	// (w.current of the member's client), valid while currentVer is.
	settledAt struct {
		current uint64
		ids     []string
		procs   []*member
	}
	afterStep func() // a test's check after every tick

	shareMembers int // members added with ShareGroup (KIP-932; share.go)
}

// connClose is a connection the broker sees close at tick at.
type connClose struct{ at, conn int }

type crashAt struct {
	tick int
	p    *member
	cp   CrashPoint
}

// NewWorld builds a world with the defaults of DEMOS.md, changed by opts.
// A bad option is reported by Err, and the world keeps the defaults.
func NewWorld(opts ...Option) *World {
	w := &World{cfg: defaultConfig()}
	cfg := defaultConfig()
	err := applyOptions(&cfg, opts, false)
	if err == nil && len(cfg.topics) == 0 {
		err = fmt.Errorf("NewWorld: no input topic: WithOnlyTopics() needs at least one WithTopic(name, partitions, prefix)")
	}
	if err == nil {
		w.cfg = cfg
	}
	w.init()
	if err == nil {
		err = w.checkPoison(&w.cfg) // WithPoisonRecords names the world's partitions (share.go)
	}
	if err != nil {
		w.fail(err)
	}
	return w
}

func (w *World) init() {
	w.clock = clock.New()
	w.net = network{w: w}
	w.current = map[string]*member{}
	w.conns = []*member{nil}
	w.topology = newTopology(w.cfg.topics)
	w.broker = broker.New(broker.Config{Name: Broker, PartitionName: w.short, InternalTopics: true,
		TransactionVersion:             w.cfg.transactionVersion,
		ConsumerGroupHeartbeatInterval: w.cfg.consumerHeartbeatInterval, ConsumerGroupSessionTimeout: w.cfg.consumerSessionTimeout,
		FetchDrain: w.cfg.fetchOrder == FetchDrain},
		w.clock, &w.net, recorder{w})
	if w.cfg.tap != nil {
		w.broker.SetTap(w.cfg.tap)
	}
	for _, t := range w.topics {
		w.broker.CreateTopic(t.name, t.partitions)
		for p := 0; p < t.partitions; p++ {
			tp := TopicPartition{Topic: t.name, Partition: p}
			records := make([]string, w.cfg.recordsPerPartition)
			for off := range records {
				records[off] = t.prefix + strconv.Itoa(p) + "." + strconv.Itoa(off)
			}
			w.broker.Preload(tp, records...)
		}
	}
	w.pauses = newPauseTracker(len(w.inputTPs))
	w.broker.CreateTopic(w.invoices.Topic, 1)
	if w.cfg.deadLetterTopic != "" {
		w.deadLetter = TopicPartition{Topic: w.cfg.deadLetterTopic, Partition: 0}
		w.broker.CreateTopic(w.deadLetter.Topic, 1)
	}
	w.record(event.Event{Type: event.EvConfig, Member: Broker, Setting: event.SettingAssignor, Assignor: w.cfg.assignors[0].Name()}.
		WithPartitions(assignorNames(w.cfg.assignors)))
	w.record(event.Event{Type: event.EvConfig, Member: Broker, Setting: event.SettingIsolation, Isolation: w.cfg.isolation})
	if w.cfg.transactionVersion > 1 {
		w.record(event.Event{Type: event.EvConfig, Member: Broker, Setting: event.SettingTransactionVersion, Count: w.cfg.transactionVersion})
	}
}

func assignorNames(list []Assignor) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.Name()
	}
	return out
}

// recorder is the broker's broker.Recorder: the world's event log, each
// event stamped with the current tick.
type recorder struct{ w *World }

func (r recorder) Record(e event.Event) { r.w.record(e) }

func (w *World) record(e event.Event) { w.recordAt(&e) }

// recordAt records *e, stamped with the current tick (which it sets in
// *e), without copying it: an Event is some 400 bytes, and the callers that
// record the most (messages on the wire, a member's events) build theirs
// in place.
func (w *World) recordAt(e *event.Event) {
	e.Tick = w.clock.Now()
	w.events.Add(e)
	w.ver++
}

func (w *World) now() int { return w.clock.Now() }

// Err returns the first error the world met, or nil.
func (w *World) Err() error { return w.err }

// Now returns the current tick.
func (w *World) Now() int { return w.clock.Now() }

// Events iterates over every event recorded so far, in order, with its index:
//
//	for _, e := range w.Events() { ... }
func (w *World) Events() iter.Seq2[int, Event] { return w.events.All() }

// EventsSince iterates over the events from index n on (n as returned by
// EventCount before).
func (w *World) EventsSince(n int) iter.Seq2[int, Event] { return w.events.From(n) }

// EventCount returns how many events were recorded so far.
func (w *World) EventCount() int { return w.events.Len() }

// Event returns the i-th event (0-based), or the zero Event if there is none.
func (w *World) Event(i int) Event {
	if i < 0 || i >= w.events.Len() {
		return Event{}
	}
	return w.events.At(i)
}

// Members returns the member names in the order they were added.
func (w *World) Members() []string { return append([]string(nil), w.names...) }

// Partitions returns the input partitions' short names in order ("o0" ... "p2").
func (w *World) Partitions() []string { return w.shortNames(w.inputTPs) }

// fail keeps the first error and records it (EvWorldStopped).
func (w *World) fail(err error) *World {
	if w.err == nil {
		w.err = err
		w.record(event.Event{Type: event.EvWorldStopped, Member: Broker}.WithText(err.Error()))
	}
	return w
}

// AddMember starts a new member process (a consumer of orders and payments
// plus a producer to invoices) named id, e.g. "C2". It joins the group at
// once. Options: WithCommit, WithProducer, WithAssignor, WithInstanceID or
// Static, timeouts.
func (w *World) AddMember(id string, opts ...Option) *World {
	if w.err != nil {
		return w
	}
	if err := validName(id); err != nil {
		return w.fail(fmt.Errorf("AddMember(%q): %v", id, err))
	}
	if _, ok := w.current[id]; ok {
		return w.fail(fmt.Errorf("AddMember(%q): a member with this id already exists", id))
	}
	cfg := w.cfg
	cfg.producerSet, cfg.commitSet, cfg.assignorsSet = false, false, false
	cfg.instanceID, cfg.static, cfg.explicit = "", false, nil
	if err := applyOptions(&cfg, opts, true); err != nil {
		return w.fail(fmt.Errorf("AddMember(%q): %v", id, err))
	}
	if err := cfg.protocolConflict(); err != nil {
		return w.fail(fmt.Errorf("AddMember(%q): %v", id, err))
	}
	if err := w.shareCheck(&cfg); err != nil { // share groups (share.go)
		return w.fail(fmt.Errorf("AddMember(%q): %v", id, err))
	}
	if cfg.share.group != "" && slices.ContainsFunc(opts, func(o Option) bool { return o.name == "WithListOffsets" }) {
		return w.fail(fmt.Errorf("AddMember(%q): WithListOffsets with ShareGroup(%q): a share consumer keeps no positions to reset; "+
			"its group's share.auto.offset.reset says where it starts (WithShareAutoOffsetReset)", id, cfg.share.group))
	}
	if cfg.static && cfg.instanceID == "" {
		cfg.instanceID = id
	}
	// A group.instance.id another member uses is not refused: as in Kafka,
	// the newer instance fences the older one (KIP-345; instance_ids.go).
	cfg.instanceID = expandHostname(cfg.instanceID, id)
	w.names = append(w.names, id)
	if cfg.share.group != "" {
		w.shareMembers++
	}
	w.startProcess(id, w.withGroupAssignor(cfg))
	return w
}

func validName(id string) error {
	if id == "" {
		return fmt.Errorf("an empty member id")
	}
	if id == Broker {
		return fmt.Errorf("%q is the broker's name", id)
	}
	if strings.ContainsAny(id, " \t\n") {
		return fmt.Errorf("a member id must have no spaces")
	}
	return nil
}

func (w *World) member(call, id string) (*member, error) {
	p, ok := w.current[id]
	if !ok {
		return nil, fmt.Errorf("%s(%q): no such member (members: %s)", call, id, w.memberList())
	}
	return p, nil
}

func (w *World) memberList() string {
	if len(w.names) == 0 {
		return "none yet"
	}
	return strings.Join(w.names, ", ")
}

// Close closes member id gracefully at its next poll(): it commits what
// auto-commit owes, revokes its partitions and sends LeaveGroup, so the group
// rebalances at once. A static member sends no LeaveGroup (KIP-345).
func (w *World) Close(id string) *World {
	if w.err != nil {
		return w
	}
	p, err := w.member("Close", id)
	if err != nil {
		return w.fail(err)
	}
	if !p.alive() {
		return w.fail(fmt.Errorf("Close(%q): the member is not running (it is %s)", id, p.lifecycle))
	}
	if p.lifecycle == LifecycleClosing { // close() twice is a no-op, as in Kafka
		return w
	}
	p.setLifecycle(LifecycleClosing)
	p.event(event.Event{Type: event.EvClose})
	if p.phase.inPoll() && p.phase != PhaseRevokeCommit && p.phase != PhaseInitProducerID && p.phase != PhaseFindCoordinator {
		p.close() // the application is in poll(): close() runs now
		w.refreshPauses()
	}
	return w
}

// Crash kills member id's process without a goodbye (kill -9): no commit,
// no LeaveGroup. The coordinator notices after session.timeout.ms. The
// process's operating system closes its socket, and the broker sees the
// connection close in the next tick: a share consumer's share session ends
// there and the records it had acquired are AVAILABLE again at once,
// without waiting for their acquisition lock (Kafka 4.4's
// ShareSessionCache$ClientConnectionDisconnectListener ->
// SharePartitionManager.releaseSession). Without a crash point the member
// crashes after 2 records of its current batch.
func (w *World) Crash(id string, at ...CrashPoint) *World {
	return w.stopProcess("Crash", id, false, at)
}

// Freeze stops member id's process without closing its connection: a
// process stopped by SIGSTOP (kill -STOP), a stop-the-world pause that
// never ends, a host lost (power cut, network partition) whose TCP
// connection the broker still holds open, with no FIN or RST to tell it.
// The member never sends again: the coordinator removes it after
// session.timeout.ms, and a share consumer's acquired records come back
// only when their acquisition lock (share.record.lock.duration.ms) runs out,
// which is what KIP-932's lock is for. Without a crash point the member
// freezes after 2 records of its current batch. For a consumer group
// member Freeze and Crash are the same (its coordinator does not watch
// connections). Restart starts a new process beside the frozen one, which
// stays stopped.
func (w *World) Freeze(id string, at ...CrashPoint) *World {
	return w.stopProcess("Freeze", id, true, at)
}

// stopProcess is Crash (frozen false) and Freeze (frozen true).
func (w *World) stopProcess(call, id string, frozen bool, at []CrashPoint) *World {
	if w.err != nil {
		return w
	}
	p, err := w.member(call, id)
	if err != nil {
		return w.fail(err)
	}
	if !p.alive() {
		return w.fail(fmt.Errorf("%s(%q): the member is not running (it %s at an earlier tick)", call, id, p.lifecycle))
	}
	cp := AfterRecords(2)
	if len(at) > 1 {
		return w.fail(fmt.Errorf("%s(%q): give at most one crash point, got %d", call, id, len(at)))
	}
	if len(at) == 1 {
		cp = at[0]
	}
	switch {
	case cp.kind == "":
		return w.fail(fmt.Errorf("%s(%q): an empty crash point; use AfterRecords, AtTick or Immediately", call, id))
	case cp.kind == event.ReasonAfterRecords && cp.arg < 0:
		return w.fail(fmt.Errorf("%s(%q, %s): the number of records must be at least 0", call, id, cp))
	case cp.kind == event.ReasonAtTick && cp.arg < w.now():
		return w.fail(fmt.Errorf("%s(%q, %s): tick %d is in the past (now %d)", call, id, cp, cp.arg, w.now()))
	}
	cp.frozen = frozen
	switch cp.kind {
	case event.ReasonImmediately:
		p.crash(cp)
		w.refreshPauses()
	case event.ReasonAtTick:
		w.plans = append(w.plans, crashAt{cp.arg, p, cp})
		sort.SliceStable(w.plans, func(i, j int) bool { return w.plans[i].tick < w.plans[j].tick })
	default:
		p.crashPlan = &cp
	}
	return w
}

// Restart starts a new process for member id. A crashed or closed member
// comes back (a static one with the same group.instance.id); a running member
// is first closed gracefully. A member stuck in a slow record is left running
// as a zombie on purpose (the orchestrator started a replacement during a
// long pause): its later requests meet the real fences.
func (w *World) Restart(id string) *World {
	if w.err != nil {
		return w
	}
	p, err := w.member("Restart", id)
	if err != nil {
		return w.fail(err)
	}
	switch {
	case !p.alive():
		w.startProcess(id, w.restartConfig(p))
	case p.inSlowRecord():
		p.setLifecycle(LifecycleReplaced)
		p.touch()
		p.event(event.Event{Type: event.EvZombie, Reason: event.ReasonReplaced})
		w.startProcess(id, w.restartConfig(p))
	default:
		if p.lifecycle != LifecycleClosing {
			p.setLifecycle(LifecycleClosing)
			p.event(event.Event{Type: event.EvClose})
		}
		p.restartOnClose = true
	}
	return w
}

// SlowNext makes the next record member id starts processing a slow one
// (15 ticks by default, more than max.poll.interval.ms). A member that is
// already processing a record (a poll starts the first record at once) makes
// the record after it slow.
func (w *World) SlowNext(id string) *World {
	if w.err != nil {
		return w
	}
	p, err := w.member("SlowNext", id)
	if err != nil {
		return w.fail(err)
	}
	if !p.alive() {
		return w.fail(fmt.Errorf("SlowNext(%q): the member is not running (it is %s)", id, p.lifecycle))
	}
	p.slowNext = true
	return w
}

// SetAssignor changes partition.assignment.strategy for the member processes
// started from now on (AddMember, Restart), as a changed consumer
// configuration does in Kafka: running processes keep theirs. So that new
// processes can join the running group, the assignor the group uses now is
// kept after the given ones until the group has switched (Kafka's rolling
// upgrade, KIP-429): the group votes for the new assignor once every member
// lists it, and a member that still lists an eager assignor uses the eager
// protocol, so eager to cooperative takes two rolling bounces.
func (w *World) SetAssignor(a Assignor, more ...Assignor) *World {
	if w.err != nil {
		return w
	}
	list, err := assignorList("SetAssignor", a, more)
	if err != nil {
		return w.fail(err)
	}
	w.cfg.assignors = list
	w.record(event.Event{Type: event.EvConfig, Member: Broker, Setting: event.SettingAssignor, Assignor: list[0].Name()}.
		WithPartitions(assignorNames(list)))
	return w
}

// restartConfig is the configuration of a restarted member: its own, with
// the world's current partition.assignment.strategy unless the member was
// given its own.
func (w *World) restartConfig(p *member) config {
	cfg := p.cfg
	if !cfg.assignorsSet {
		cfg.assignors = w.cfg.assignors
	}
	return w.withGroupAssignor(cfg)
}

// withGroupAssignor keeps, for a process started with the world's strategy
// list, the assignor the group uses now while the list lacks it and the group
// has members (the first step of Kafka's rolling upgrade): so a new process
// can join a group that has not switched yet.
func (w *World) withGroupAssignor(cfg config) config {
	g := w.group()
	if cfg.assignorsSet || g == nil || g.ProtocolName() == "" || g.Size() == 0 {
		return cfg
	}
	cur := g.ProtocolName()
	for _, a := range cfg.assignors {
		if a.Name() == cur {
			return cfg
		}
	}
	for _, p := range w.procs {
		for _, a := range p.cfg.assignors {
			if a.Name() == cur {
				cfg.assignors = append(append([]Assignor(nil), cfg.assignors...), a)
				return cfg
			}
		}
	}
	return cfg
}

// SetIsolation switches the audit reader's isolation.level from this tick on.
func (w *World) SetIsolation(l IsolationLevel) *World {
	if w.err != nil {
		return w
	}
	if l != ReadCommitted && l != ReadUncommitted {
		return w.fail(fmt.Errorf("SetIsolation(%d): unknown isolation level; use kgviz.ReadCommitted or kgviz.ReadUncommitted", int(l)))
	}
	w.cfg.isolation = l
	w.record(event.Event{Type: event.EvConfig, Member: Broker, Setting: event.SettingIsolation, Isolation: l})
	return w
}

// LoseNextProduceResponse drops the answer to member id's next Produce
// request on its way back (the record is written; the producer does not know).
func (w *World) LoseNextProduceResponse(id string) *World {
	if w.err != nil {
		return w
	}
	p, err := w.member("LoseNextProduceResponse", id)
	if err != nil {
		return w.fail(err)
	}
	if !p.alive() {
		return w.fail(fmt.Errorf("LoseNextProduceResponse(%q): the member is not running (it is %s)", id, p.lifecycle))
	}
	p.loseNextProduce = true
	return w
}

// RunFor advances the world n ticks.
func (w *World) RunFor(n int) *World {
	if w.err != nil {
		return w
	}
	if n < 0 {
		return w.fail(fmt.Errorf("RunFor(%d): a negative tick count", n))
	}
	for i := 0; i < n && w.err == nil; i++ {
		w.Step()
	}
	return w
}

// RunUntil advances the world until cond holds (checked before every tick),
// or fails after the run limit (WithRunLimit, 10000 ticks by default). A
// condition that names a member checks that the member exists, and a
// condition that can no longer hold (Stable() with no member running) fails
// at once, saying why.
func (w *World) RunUntil(cond Condition) *World {
	if w.err != nil {
		return w
	}
	if cond.check == nil {
		return w.fail(fmt.Errorf("RunUntil: an empty condition; use kgviz.Stable(), kgviz.Tick(n), ..."))
	}
	for _, m := range cond.members {
		if _, ok := w.current[m]; !ok {
			return w.fail(fmt.Errorf("RunUntil(%s): no such member %q (members: %s)", cond.desc, m, w.memberList()))
		}
	}
	for _, r := range cond.records {
		if !w.validRecord(r) {
			return w.fail(fmt.Errorf("RunUntil(%s): no input record %q (records are named partition.offset, like %s.0 to %s.%d)",
				cond.desc, r, w.Partitions()[0], w.Partitions()[len(w.inputTPs)-1], w.cfg.recordsPerPartition-1))
		}
	}
	w.runFrom = w.events.Len()
	st := &condState{from: w.runFrom}
	start := w.now()
	for !cond.check(w, st) {
		if cond.impossible != nil {
			if why := cond.impossible(w); why != "" {
				return w.fail(fmt.Errorf("RunUntil(%s): cannot be reached at tick %d: %s", cond.desc, w.now(), why))
			}
		}
		if w.now()-start >= w.cfg.runLimit {
			return w.fail(fmt.Errorf("RunUntil(%s): not reached within %d ticks (from tick %d to %d)", cond.desc, w.cfg.runLimit, start, w.now()))
		}
		w.Step()
		if w.err != nil {
			return w
		}
	}
	return w
}

// Step advances the logical clock by one tick:
//
//  1. crash points set for this tick (AtTick) take effect;
//  2. the messages sent in the previous tick arrive, heartbeats last, and
//     then the broker sees the connections of the processes that ended in
//     the previous tick close (a share session's records released);
//  3. due timers fire (session, rebalance and sync timeouts, transaction
//     timeouts, a producer's request timeout and retries);
//  4. every running member's heartbeat thread sends its heartbeat;
//  5. every running member's application thread takes one step;
//  6. every heartbeat thread checks max.poll.interval.ms.
func (w *World) Step() *World {
	if w.err != nil {
		return w
	}
	w.clock.Advance()
	for len(w.plans) > 0 && w.plans[0].tick <= w.now() {
		c := w.plans[0]
		w.plans = w.plans[1:]
		if c.p.alive() {
			c.p.crash(c.cp)
		}
	}
	w.net.deliverDue()
	w.closeConnections()
	w.clock.FireDue()
	w.pruneRunning()
	for _, p := range w.running {
		if p.alive() {
			p.heartbeat()
		}
	}
	for i := 0; i < len(w.running); i++ { // a process started during a step steps too
		if p := w.running[i]; p.alive() {
			p.step()
		}
	}
	for _, p := range w.running {
		if p.alive() {
			p.checkPollTimeout()
		}
	}
	w.refreshPauses()
	if w.afterStep != nil {
		w.afterStep()
	}
	return w
}

// pruneRunning drops the processes that ended from the running list.
func (w *World) pruneRunning() {
	// Nothing is written before the first process that is gone (most
	// ticks: none), so the list of hundreds of processes is not rewritten
	// at every tick.
	i := 0
	for i < len(w.running) && w.running[i].alive() {
		i++
	}
	if i == len(w.running) {
		return
	}
	kept := w.running[:i]
	for _, p := range w.running[i+1:] {
		if p.alive() {
			kept = append(kept, p)
		}
	}
	clear(w.running[len(kept):])
	w.running = kept
}

// group returns the classic group "billing" on the broker (nil before the
// first JoinGroup, or while it is a consumer group).
func (w *World) group() *broker.ClassicGroup { return w.broker.Groups().Classic(GroupID) }

// consumerGroup returns the consumer group "billing" (KIP-848) on the broker
// (nil unless Consumer members made it one).
func (w *World) consumerGroup() *broker.ConsumerGroup { return w.broker.Groups().Consumer(GroupID) }

// Generation returns the group's current generation (0 before the first
// rebalance); for a consumer group (KIP-848), its group epoch: the last one
// the coordinator recorded (fold.Generations).
func (w *World) Generation() int {
	if gens := w.Fold().Generations(); len(gens) > 0 {
		return gens[len(gens)-1].Generation
	}
	return 0
}

// liveGeneration is Generation read from the coordinator itself, for the
// conditions checked at every tick (GenerationAtLeast) that must not fold
// every event again; TestFoldAnswersWhatTheBrokerHolds checks that the two
// agree.
func (w *World) liveGeneration() int {
	if g := w.group(); g != nil {
		return g.Generation()
	}
	if g := w.consumerGroup(); g != nil {
		return g.GroupEpoch()
	}
	return 0
}

// GroupState returns the group coordinator's state: Empty, PreparingRebalance,
// CompletingRebalance, Stable or Dead; for a consumer group (KIP-848), Empty,
// Assigning, Reconciling or Stable (the last one it recorded, fold.GroupState).
func (w *World) GroupState() GroupState { return w.Fold().GroupState() }

// Leader returns the name of the group leader's member ("" if none), as the
// coordinator's events say (fold.Leader).
func (w *World) Leader() string { return w.Fold().Leader() }

// Assignment returns, for every running member in the group, the sorted short
// names of the partitions it owns ("o0", "p1"), as the members see it.
func (w *World) Assignment() map[string][]string {
	out := map[string][]string{}
	for _, name := range w.names {
		p := w.current[name]
		if !p.alive() || p.group.memberID == "" || !p.group.assigned {
			continue
		}
		out[name] = w.shortNames(p.owned)
	}
	return out
}

// Committed returns the committed offset of an input partition ("o2" or
// "orders-2"), or -1 if none was committed (as Kafka's OffsetFetch says).
func (w *World) Committed(partition string) (int, error) {
	tp, ok := w.parsePartition(partition)
	if !ok {
		return 0, fmt.Errorf("Committed(%q): no such input partition (have %s)", partition, strings.Join(w.Partitions(), ", "))
	}
	if off, ok := w.Fold().Committed()[w.short(tp)]; ok {
		return off, nil
	}
	return -1, nil
}

// MemberID returns the current group member id of member name ("C2-1"), "" if none.
func (w *World) MemberID(name string) string {
	if p, ok := w.current[name]; ok {
		return p.group.memberID
	}
	return ""
}

// Running says whether member name's newest process is running.
func (w *World) Running(name string) bool {
	p, ok := w.current[name]
	return ok && p.alive()
}

// Member returns the state of member name's newest process.
func (w *World) Member(name string) (MemberInfo, error) {
	p, err := w.member("Member", name)
	if err != nil {
		return MemberInfo{}, err
	}
	return p.info(), nil
}

// Join adds the members one at a time and lets the group settle after each
// (AddMember then RunUntil(Stable())), as the demos do.
func (w *World) Join(members ...string) *World {
	for _, m := range members {
		w.AddMember(m).RunUntil(Stable())
	}
	return w
}

// BrokerState returns the simulated broker, to read its partitions, groups
// and transactions (stepping it by hand would break the world).
func (w *World) BrokerState() *broker.Broker { return w.broker }

// String summarizes the world on one line; a world stopped by an error says so first.
func (w *World) String() string {
	var b strings.Builder
	if w.err != nil {
		fmt.Fprintf(&b, "STOPPED at tick %d: %v | ", w.now(), w.err)
	} else if w.now() == 0 {
		b.WriteString("time never advanced (no RunFor or RunUntil yet) | ")
	}
	fmt.Fprintf(&b, "tick %d, group %s generation %d, assignment %v", w.now(), w.GroupState(), w.Generation(), w.Assignment())
	return b.String()
}
