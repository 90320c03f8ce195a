package kgviz

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// World is one simulated Kafka cluster: broker B1 with its partitions, the
// group coordinator of "billing", the transaction coordinator, the members of
// the group and the audit reader of "invoices". It is a pure state machine:
// nothing happens between calls, time advances only in RunFor and RunUntil,
// and the same calls give the same events, byte for byte.
//
// Calls chain. The first error (bad input, an unreachable RunUntil, an
// assignor that failed) is kept in Err; later calls then do nothing, so the
// world stays as it was when the error happened.
type World struct {
	cfg      config
	assignor Assignor
	now      int
	err      error
	events   []Event

	nextMsg  int
	inflight []*message

	topics   []topicSpec
	inputs   map[TopicPartition]*partitionLog
	invoices *partitionLog
	coord    *coordinator
	txn      *txnCoordinator

	procs   []*process          // every process ever started, in start order
	current map[string]*process // member name → its newest process
	names   []string            // member names in the order they were added
	holders map[TopicPartition]*process
	heldBy  map[*process][]TopicPartition
	// changedProcs: processes whose partitions or state changed since the last refreshHolders
	changedProcs []*process
	inputTPs     []TopicPartition
	tpIndex      map[TopicPartition]int
	// shortNames: input partition → the page's name ("o2")
	shortNames map[TopicPartition]string
	paused     map[TopicPartition]bool
	dirty      bool
	nextPID    int64
	actions    []scheduled
	runStart   int
}

type scheduled struct {
	tick int
	name string
	fn   func()
}

// NewWorld builds a world with the defaults of DEMOS.md, changed by opts.
// A bad option is reported by Err, and the world keeps the defaults.
func NewWorld(opts ...Option) *World {
	w := &World{cfg: defaultConfig()}
	cfg := defaultConfig()
	err := applyOptions(&cfg, opts, false)
	if err == nil && len(cfg.topics) == 0 {
		err = fmt.Errorf("NewWorld: an empty topic list: the group needs at least one input topic (WithTopic)")
	}
	if err == nil {
		w.cfg = cfg
	}
	w.init()
	w.err = err
	return w
}

func (w *World) init() {
	w.assignor = w.cfg.assignor
	w.topics = append([]topicSpec(nil), w.cfg.topics...)
	w.inputs = map[TopicPartition]*partitionLog{}
	w.current = map[string]*process{}
	w.holders = map[TopicPartition]*process{}
	w.heldBy = map[*process][]TopicPartition{}
	w.tpIndex = map[TopicPartition]int{}
	w.paused = map[TopicPartition]bool{}
	w.nextPID = 1000
	w.coord = newCoordinator(w)
	w.txn = newTxnCoordinator(w)
	w.invoices = newPartitionLog("invoices", 0)
	w.shortNames = map[TopicPartition]string{}
	for _, t := range w.topics {
		for p := 0; p < t.partitions; p++ {
			tp := TopicPartition{t.name, p}
			w.tpIndex[tp] = len(w.inputTPs)
			w.inputTPs = append(w.inputTPs, tp)
			w.shortNames[tp] = t.prefix + strconv.Itoa(p)
			log := newPartitionLog(t.name, p)
			for off := 0; off < w.cfg.recordsPerPartition; off++ {
				log.appendRecord(LogRecord{Record: t.prefix + strconv.Itoa(p) + "." + strconv.Itoa(off), State: StateCommitted, PID: -1})
			}
			w.inputs[tp] = log
		}
	}
	w.record(Event{Type: EvConfig, Member: Broker, PID: -1, Detail: "assignor=" + w.assignor.Name()})
	w.record(Event{Type: EvConfig, Member: Broker, PID: -1, Detail: "isolation.level=" + w.cfg.isolation.String()})
}

func (w *World) record(e Event) {
	e.Tick = w.now
	w.events = append(w.events, e)
}

// Err returns the first error the world met, or nil.
func (w *World) Err() error { return w.err }

// Now returns the current tick.
func (w *World) Now() int { return w.now }

// Events returns every event recorded so far, in order. The slice is a copy.
func (w *World) Events() []Event { return append([]Event(nil), w.events...) }

// Members returns the member names in the order they were added.
func (w *World) Members() []string { return append([]string(nil), w.names...) }

// Partitions returns the input partitions' short names in order ("o0" ... "p2").
func (w *World) Partitions() []string {
	var out []string
	for _, tp := range w.inputPartitions() {
		out = append(out, w.short(tp))
	}
	return out
}

// inputPartitions lists the input partitions in order (computed once).
func (w *World) inputPartitions() []TopicPartition { return w.inputTPs }

func (w *World) topicNames() []string {
	names := make([]string, 0, len(w.topics))
	for _, t := range w.topics {
		names = append(names, t.name)
	}
	sort.Strings(names)
	return names
}

func (w *World) topicCounts() map[string]int {
	m := make(map[string]int, len(w.topics))
	for _, t := range w.topics {
		m[t.name] = t.partitions
	}
	return m
}

// short names an input partition the page's way ("o2"); others as Kafka does.
func (w *World) short(tp TopicPartition) string {
	if s, ok := w.shortNames[tp]; ok {
		return s
	}
	return tp.String()
}

func (w *World) shortList(tps []TopicPartition) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = w.short(tp)
	}
	return strings.Join(s, " ")
}

func (w *World) parsePartition(name string) (TopicPartition, bool) {
	for _, tp := range w.inputPartitions() {
		if w.short(tp) == name || tp.String() == name {
			return tp, true
		}
	}
	return TopicPartition{}, false
}

// fail keeps the first error.
func (w *World) fail(err error) *World {
	if w.err == nil {
		w.err = err
	}
	return w
}

// AddMember starts a new member process (a consumer of orders and payments
// plus a producer to invoices) named id, e.g. "C2". It joins the group at
// once. Options: WithCommit, WithProducer, WithInstanceID or Static, timeouts.
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
	cfg.producerSet, cfg.commitSet = false, false
	cfg.instanceID, cfg.static = "", false
	if err := applyOptions(&cfg, opts, true); err != nil {
		return w.fail(fmt.Errorf("AddMember(%q): %v", id, err))
	}
	if cfg.static && cfg.instanceID == "" {
		cfg.instanceID = id
	}
	for _, name := range w.names {
		if p := w.current[name]; cfg.instanceID != "" && p.cfg.instanceID == cfg.instanceID {
			return w.fail(fmt.Errorf("AddMember(%q): group.instance.id %q is already used by %q", id, cfg.instanceID, name))
		}
	}
	w.names = append(w.names, id)
	w.startProcess(id, cfg)
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

func (w *World) member(call, id string) (*process, error) {
	p, ok := w.current[id]
	if !ok {
		known := strings.Join(w.names, ", ")
		if known == "" {
			known = "none yet"
		}
		return nil, fmt.Errorf("%s(%q): no such member (members: %s)", call, id, known)
	}
	return p, nil
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
	if !p.alive {
		return w.fail(fmt.Errorf("Close(%q): the member is not running", id))
	}
	if p.closing { // close() twice is a no-op, as in Kafka
		return w
	}
	p.closing = true
	w.record(Event{Type: EvClose, Member: id, MemberID: p.memberID, PID: -1})
	if p.phase.inPoll() && p.phase != phRevokeCommit {
		p.close() // the application is in poll(): close() runs now
		w.afterActions()
	}
	return w
}

// CrashPoint says when Crash takes effect.
type CrashPoint struct {
	afterRecords int
	atTick       int
	now          bool
	desc         string
}

// AfterRecords crashes the member after it has processed n records of its
// current batch (or of its next one, if it is not processing). n = 0 crashes
// right after the batch is polled (and, in commit-before mode, committed).
func AfterRecords(n int) CrashPoint {
	return CrashPoint{afterRecords: n, atTick: -1, desc: fmt.Sprintf("AfterRecords(%d)", n)}
}

// AtTick crashes the member at the start of tick t.
func AtTick(t int) CrashPoint {
	return CrashPoint{afterRecords: -1, atTick: t, desc: fmt.Sprintf("AtTick(%d)", t)}
}

// Immediately crashes the member now, wherever it is.
func Immediately() CrashPoint {
	return CrashPoint{afterRecords: -1, atTick: -1, now: true, desc: "Immediately()"}
}

// Crash kills member id's process without a goodbye: no commit, no
// LeaveGroup. The coordinator notices after session.timeout.ms. Without a
// crash point the member crashes after 2 records of its current batch.
func (w *World) Crash(id string, at ...CrashPoint) *World {
	if w.err != nil {
		return w
	}
	p, err := w.member("Crash", id)
	if err != nil {
		return w.fail(err)
	}
	if !p.alive {
		return w.fail(fmt.Errorf("Crash(%q): the member is not running (it crashed or closed at an earlier tick)", id))
	}
	cp := AfterRecords(2)
	if len(at) > 1 {
		return w.fail(fmt.Errorf("Crash(%q): give at most one crash point, got %d", id, len(at)))
	}
	if len(at) == 1 {
		cp = at[0]
	}
	switch {
	case cp.desc == "":
		return w.fail(fmt.Errorf("Crash(%q): an empty crash point; use AfterRecords, AtTick or Immediately", id))
	case cp.afterRecords < -1 || (cp.atTick < 0 && cp.afterRecords < 0 && !cp.now):
		return w.fail(fmt.Errorf("Crash(%q, %s): the number of records must be at least 0", id, cp.desc))
	case !cp.now && cp.afterRecords < 0 && cp.atTick < w.now:
		return w.fail(fmt.Errorf("Crash(%q, %s): tick %d is in the past (now %d)", id, cp.desc, cp.atTick, w.now))
	}
	if cp.now {
		p.crash("Crash(Immediately())")
		w.afterActions()
		return w
	}
	p.crashPlan = &cp
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
	case !p.alive:
		w.startProcess(id, p.cfg)
	case p.inSlowRecord():
		p.zombie = true
		p.touch()
		w.record(Event{Type: EvZombie, Member: id, MemberID: p.memberID, PID: -1, Detail: "replaced by a restart while stuck in a slow record; the old process keeps running"})
		w.startProcess(id, p.cfg)
	default:
		if !p.closing {
			p.closing = true
			w.record(Event{Type: EvClose, Member: id, MemberID: p.memberID, PID: -1})
		}
		p.restartAfterClose = true
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
	if !p.alive {
		return w.fail(fmt.Errorf("SlowNext(%q): the member is not running", id))
	}
	p.slowNext = true
	return w
}

// SetAssignor changes partition.assignment.strategy; it takes effect at the
// next rebalance.
func (w *World) SetAssignor(a Assignor) *World {
	if w.err != nil {
		return w
	}
	if a == nil {
		return w.fail(fmt.Errorf("SetAssignor(nil): an assignor is required, e.g. kgviz.CooperativeSticky"))
	}
	w.assignor = a
	w.record(Event{Type: EvConfig, Member: Broker, PID: -1, Detail: "assignor=" + a.Name()})
	return w
}

// SetIsolation switches the audit reader's isolation.level from this tick on.
func (w *World) SetIsolation(l IsolationLevel) *World {
	if w.err != nil {
		return w
	}
	if l != ReadCommitted && l != ReadUncommitted {
		return w.fail(fmt.Errorf("SetIsolation(%d): unknown isolation level", int(l)))
	}
	w.cfg.isolation = l
	w.record(Event{Type: EvConfig, Member: Broker, PID: -1, Detail: "isolation.level=" + l.String()})
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
	if !p.alive {
		return w.fail(fmt.Errorf("LoseNextProduceResponse(%q): the member is not running", id))
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
		w.Tick()
	}
	return w
}

// RunUntil advances the world until cond holds (checked before every tick),
// or fails after the run limit (WithRunLimit, 10000 ticks by default).
func (w *World) RunUntil(cond Condition) *World {
	if w.err != nil {
		return w
	}
	if cond.fn == nil {
		return w.fail(fmt.Errorf("RunUntil: an empty condition; use kgviz.Stable(), kgviz.Tick(n), ..."))
	}
	w.runStart = len(w.events)
	start := w.now
	for !cond.fn(w) {
		if w.now-start >= w.cfg.runLimit {
			return w.fail(fmt.Errorf("RunUntil(%s): not reached within %d ticks (from tick %d to %d)", cond.desc, w.cfg.runLimit, start, w.now))
		}
		w.Tick()
		if w.err != nil {
			return w
		}
	}
	return w
}

// Tick advances the logical clock by one tick: messages sent in the previous
// tick arrive, timers fire, and every running process takes one step.
func (w *World) Tick() *World {
	if w.err != nil {
		return w
	}
	w.now++
	for len(w.actions) > 0 && w.actions[0].tick <= w.now {
		a := w.actions[0]
		w.actions = w.actions[1:]
		a.fn()
	}
	for _, p := range w.procs {
		if p.alive && p.crashPlan != nil && p.crashPlan.atTick >= 0 && p.crashPlan.atTick <= w.now {
			p.crash("Crash(" + p.crashPlan.desc + ")")
		}
	}
	w.deliverDue()
	w.coord.tick()
	w.txn.tick()
	for i := 0; i < len(w.procs); i++ {
		if p := w.procs[i]; p.alive {
			p.step()
		}
	}
	for _, p := range w.procs {
		if p.alive {
			p.heartbeatThread()
		}
	}
	w.afterActions()
	return w
}

// afterActions brings derived state (who consumes which partition) up to date.
func (w *World) afterActions() {
	if w.dirty {
		w.dirty = false
		w.refreshHolders()
	}
}

// refreshHolders records partitions that stop (paused) or start (resumed)
// being consumed by a running member of the group. Only the partitions of
// processes that changed since the last call are looked at.
func (w *World) refreshHolders() {
	changed := w.changedProcs
	w.changedProcs = w.changedProcs[:0:0]
	if len(changed) == 0 {
		return
	}
	dirty := make(map[*process]bool, len(changed))
	var cand []int
	seen := map[int]bool{}
	add := func(tp TopicPartition) {
		if i, ok := w.tpIndex[tp]; ok && !seen[i] {
			seen[i] = true
			cand = append(cand, i)
		}
	}
	for _, p := range changed {
		p.changed = false
		dirty[p] = true
		for _, tp := range w.heldBy[p] {
			add(tp)
		}
		for _, tp := range p.owned {
			add(tp)
		}
	}
	sort.Ints(cand)
	sort.Slice(changed, func(i, j int) bool { return changed[i].seq < changed[j].seq })
	cur := map[TopicPartition]*process{} // what the changed processes consume now
	for _, p := range changed {
		if !p.alive || p.kicked || p.zombie || !p.joined {
			continue
		}
		for _, tp := range p.owned {
			if _, ok := p.positions[tp]; ok && cur[tp] == nil {
				cur[tp] = p
			}
		}
	}
	for _, i := range cand {
		tp := w.inputTPs[i]
		old := w.holders[tp]
		holder := old
		if old == nil || dirty[old] {
			holder = cur[tp]
		}
		if old == holder {
			continue
		}
		if old != nil {
			w.heldBy[old] = removeTP(w.heldBy[old], tp)
		}
		if holder == nil {
			delete(w.holders, tp)
			w.paused[tp] = true
			w.record(Event{Type: EvPaused, Member: old.name, MemberID: old.memberID, Partition: w.short(tp), Generation: old.generation, PID: -1})
			continue
		}
		w.holders[tp] = holder
		w.heldBy[holder] = append(w.heldBy[holder], tp)
		if w.paused[tp] {
			delete(w.paused, tp)
			w.record(Event{Type: EvResumed, Member: holder.name, MemberID: holder.memberID, Partition: w.short(tp), Generation: holder.generation, PID: -1})
		}
	}
}

func removeTP(tps []TopicPartition, tp TopicPartition) []TopicPartition {
	for i, t := range tps {
		if t == tp {
			return append(tps[:i:i], tps[i+1:]...)
		}
	}
	return tps
}

// Generation returns the group's current generation (0 before the first rebalance).
func (w *World) Generation() int { return w.coord.generation }

// GroupState returns the group coordinator's state: Empty, PreparingRebalance,
// CompletingRebalance, Stable or Dead.
func (w *World) GroupState() string { return w.coord.state }

// Leader returns the name of the group leader's member ("" if none).
func (w *World) Leader() string {
	if m, ok := w.coord.members[w.coord.leader]; ok {
		return m.name
	}
	return ""
}

// Assignment returns, for every running member in the group, the sorted short
// names of the partitions it owns ("o0", "p1"), as the members see it.
func (w *World) Assignment() map[string][]string {
	out := map[string][]string{}
	for _, name := range w.names {
		p := w.current[name]
		if !p.alive || p.memberID == "" || p.generation == 0 {
			continue
		}
		parts := make([]string, 0, len(p.owned))
		for _, tp := range p.owned {
			parts = append(parts, w.short(tp))
		}
		out[name] = parts
	}
	return out
}

// Committed returns the committed offset of an input partition ("o2" or
// "orders-2"), or -1 if none was committed.
func (w *World) Committed(partition string) (int, error) {
	tp, ok := w.parsePartition(partition)
	if !ok {
		return 0, fmt.Errorf("Committed(%q): no such input partition (have %s)", partition, strings.Join(w.Partitions(), ", "))
	}
	if off, ok := w.coord.committed[tp]; ok {
		return off, nil
	}
	return -1, nil
}

// MemberID returns the current group member id of member name ("C2-1"), "" if none.
func (w *World) MemberID(name string) string {
	if p, ok := w.current[name]; ok {
		return p.memberID
	}
	return ""
}

// Running says whether member name's newest process is running.
func (w *World) Running(name string) bool {
	p, ok := w.current[name]
	return ok && p.alive
}

// Join adds the members one at a time and lets the group settle after each
// (AddMember then RunUntil(Stable())), as the demos do.
func (w *World) Join(members ...string) *World {
	for _, m := range members {
		w.AddMember(m).RunUntil(Stable())
	}
	return w
}
