package kgviz

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Group states, as Kafka's ClassicGroupState names them.
const (
	GroupEmpty               = "Empty"
	GroupPreparingRebalance  = "PreparingRebalance"
	GroupCompletingRebalance = "CompletingRebalance"
	GroupStable              = "Stable"
	GroupDead                = "Dead"
)

type partOffset struct {
	tp     TopicPartition
	offset int
}

type joinReq struct {
	memberID, instanceID string
	topics               []string
	owned                []TopicPartition
	ownedGen             int
	protocol             string
}

type joinResp struct {
	memberID, leader string
	members          []MemberSubscription // only for the leader
	skipAssignment   bool                 // static leader replaced in Stable (KIP-345)
}

type syncReq struct {
	memberID, instanceID string
	plan                 map[string][]TopicPartition // only from the leader
}

type syncResp struct{ assignment []TopicPartition }

type leaveReq struct{ memberID, instanceID, reason string }

type commitReq struct {
	memberID, instanceID string
	offsets              []partOffset
	txnID                string
	pid                  int64
	epoch                int
}

type offsetFetchReq struct{ parts []TopicPartition }

type offsetFetchResp struct{ offsets []partOffset }

// groupMember is the coordinator's view of one member.
type groupMember struct {
	id, instanceID, name string
	proc                 *process
	sub                  MemberSubscription
	joinMsg              *message // a JoinGroup waiting for the join phase to complete
	syncMsg              *message // a SyncGroup waiting for the leader's plan
	awaitingSync         bool
	syncBy               int // the tick by which a SyncGroup must arrive
	lastHeard            int
	assignment           []TopicPartition
}

type pendingOffset struct {
	offset int
	pid    int64
}

// coordinator is the group coordinator of "billing" on B1 (Kafka's
// GroupMetadataManager with a ClassicGroup).
type coordinator struct {
	w              *World
	state          string
	generation     int
	leader         string
	protocol       string
	members        map[string]*groupMember
	order          []string // member ids in the order they were added
	instances      map[string]string
	rebalanceStart int
	committed      map[TopicPartition]int
	pending        map[TopicPartition]pendingOffset
	offsetsLog     *partitionLog
	seq            map[string]int
}

func newCoordinator(w *World) *coordinator {
	return &coordinator{
		w: w, state: GroupEmpty, members: map[string]*groupMember{}, instances: map[string]string{},
		committed: map[TopicPartition]int{}, pending: map[TopicPartition]pendingOffset{},
		offsetsLog: newPartitionLog("__consumer_offsets", internalPartition(GroupID)), seq: map[string]int{},
	}
}

func (c *coordinator) transition(state string) {
	if c.state == state {
		return
	}
	c.state = state
	c.w.record(Event{Type: EvGroupState, Member: Broker, State: state, Generation: c.generation, PID: -1})
}

func (c *coordinator) memberIDs() []string {
	ids := make([]string, 0, len(c.order))
	for _, id := range c.order {
		if _, ok := c.members[id]; ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// validateMember is ClassicGroup.validateMember: instance fencing first, then the member id.
func (c *coordinator) validateMember(memberID, instanceID string) (*groupMember, ErrorCode) {
	if instanceID != "" {
		if cur, ok := c.instances[instanceID]; ok && cur != memberID {
			return nil, FENCED_INSTANCE_ID
		}
	}
	m, ok := c.members[memberID]
	if !ok {
		return nil, UNKNOWN_MEMBER_ID
	}
	return m, NONE
}

func (c *coordinator) prepareRebalance(reason string) {
	if c.state == GroupPreparingRebalance || c.state == GroupDead {
		return
	}
	// Members parked in SyncGroup learn that a new rebalance started.
	for _, id := range c.memberIDs() {
		m := c.members[id]
		if m.syncMsg != nil {
			c.w.respond(m.syncMsg, REBALANCE_IN_PROGRESS, c.generation, nil)
			m.syncMsg = nil
		}
		m.awaitingSync = false
	}
	c.rebalanceStart = c.w.now
	c.transition(GroupPreparingRebalance)
	c.w.record(Event{Type: EvConfig, Member: Broker, Generation: c.generation, PID: -1, Detail: "rebalance: " + reason})
	// The rebalance notice: drawn as its own packet (a Heartbeat answer with
	// REBALANCE_IN_PROGRESS) to every member that has not joined yet.
	for _, id := range c.memberIDs() {
		m := c.members[id]
		if m.joinMsg == nil && m.proc != nil {
			c.w.send(&message{api: "Heartbeat", resp: true, from: Broker, to: m.name, proc: m.proc, err: REBALANCE_IN_PROGRESS, gen: c.generation})
		}
	}
	c.maybeCompleteJoin()
}

func (c *coordinator) rebalanceTimeout() int {
	t := 0
	for _, m := range c.members {
		if m.proc != nil && m.proc.cfg.maxPollInterval > t {
			t = m.proc.cfg.maxPollInterval
		}
	}
	if t == 0 {
		t = c.w.cfg.maxPollInterval
	}
	return t
}

func (c *coordinator) allJoined() bool {
	for _, m := range c.members {
		if m.joinMsg == nil {
			return false
		}
	}
	return true
}

func (c *coordinator) maybeCompleteJoin() {
	if c.state != GroupPreparingRebalance {
		return
	}
	// The rebalance timeout counts from the member's side: it gets the notice
	// one tick after the rebalance starts and its JoinGroup takes one more.
	if c.allJoined() || c.w.now-c.rebalanceStart >= c.rebalanceTimeout()+2 {
		c.completeJoin()
	}
}

func (c *coordinator) completeJoin() {
	// Dynamic members that did not rejoin are removed; static members stay (KIP-345).
	for _, id := range c.memberIDs() {
		m := c.members[id]
		if m.joinMsg == nil && m.instanceID == "" {
			c.removeMember(m, "did not rejoin within the rebalance timeout", false)
		}
	}
	c.generation++
	if len(c.members) == 0 {
		c.leader = ""
		c.transition(GroupEmpty)
		return
	}
	if l, ok := c.members[c.leader]; !ok || l.joinMsg == nil {
		// The first member awaiting its join leads; if only static members
		// that did not rejoin are left, the current (or first) one stays
		// leader and the sync timeout will remove them.
		next := ""
		for _, id := range c.memberIDs() {
			if c.members[id].joinMsg != nil {
				next = id
				break
			}
		}
		if next == "" && !ok {
			next = c.memberIDs()[0]
		}
		if next != "" {
			c.leader = next
		}
	}
	c.protocol = c.w.assignor.Name()
	c.transition(GroupCompletingRebalance)
	lm := c.members[c.leader]
	c.w.record(Event{Type: EvLeader, Member: lm.name, MemberID: lm.id, Generation: c.generation, PID: -1})
	subs := c.subscriptions()
	syncBy := c.w.now + c.rebalanceTimeout() + 2
	for _, id := range c.memberIDs() {
		m := c.members[id]
		m.awaitingSync = true
		m.syncBy = syncBy
		if m.joinMsg == nil {
			continue
		}
		resp := &joinResp{memberID: m.id, leader: c.leader}
		if id == c.leader {
			resp.members = subs
		}
		c.w.respond(m.joinMsg, NONE, c.generation, resp)
		m.joinMsg = nil
	}
}

func (c *coordinator) subscriptions() []MemberSubscription {
	ids := c.memberIDs()
	sort.Strings(ids)
	subs := make([]MemberSubscription, 0, len(ids))
	for _, id := range ids {
		subs = append(subs, c.members[id].sub)
	}
	return subs
}

func (c *coordinator) newMemberID(name string) string {
	c.seq[name]++
	return name + "-" + strconv.Itoa(c.seq[name])
}

func (c *coordinator) onJoinGroup(msg *message) {
	req := msg.body.(*joinReq)
	if c.state == GroupDead {
		c.w.respond(msg, COORDINATOR_NOT_AVAILABLE, c.generation, nil)
		return
	}
	sub := MemberSubscription{InstanceID: req.instanceID, Topics: req.topics, Owned: req.owned, Generation: req.ownedGen}
	if req.memberID == "" {
		if req.instanceID != "" {
			if old, ok := c.instances[req.instanceID]; ok {
				c.replaceStaticMember(c.members[old], msg, sub)
				return
			}
		}
		id := c.newMemberID(msg.from)
		sub.MemberID = id
		m := &groupMember{id: id, instanceID: req.instanceID, name: msg.from, proc: msg.proc, sub: sub, joinMsg: msg, lastHeard: c.w.now}
		c.members[id] = m
		c.order = append(c.order, id)
		if req.instanceID != "" {
			c.instances[req.instanceID] = id
		}
		c.w.record(Event{Type: EvMemberAdded, Member: m.name, MemberID: id, Generation: c.generation, PID: -1, Detail: staticDetail(req.instanceID)})
		c.joined()
		return
	}
	m, code := c.validateMember(req.memberID, req.instanceID)
	if code != NONE {
		c.w.respond(msg, code, c.generation, nil)
		return
	}
	sub.MemberID = m.id
	m.sub, m.joinMsg, m.proc, m.lastHeard = sub, msg, msg.proc, c.w.now
	c.joined()
}

func (c *coordinator) joined() {
	switch c.state {
	case GroupEmpty, GroupStable, GroupCompletingRebalance:
		c.prepareRebalance("a member joined")
	case GroupPreparingRebalance:
		c.maybeCompleteJoin()
	}
}

func staticDetail(instanceID string) string {
	if instanceID == "" {
		return ""
	}
	return "group.instance.id=" + instanceID
}

// replaceStaticMember is KIP-345: a known group.instance.id with a new process
// gets a new member id and keeps its assignment; the old id is fenced.
func (c *coordinator) replaceStaticMember(old *groupMember, msg *message, sub MemberSubscription) {
	newID := c.newMemberID(msg.from)
	c.failParked(old, FENCED_INSTANCE_ID)
	delete(c.members, old.id)
	for i, id := range c.order {
		if id == old.id {
			c.order[i] = newID
		}
	}
	wasLeader := c.leader == old.id
	m := &groupMember{id: newID, instanceID: old.instanceID, name: msg.from, proc: msg.proc, lastHeard: c.w.now, assignment: old.assignment}
	sub.MemberID = newID
	m.sub = sub
	c.members[newID] = m
	c.instances[old.instanceID] = newID
	if wasLeader {
		c.leader = newID
	}
	c.w.record(Event{Type: EvMemberAdded, Member: m.name, MemberID: newID, Generation: c.generation, PID: -1,
		Detail: "static member " + old.instanceID + " replaces " + old.id + " (KIP-345): same assignment"})
	switch c.state {
	case GroupStable:
		// No rebalance, no new generation: answer at once with the current generation.
		m.awaitingSync = true
		m.syncBy = c.w.now + c.rebalanceTimeout() + 2
		c.w.respond(msg, NONE, c.generation, &joinResp{memberID: newID, leader: c.leader, skipAssignment: true})
	case GroupCompletingRebalance:
		m.joinMsg = msg
		c.prepareRebalance("a static member was replaced during CompletingRebalance")
	default:
		m.joinMsg = msg
		c.maybeCompleteJoin()
	}
}

func (c *coordinator) onSyncGroup(msg *message) {
	req := msg.body.(*syncReq)
	if c.state == GroupDead {
		c.w.respond(msg, COORDINATOR_NOT_AVAILABLE, c.generation, nil)
		return
	}
	if c.state == GroupEmpty {
		c.w.respond(msg, UNKNOWN_MEMBER_ID, c.generation, nil)
		return
	}
	m, code := c.validateMember(req.memberID, req.instanceID)
	if code != NONE {
		c.w.respond(msg, code, c.generation, nil)
		return
	}
	if msg.gen != c.generation {
		c.w.respond(msg, ILLEGAL_GENERATION, c.generation, nil)
		return
	}
	switch c.state {
	case GroupPreparingRebalance:
		c.w.respond(msg, REBALANCE_IN_PROGRESS, c.generation, nil)
	case GroupCompletingRebalance:
		m.syncMsg = msg
		if m.id != c.leader {
			return
		}
		// The coordinator stores the plan without looking inside it.
		for _, id := range c.memberIDs() {
			c.members[id].assignment = append([]TopicPartition(nil), req.plan[id]...)
		}
		c.transition(GroupStable)
		for _, id := range c.memberIDs() {
			mm := c.members[id]
			if mm.syncMsg != nil {
				mm.awaitingSync = false
				c.w.respond(mm.syncMsg, NONE, c.generation, &syncResp{assignment: mm.assignment})
				mm.syncMsg = nil
			}
		}
	case GroupStable:
		m.awaitingSync = false
		c.w.respond(msg, NONE, c.generation, &syncResp{assignment: m.assignment})
	}
}

func (c *coordinator) onLeaveGroup(msg *message) {
	req := msg.body.(*leaveReq)
	m, code := c.validateMember(req.memberID, req.instanceID)
	if code != NONE {
		c.w.respond(msg, code, c.generation, nil)
		return
	}
	c.w.respond(msg, NONE, c.generation, nil)
	c.removeMember(m, "LeaveGroup: "+req.reason, true)
}

// failParked answers a member's parked JoinGroup and SyncGroup with an error.
func (c *coordinator) failParked(m *groupMember, code ErrorCode) {
	if m.joinMsg != nil {
		c.w.respond(m.joinMsg, code, c.generation, nil)
		m.joinMsg = nil
	}
	if m.syncMsg != nil {
		c.w.respond(m.syncMsg, code, c.generation, nil)
		m.syncMsg = nil
	}
}

// removeMember drops a member and, unless the caller handles it, starts a rebalance.
func (c *coordinator) removeMember(m *groupMember, reason string, rebalance bool) {
	c.failParked(m, UNKNOWN_MEMBER_ID)
	delete(c.members, m.id)
	for i, id := range c.order {
		if id == m.id {
			c.order = append(c.order[:i:i], c.order[i+1:]...)
			break
		}
	}
	if m.instanceID != "" && c.instances[m.instanceID] == m.id {
		delete(c.instances, m.instanceID)
	}
	if c.leader == m.id {
		c.leader = ""
	}
	c.w.record(Event{Type: EvMemberRemoved, Member: m.name, MemberID: m.id, Generation: c.generation, PID: -1, Detail: reason})
	c.w.dirty = true
	if !rebalance {
		return
	}
	switch c.state {
	case GroupStable, GroupCompletingRebalance:
		c.prepareRebalance(m.id + " left the group")
	case GroupPreparingRebalance:
		c.maybeCompleteJoin()
	}
}

// validateCommit is ClassicGroup.validateOffsetCommit for OffsetCommit.
func (c *coordinator) validateCommit(req *commitReq, gen int, txn bool) ErrorCode {
	if c.state == GroupDead {
		return COORDINATOR_NOT_AVAILABLE
	}
	if gen < 0 && req.memberID == "" && c.state == GroupEmpty {
		return NONE // a simple (non-group) commit
	}
	if _, code := c.validateMember(req.memberID, req.instanceID); code != NONE {
		return code
	}
	if gen != c.generation {
		return ILLEGAL_GENERATION
	}
	if !txn && c.state == GroupCompletingRebalance {
		return REBALANCE_IN_PROGRESS
	}
	return NONE
}

func (c *coordinator) onOffsetCommit(msg *message) {
	req := msg.body.(*commitReq)
	code := c.validateCommit(req, msg.gen, false)
	if code == NONE {
		for _, po := range req.offsets {
			c.offsetsLog.appendRecord(LogRecord{Record: offsetRecordName(po), State: StateCommitted, PID: -1, Tick: c.w.now})
			c.w.record(Event{Type: EvAppend, Member: msg.from, Partition: c.offsetsLog.name, Offset: c.offsetsLog.hw() - 1, Record: offsetRecordName(po), PID: -1})
			c.commit(po, msg.from)
		}
	}
	c.w.respond(msg, code, c.generation, req)
}

func (c *coordinator) commit(po partOffset, by string) {
	c.committed[po.tp] = po.offset
	c.w.record(Event{Type: EvOffsetCommitted, Member: by, Partition: c.w.short(po.tp), Offset: po.offset, Generation: c.generation, PID: -1})
}

func offsetRecordName(po partOffset) string {
	return GroupID + "/" + po.tp.String() + "=" + strconv.Itoa(po.offset)
}

// onTxnOffsetCommit stores offsets as pending until the transaction's marker
// reaches __consumer_offsets. Fenced by member id and generation (KIP-447),
// with no group-state check.
func (c *coordinator) onTxnOffsetCommit(msg *message) {
	req := msg.body.(*commitReq)
	code := c.validateCommit(req, msg.gen, true)
	if code == NONE {
		code = c.w.txn.checkProducer(req.txnID, req.pid, req.epoch)
	}
	if code == NONE {
		e := c.offsetsLog.entry(req.pid)
		for _, po := range req.offsets {
			off := c.offsetsLog.appendRecord(LogRecord{Record: offsetRecordName(po), State: StateOpen, PID: req.pid, Epoch: req.epoch, Transactional: true, Tick: c.w.now})
			if e.txnFirst < 0 {
				e.txnFirst = off
			}
			e.txnOffset = append(e.txnOffset, off)
			e.epoch = req.epoch
			c.pending[po.tp] = pendingOffset{offset: po.offset, pid: req.pid}
			c.w.record(Event{Type: EvAppend, Member: msg.from, Partition: c.offsetsLog.name, Offset: off, Record: offsetRecordName(po), PID: req.pid, Epoch: req.epoch, State: "transactional"})
		}
	}
	c.w.respond(msg, code, c.generation, nil)
}

// completeTxnOffsets applies a marker written to __consumer_offsets.
func (c *coordinator) completeTxnOffsets(pid int64, commit bool, by string) {
	tps := make([]TopicPartition, 0)
	for tp, p := range c.pending {
		if p.pid == pid {
			tps = append(tps, tp)
		}
	}
	SortPartitions(tps)
	for _, tp := range tps {
		p := c.pending[tp]
		delete(c.pending, tp)
		if commit {
			c.commit(partOffset{tp, p.offset}, by)
		}
	}
}

// onOffsetFetch answers committed offsets; UNSTABLE_OFFSET_COMMIT while a
// transactional offset is pending for a requested partition (requireStable).
func (c *coordinator) onOffsetFetch(msg *message) {
	req := msg.body.(*offsetFetchReq)
	resp := &offsetFetchResp{}
	for _, tp := range req.parts {
		if _, ok := c.pending[tp]; ok {
			c.w.respond(msg, UNSTABLE_OFFSET_COMMIT, c.generation, nil)
			return
		}
		off, ok := c.committed[tp]
		if !ok {
			off = -1
		}
		resp.offsets = append(resp.offsets, partOffset{tp, off})
	}
	c.w.respond(msg, NONE, c.generation, resp)
}

// tick runs the coordinator's timers: implicit heartbeats, session expiry,
// the join phase's rebalance timeout and the sync timeout.
func (c *coordinator) tick() {
	now := c.w.now
	var expired []*groupMember
	for _, id := range c.order {
		m, ok := c.members[id]
		if !ok {
			continue
		}
		heard := m.proc != nil && m.proc.heartbeating() && (m.proc.memberID == m.id || m.proc.memberID == "")
		if heard || m.joinMsg != nil || m.syncMsg != nil { // a parked JoinGroup/SyncGroup keeps the member alive
			m.lastHeard = now
		} else if now-m.lastHeard >= m.sessionTimeout(c.w) {
			expired = append(expired, m)
		}
	}
	for _, m := range expired {
		c.removeMember(m, fmt.Sprintf("session timeout: not heard from for %d ticks", now-m.lastHeard), true)
	}
	if c.state == GroupPreparingRebalance {
		c.maybeCompleteJoin()
	}
	if c.state == GroupStable || c.state == GroupCompletingRebalance {
		var late []*groupMember
		for _, id := range c.order {
			if m, ok := c.members[id]; ok && m.awaitingSync && now >= m.syncBy {
				late = append(late, m)
			}
		}
		for i, m := range late {
			c.removeMember(m, "no SyncGroup within the rebalance timeout", i == len(late)-1)
		}
	}
}

func (m *groupMember) sessionTimeout(w *World) int {
	if m.proc != nil {
		return m.proc.cfg.sessionTimeout
	}
	return w.cfg.sessionTimeout
}

func planString(w *World, plan map[string][]TopicPartition) string {
	ids := make([]string, 0, len(plan))
	for id := range plan {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, id+" {"+w.shortList(plan[id])+"}")
	}
	return strings.Join(parts, " · ")
}
