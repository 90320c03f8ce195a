package broker

import (
	"slices"
	"strings"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// ClassicGroup is a group of the classic rebalance protocol on the
// coordinator (Kafka's ClassicGroup plus the classic parts of
// GroupMetadataManager): members, generation, leader, the protocol chosen by
// vote, and the join and sync phases.
//
// State transitions (ClassicGroupState.validPreviousStates):
// Empty ← PreparingRebalance; PreparingRebalance ← Stable,
// CompletingRebalance, Empty; CompletingRebalance ← PreparingRebalance;
// Stable ← CompletingRebalance.
type ClassicGroup struct {
	gc           *GroupCoordinator
	id           string
	state        kafka.GroupState
	generation   int
	leader       string
	protocolType string
	protocolName string
	members      map[string]*classicMember
	order        []string          // member ids in the order they were added
	instances    map[string]string // group.instance.id → member id
	// inOrder holds the members in that order too (inOrder[i].id ==
	// order[i]), so that the loops over every member of each rebalance
	// look none up in members; byID holds them sorted by member id, the
	// order of the leader's member list (currentMembers), kept sorted as
	// members come and go instead of sorted at every rebalance. Both change
	// only in addMember, replaceStaticMember and removeMember, and a
	// removal copies inOrder rather than shifting it in place, so a loop may
	// remove members from the inOrder it ranges over (completeJoin).
	inOrder []*classicMember
	byID    []*classicMember

	awaitingJoin   int            // members with a parked JoinGroup
	supported      map[string]int // protocol name → how many members support it (ClassicGroup.supportedProtocols)
	rebalanceStart int
	joinTimer      *clock.Timer
	byConn         []*classicMember // the member last validated on each connection (validateHeartbeater)
}

// classicMember is the coordinator's view of one member (ClassicGroupMember).
type classicMember struct {
	id, instanceID, clientID string
	sessionTimeout           int
	rebalanceTimeout         int
	protocolType             string
	protocols                []JoinGroupProtocol
	join                     *Envelope // a parked JoinGroup, answered when the join phase completes
	sync                     *Envelope // a parked SyncGroup, answered when the leader's plan arrives
	awaitingSync             bool
	assignment               []kafka.TopicPartition
	heard                    int          // the tick the member's last heartbeat (or group request) was sent
	deadline                 int          // heard + session.timeout.ms
	session                  *clock.Timer // fires at or before deadline, and is moved on lazily
	removed                  bool         // no longer in the group (left, removed or replaced)
	syncTimer                *clock.Timer
	// the parked requests themselves: join and sync point here while set,
	// so that parking a request allocates nothing
	joinEnv, syncEnv Envelope
}

func newClassicGroup(gc *GroupCoordinator, id string) *ClassicGroup {
	return &ClassicGroup{gc: gc, id: id, state: kafka.GroupEmpty, members: map[string]*classicMember{}, instances: map[string]string{},
		supported: map[string]int{}}
}

// ID returns the group.id.
func (g *ClassicGroup) ID() string { return g.id }

// Type returns GroupTypeClassic.
func (g *ClassicGroup) Type() GroupType { return GroupTypeClassic }

// State returns the group's state.
func (g *ClassicGroup) State() kafka.GroupState { return g.state }

// Generation returns the group's generation (0 before the first rebalance).
func (g *ClassicGroup) Generation() int { return g.generation }

// Leader returns the leader's member id ("" if none).
func (g *ClassicGroup) Leader() string { return g.leader }

// ProtocolName returns the assignor chosen for the current generation.
func (g *ClassicGroup) ProtocolName() string { return g.protocolName }

// Size returns the number of members.
func (g *ClassicGroup) Size() int { return len(g.members) }

// HasMember says whether member id is in the group.
func (g *ClassicGroup) HasMember(id string) bool { _, ok := g.members[id]; return ok }

// MemberClientID returns the client id of a member ("" if unknown).
func (g *ClassicGroup) MemberClientID(id string) string {
	if m, ok := g.members[id]; ok {
		return m.clientID
	}
	return ""
}

// MemberInstanceID returns the group.instance.id of a member ("" if none).
func (g *ClassicGroup) MemberInstanceID(id string) string {
	if m, ok := g.members[id]; ok {
		return m.instanceID
	}
	return ""
}

// MemberIDs returns the member ids in the order they joined.
func (g *ClassicGroup) MemberIDs() []string { return append([]string(nil), g.order...) }

// Members iterates over the member ids in the order they joined (read only).
func (g *ClassicGroup) Members() []string { return g.order }

func (g *ClassicGroup) b() *Broker { return g.gc.b }

func (g *ClassicGroup) now() int { return g.b().clock.Now() }

func (g *ClassicGroup) transition(s kafka.GroupState) {
	if g.state == s {
		return
	}
	g.state = s
	e := event.Event{Type: event.EvGroupState, Member: g.b().name, GroupState: s, Generation: g.generation}
	if s == kafka.GroupCompletingRebalance {
		e.Assignor = g.protocolName
	}
	g.b().record(e)
}

// validateMember is ClassicGroup.validateMember: instance fencing first,
// then the member id.
func (g *ClassicGroup) validateMember(memberID, instanceID string) (*classicMember, kafka.ErrorCode) {
	if instanceID != "" {
		if cur, ok := g.instances[instanceID]; ok && cur != memberID {
			return nil, kafka.FENCED_INSTANCE_ID
		}
	}
	m, ok := g.members[memberID]
	if !ok {
		return nil, kafka.UNKNOWN_MEMBER_ID
	}
	return m, kafka.NONE
}

// supportsProtocols is ClassicGroup.supportsProtocols: an Empty group takes
// any protocol; otherwise one of the member's protocols must be supported
// by every member.
func (g *ClassicGroup) supportsProtocols(protocolType string, protocols []JoinGroupProtocol) bool {
	if len(g.members) == 0 {
		return protocolType != "" && len(protocols) > 0
	}
	if protocolType != g.protocolType {
		return false
	}
	for _, p := range protocols {
		if g.supported[p.Name] == len(g.members) {
			return true
		}
	}
	return false
}

// setProtocols replaces a member's protocols, keeping the support counts.
func (g *ClassicGroup) setProtocols(m *classicMember, req *JoinGroupRequest) {
	for _, p := range m.protocols {
		g.supported[p.Name]--
	}
	m.update(req)
	for _, p := range m.protocols {
		g.supported[p.Name]++
	}
}

// dropProtocols removes a member's protocols from the support counts.
func (g *ClassicGroup) dropProtocols(m *classicMember) {
	for _, p := range m.protocols {
		g.supported[p.Name]--
	}
}

// matches says whether a JoinGroup carries the member's current protocols and metadata.
func (m *classicMember) matches(protocols []JoinGroupProtocol) bool {
	if len(protocols) != len(m.protocols) {
		return false
	}
	for i := range protocols {
		if !protocols[i].equal(m.protocols[i]) {
			return false
		}
	}
	return true
}

// vote is ClassicGroupMember.vote: the member's first protocol among the candidates.
func (m *classicMember) vote(candidates map[string]bool) string {
	for _, p := range m.protocols {
		if candidates[p.Name] {
			return p.Name
		}
	}
	return ""
}

// selectProtocol is ClassicGroup.selectProtocol: among the protocols every
// member supports, each member votes for the first of its own list; the one
// with most votes wins (ties: java.util.HashMap order, as Kafka's stream max).
func (g *ClassicGroup) selectProtocol() string {
	candidates := map[string]bool{}
	first := g.inOrder[0]
	only := ""
	for _, p := range first.protocols {
		if g.supported[p.Name] == len(g.members) {
			candidates[p.Name] = true
			only = p.Name
		}
	}
	if len(candidates) == 1 {
		return only // every vote goes to the one candidate
	}
	votes := map[string]int{}
	var names []string
	for _, m := range g.inOrder {
		v := m.vote(candidates)
		if _, ok := votes[v]; !ok {
			names = append(names, v)
		}
		votes[v]++
	}
	best, n := "", -1
	for _, name := range kafka.JavaHashMapOrder(names) {
		if votes[name] > n {
			best, n = name, votes[name]
		}
	}
	return best
}

// rebalanceTimeout is the group's rebalance timeout: the largest of its
// members' (each member's max.poll.interval.ms, sent in JoinGroup).
func (g *ClassicGroup) rebalanceTimeout() int {
	t := 0
	for _, m := range g.inOrder {
		if m.rebalanceTimeout > t {
			t = m.rebalanceTimeout
		}
	}
	return t
}

// heardFrom restarts a member's session: the member was heard from at tick
// sent (a request sent then; every message takes one tick), so it is removed
// at sent + session.timeout.ms unless it is heard from again.
func (g *ClassicGroup) heardFrom(m *classicMember, sent int) {
	m.heard = sent
	m.deadline = sent + m.sessionTimeout
	switch {
	case m.session == nil:
		id := m.id
		m.session = g.b().clock.Schedule(m.deadline, "session "+id, func() { g.sessionExpired(id, m) })
	case !m.session.Pending() || m.session.At() > m.deadline:
		m.session.Reset(m.deadline)
	}
	// A timer set for an earlier deadline moves on when it fires
	// (sessionExpired): a heartbeat every tick costs no timer work.
}

// sessionExpired removes a member not heard from for session.timeout.ms. A
// member with a parked JoinGroup or SyncGroup is kept alive.
//
// The timer is the member's own (heardFrom made it for m, member id id):
// m leaves g.members only through removeMember and replaceStaticMember,
// which mark it removed (and stop its timer), and member ids are never
// reused, so while m is not removed it is the group's member of that id,
// without a lookup (hundreds of members' timers fire every few ticks). A
// removed m is looked up by id, as every timer was before.
func (g *ClassicGroup) sessionExpired(id string, m *classicMember) {
	if m.removed {
		var ok bool
		if m, ok = g.members[id]; !ok {
			return
		}
	}
	if g.now() < m.deadline {
		m.session.Reset(m.deadline)
		return
	}
	if m.join != nil || m.sync != nil {
		g.heardFrom(m, g.now())
		return
	}
	g.removeMember(m, event.Event{Reason: event.ReasonSessionTimeout, Ticks: g.now() - m.heard}, true)
}

// addMember adds a member with a parked JoinGroup.
func (g *ClassicGroup) addMember(env *Envelope, req *JoinGroupRequest, id string) *classicMember {
	m := &classicMember{id: id, instanceID: req.GroupInstanceID, clientID: env.From}
	g.setProtocols(m, req)
	g.members[id] = m
	g.order = append(g.order, id)
	g.inOrder = append(g.inOrder, m)
	g.insertByID(m)
	if m.instanceID != "" {
		g.instances[m.instanceID] = id
	}
	if len(g.members) == 1 {
		g.protocolType = req.ProtocolType
	}
	g.b().record(event.Event{Type: event.EvMemberAdded, Member: env.From, MemberID: id, Generation: g.generation, InstanceID: m.instanceID})
	return m
}

func (m *classicMember) update(req *JoinGroupRequest) {
	m.sessionTimeout, m.rebalanceTimeout = req.SessionTimeout, req.RebalanceTimeout
	m.protocolType = req.ProtocolType
	// The request's own list, capped: a message is never changed once sent.
	m.protocols = nil
	if n := len(req.Protocols); n > 0 {
		m.protocols = req.Protocols[:n:n]
	}
}

// forget drops what a member removed from the group still points to of the
// group's messages: its JoinGroup's protocols (whose metadata carries its
// previous assignment), its share of a plan, its last JoinGroup and
// SyncGroup (a leader's carries the whole plan). Nothing reads them once it
// is removed, but the member itself may still be referenced (by its
// session timer, by byConn): without this, a rolling restart would keep a
// plan alive for every member that ever left.
func (m *classicMember) forget() {
	m.protocols, m.assignment, m.joinEnv, m.syncEnv = nil, nil, Envelope{}, Envelope{}
}

func (g *ClassicGroup) park(m *classicMember, env *Envelope) {
	if m.join == nil {
		g.awaitingJoin++
	}
	m.joinEnv = *env
	m.join = &m.joinEnv
}

func (g *ClassicGroup) unparkJoin(m *classicMember) *Envelope {
	e := m.join
	if e != nil {
		m.join = nil
		g.awaitingJoin--
		g.heardFrom(m, g.now())
	}
	return e
}

// handleJoin is GroupMetadataManager.classicGroupJoin.
func (g *ClassicGroup) handleJoin(env *Envelope, req *JoinGroupRequest) {
	fail := func(code kafka.ErrorCode) {
		g.b().reply(env, g.generation, &JoinGroupResponse{ErrorCode: code, MemberID: req.MemberID})
	}
	if g.state == kafka.GroupDead {
		fail(kafka.COORDINATOR_NOT_AVAILABLE)
		return
	}
	if !g.supportsProtocols(req.ProtocolType, req.Protocols) {
		fail(kafka.INCONSISTENT_GROUP_PROTOCOL)
		return
	}
	if req.MemberID == "" {
		if req.GroupInstanceID != "" {
			if old, ok := g.instances[req.GroupInstanceID]; ok {
				g.replaceStaticMember(g.members[old], env, req)
				return
			}
		}
		m := g.addMember(env, req, g.gc.newMemberID(env.From))
		g.heardFrom(m, g.now()-1)
		g.park(m, env)
		g.joined(event.ReasonMemberJoined, m.id)
		return
	}
	m, code := g.validateMember(req.MemberID, req.GroupInstanceID)
	if code != kafka.NONE {
		fail(code)
		return
	}
	g.heardFrom(m, g.now()-1)
	switch g.state {
	case kafka.GroupPreparingRebalance:
		g.setProtocols(m, req)
		g.park(m, env)
		g.maybeCompleteJoin()
	case kafka.GroupCompletingRebalance:
		if m.matches(req.Protocols) {
			// The same metadata (it may have missed the JoinGroup response):
			// the current generation again.
			g.b().reply(env, g.generation, g.joinResponse(m))
			return
		}
		g.setProtocols(m, req)
		g.park(m, env)
		g.prepareRebalance(event.ReasonMetadataChanged, m.id)
	case kafka.GroupStable:
		switch {
		case g.leader == m.id:
			g.setProtocols(m, req)
			g.park(m, env)
			g.prepareRebalance(event.ReasonLeaderRejoined, m.id)
		case !m.matches(req.Protocols):
			g.setProtocols(m, req)
			g.park(m, env)
			g.prepareRebalance(event.ReasonMetadataChanged, m.id)
		default:
			// A follower with unchanged metadata: the current generation again.
			g.b().reply(env, g.generation, g.joinResponse(m))
		}
	case kafka.GroupEmpty:
		g.setProtocols(m, req)
		g.park(m, env)
		g.prepareRebalance(event.ReasonMemberJoined, m.id)
	}
}

// joined starts or advances the join phase after a new member joined.
func (g *ClassicGroup) joined(reason event.Reason, memberID string) {
	switch g.state {
	case kafka.GroupEmpty, kafka.GroupStable, kafka.GroupCompletingRebalance:
		g.prepareRebalance(reason, memberID)
	case kafka.GroupPreparingRebalance:
		g.maybeCompleteJoin()
	}
}

// joinResponse is the JoinGroup answer for m in the current generation;
// only the leader gets the member list.
func (g *ClassicGroup) joinResponse(m *classicMember) *JoinGroupResponse {
	resp := &JoinGroupResponse{}
	g.fillJoinResponse(resp, m)
	return resp
}

// fillJoinResponse writes joinResponse's answer for m into resp (a zero one).
func (g *ClassicGroup) fillJoinResponse(resp *JoinGroupResponse, m *classicMember) {
	*resp = JoinGroupResponse{GenerationID: g.generation, ProtocolType: g.protocolType, ProtocolName: g.protocolName,
		Leader: g.leader, MemberID: m.id}
	if m.id == g.leader {
		resp.Members = g.currentMembers()
	}
}

// currentMembers lists the members with their metadata for the chosen
// protocol, sorted by member id, for the leader.
func (g *ClassicGroup) currentMembers() []JoinGroupMember {
	out := make([]JoinGroupMember, len(g.byID))
	for i, m := range g.byID {
		out[i] = JoinGroupMember{MemberID: m.id, GroupInstanceID: m.instanceID}
		for _, p := range m.protocols {
			if p.Name == g.protocolName {
				out[i].Metadata = p.Metadata
			}
		}
	}
	return out
}

// insertByID adds m to byID at its place by member id (ids are unique in a group).
func (g *ClassicGroup) insertByID(m *classicMember) {
	i, _ := slices.BinarySearchFunc(g.byID, m.id, byMemberID)
	g.byID = slices.Insert(g.byID, i, m)
}

// removeByID drops m from byID.
func (g *ClassicGroup) removeByID(m *classicMember) {
	if i, ok := slices.BinarySearchFunc(g.byID, m.id, byMemberID); ok {
		g.byID = slices.Delete(g.byID, i, i+1)
	}
}

func byMemberID(m *classicMember, id string) int { return strings.Compare(m.id, id) }

// replaceStaticMember is KIP-345: a known group.instance.id with an unknown
// member id gets a new member id and keeps its assignment; the old member id
// is fenced (FENCED_INSTANCE_ID).
func (g *ClassicGroup) replaceStaticMember(old *classicMember, env *Envelope, req *JoinGroupRequest) {
	newID := g.gc.newMemberID(env.From)
	g.failParked(old, kafka.FENCED_INSTANCE_ID)
	old.session.Stop()
	old.syncTimer.Stop()
	delete(g.members, old.id)
	old.removed = true
	m := &classicMember{id: newID, instanceID: old.instanceID, clientID: env.From, assignment: old.assignment}
	for i, id := range g.order {
		if id == old.id {
			g.order[i] = newID
			g.inOrder[i] = m
		}
	}
	g.removeByID(old)
	g.insertByID(m)
	g.dropProtocols(old)
	old.forget()
	g.setProtocols(m, req)
	g.members[newID] = m
	g.instances[old.instanceID] = newID
	if g.leader == old.id {
		g.leader = newID
	}
	g.heardFrom(m, g.now()-1)
	g.b().record(event.Event{Type: event.EvMemberAdded, Member: env.From, MemberID: newID, Generation: g.generation,
		InstanceID: old.instanceID, Replaces: old.id})
	switch g.state {
	case kafka.GroupStable:
		// A rebalance only if the vote of the next generation would choose
		// another protocol (updateStaticMemberThenRebalanceOrCompleteJoin).
		if g.selectProtocol() != g.protocolName {
			g.park(m, env)
			g.prepareRebalance(event.ReasonMetadataChanged, newID)
			return
		}
		// No rebalance, no new generation: the current generation at once; a
		// leader replaced this way gets the member list and is told to skip
		// the assignment (KIP-814; updateStaticMemberThenRebalanceOrCompleteJoin).
		resp := g.joinResponse(m)
		resp.SkipAssignment = m.id == g.leader
		g.awaitSync(m, g.b().at()+g.rebalanceTimeout())
		g.b().reply(env, g.generation, resp)
	case kafka.GroupCompletingRebalance:
		g.park(m, env)
		g.prepareRebalance(event.ReasonStaticReplaced, newID)
	default:
		g.park(m, env)
		g.maybeCompleteJoin()
	}
}

// prepareRebalance starts the join phase: members waiting in SyncGroup learn
// that a new rebalance started, the others learn it from their next
// heartbeat (REBALANCE_IN_PROGRESS).
func (g *ClassicGroup) prepareRebalance(reason event.Reason, memberID string) {
	if g.state == kafka.GroupPreparingRebalance || g.state == kafka.GroupDead {
		return
	}
	for _, m := range g.inOrder {
		if m.sync != nil {
			s := m.sync
			m.sync = nil
			g.heardFrom(m, g.now())
			g.b().reply(s, g.generation, &SyncGroupResponse{ErrorCode: kafka.REBALANCE_IN_PROGRESS})
		}
		m.awaitingSync = false
		m.syncTimer.Stop()
	}
	g.rebalanceStart = g.now()
	g.transition(kafka.GroupPreparingRebalance)
	g.b().record(event.Event{Type: event.EvRebalance, Member: g.b().name, Generation: g.generation, Reason: reason, MemberID: memberID})
	// The rebalance timeout counts from the moment the rebalance starts
	// (GroupMetadataManager.maybeCompleteJoinElseSchedule: the join timer is
	// set for rebalanceTimeoutMs then).
	at := g.b().at() + g.rebalanceTimeout()
	if g.joinTimer == nil {
		g.joinTimer = g.b().clock.Schedule(at, "join "+g.id, g.joinExpired)
	} else {
		g.joinTimer.Reset(at)
	}
	g.maybeCompleteJoin()
}

func (g *ClassicGroup) joinExpired() {
	if g.state == kafka.GroupPreparingRebalance {
		g.completeJoin()
	}
}

func (g *ClassicGroup) maybeCompleteJoin() {
	if g.state == kafka.GroupPreparingRebalance && g.awaitingJoin == len(g.members) {
		g.completeJoin()
	}
}

// completeJoin is completeClassicGroupJoin: dynamic members that did not
// rejoin are removed (static members stay, KIP-345), the generation goes up,
// the protocol is chosen by vote and every waiting member gets its answer;
// only the leader gets the member list.
func (g *ClassicGroup) completeJoin() {
	g.joinTimer.Stop()
	for _, m := range g.inOrder { // removeMember leaves this inOrder as it is
		if m.join == nil && m.instanceID == "" {
			g.removeMember(m, event.Event{Reason: event.ReasonJoinTimeout}, false)
		}
	}
	next := ""
	for _, m := range g.inOrder {
		if m.join != nil {
			next = m.id
			break
		}
	}
	if next == "" && len(g.members) > 0 {
		// Only static members that did not rejoin are left: Kafka does not
		// complete the join phase ("could not complete rebalance because no
		// members rejoined", GroupMetadataManager.completeClassicGroupJoin,
		// after ClassicGroup.maybeElectNewJoinedLeader found no member
		// awaiting its join); it stays PreparingRebalance, same generation,
		// and waits another rebalance timeout while their sessions run out.
		g.joinTimer.Reset(g.b().at() + g.rebalanceTimeout())
		return
	}
	g.generation++
	if len(g.members) == 0 {
		g.leader, g.protocolName = "", ""
		g.transition(kafka.GroupEmpty)
		return
	}
	if l, ok := g.members[g.leader]; !ok || l.join == nil {
		// the first member awaiting its join leads (maybeElectNewJoinedLeader)
		g.leader = next
	}
	g.protocolName = g.selectProtocol()
	g.transition(kafka.GroupCompletingRebalance)
	lm := g.members[g.leader]
	g.b().record(event.Event{Type: event.EvLeader, Member: lm.clientID, MemberID: lm.id, Generation: g.generation})
	syncBy := g.b().at() + g.rebalanceTimeout() // schedulePendingSync
	// the answers of this generation in one allocation: each is sent once
	// and never changed, and no two share a slot
	waiting := 0
	for _, m := range g.inOrder {
		if m.join != nil {
			waiting++
		}
	}
	resps := make([]JoinGroupResponse, waiting)
	for _, m := range g.inOrder {
		g.awaitSync(m, syncBy)
		// every member's session restarts, a static member's that did not
		// rejoin too (completeClassicGroupJoin reschedules every member's heartbeat)
		g.heardFrom(m, g.now())
		if env := g.unparkJoin(m); env != nil {
			resp := &resps[0]
			resps = resps[1:]
			g.fillJoinResponse(resp, m)
			g.b().reply(env, g.generation, resp)
		}
	}
}

// awaitSync expects a SyncGroup from m by tick at.
func (g *ClassicGroup) awaitSync(m *classicMember, at int) {
	m.awaitingSync = true
	if m.syncTimer == nil {
		id := m.id
		m.syncTimer = g.b().clock.Schedule(at, "sync "+id, func() { g.syncExpired(id) })
		return
	}
	m.syncTimer.Reset(at)
}

// syncExpired removes members that sent no SyncGroup within the rebalance
// timeout, then rebalances once.
func (g *ClassicGroup) syncExpired(string) {
	if g.state != kafka.GroupStable && g.state != kafka.GroupCompletingRebalance {
		return
	}
	now := g.now()
	var late []*classicMember
	for _, m := range g.inOrder {
		if m.awaitingSync && m.syncTimer != nil && m.syncTimer.At() <= now {
			late = append(late, m)
		}
	}
	for i, m := range late {
		g.removeMember(m, event.Event{Reason: event.ReasonSyncTimeout}, i == len(late)-1)
	}
}

// handleSync is GroupMetadataManager.classicGroupSync.
func (g *ClassicGroup) handleSync(env *Envelope, req *SyncGroupRequest) {
	fail := func(code kafka.ErrorCode) {
		g.b().reply(env, g.generation, &SyncGroupResponse{ErrorCode: code})
	}
	switch {
	case g.state == kafka.GroupDead:
		fail(kafka.COORDINATOR_NOT_AVAILABLE)
		return
	case g.state == kafka.GroupEmpty:
		fail(kafka.UNKNOWN_MEMBER_ID)
		return
	}
	m, code := g.validateMember(req.MemberID, req.GroupInstanceID)
	if code != kafka.NONE {
		fail(code)
		return
	}
	if req.GenerationID != g.generation {
		fail(kafka.ILLEGAL_GENERATION)
		return
	}
	switch g.state {
	case kafka.GroupPreparingRebalance:
		fail(kafka.REBALANCE_IN_PROGRESS)
	case kafka.GroupCompletingRebalance:
		m.syncEnv = *env
		m.sync = &m.syncEnv
		if m.id != g.leader {
			return
		}
		// The coordinator stores the plan without looking inside it.
		g.storePlan(req.Assignments)
		g.transition(kafka.GroupStable)
		waiting := 0
		for _, mm := range g.inOrder {
			if mm.sync != nil {
				waiting++
			}
		}
		// the answers in one allocation, one slot each, never changed
		resps := make([]SyncGroupResponse, waiting)
		for _, mm := range g.inOrder {
			if mm.sync != nil {
				s := mm.sync
				mm.sync = nil
				mm.awaitingSync = false
				mm.syncTimer.Stop()
				g.heardFrom(mm, g.now())
				resp := &resps[0]
				resps = resps[1:]
				*resp = SyncGroupResponse{ProtocolType: g.protocolType, ProtocolName: g.protocolName, Assignment: mm.assignment}
				g.b().reply(s, g.generation, resp)
			}
		}
	case kafka.GroupStable:
		m.awaitingSync = false
		m.syncTimer.Stop()
		// After a rebalance every follower whose SyncGroup comes after the
		// leader's lands here.
		resp := &SyncGroupResponse{ProtocolType: g.protocolType, ProtocolName: g.protocolName, Assignment: m.assignment}
		g.b().reply(env, g.generation, resp)
	}
}

// storePlan gives every member its share of the leader's plan: the last
// share the plan names it in, or nil (an empty share too); shares of ids
// that are not members are ignored. A share is the request's own list,
// capped so that an append to it cannot write into whatever follows it:
// a message is never changed once sent, so the coordinator need not copy it.
func (g *ClassicGroup) storePlan(plan []SyncGroupAssignment) {
	for _, m := range g.inOrder {
		m.assignment = nil
	}
	for _, a := range plan {
		if m, ok := g.members[a.MemberID]; ok {
			var own []kafka.TopicPartition
			if l := a.Assignment; len(l) > 0 {
				own = l[:len(l):len(l)]
			}
			m.assignment = own
		}
	}
}

// handleHeartbeat is GroupMetadataManager.classicGroupHeartbeat.
func (g *ClassicGroup) handleHeartbeat(env *Envelope, req *HeartbeatRequest) {
	code := kafka.NONE
	if g.state == kafka.GroupDead {
		code = kafka.COORDINATOR_NOT_AVAILABLE
	} else if m, c := g.validateHeartbeater(env.Conn, req); c != kafka.NONE {
		code = c
	} else if req.GenerationID != g.generation {
		code = kafka.ILLEGAL_GENERATION
	} else {
		switch g.state {
		case kafka.GroupEmpty:
			code = kafka.UNKNOWN_MEMBER_ID
		case kafka.GroupPreparingRebalance:
			g.heardFrom(m, g.now()-1)
			code = kafka.REBALANCE_IN_PROGRESS
		default:
			g.heardFrom(m, g.now()-1)
		}
	}
	g.b().reply(env, g.generation, heartbeatResponse(code))
}

// validateHeartbeater is validateMember with a per-connection memory of the
// member last validated there (byConn). A fast path, kept for its figure:
// every member heartbeats every tick, and without it each heartbeat costs
// two map lookups by string (instances, members); with the coordinator's
// group lookup (GroupCoordinator.Group) they were a quarter of the CPU of
// the 500-member static rolling restart (scripts/bench.sh guard,
// docs/performance.md). A remembered member is checked again in full (still
// in the group, same member id and group.instance.id).
func (g *ClassicGroup) validateHeartbeater(conn int, req *HeartbeatRequest) (*classicMember, kafka.ErrorCode) {
	if conn > 0 && conn < len(g.byConn) {
		if m := g.byConn[conn]; m != nil && !m.removed && m.id == req.MemberID && m.instanceID == req.GroupInstanceID {
			return m, kafka.NONE
		}
	}
	m, code := g.validateMember(req.MemberID, req.GroupInstanceID)
	if code == kafka.NONE && conn > 0 {
		for len(g.byConn) <= conn {
			g.byConn = append(g.byConn, nil)
		}
		g.byConn[conn] = m
	}
	return m, code
}

// handleLeave is GroupMetadataManager.classicGroupLeave for one member.
func (g *ClassicGroup) handleLeave(env *Envelope, req *LeaveGroupRequest) {
	resp := &LeaveGroupResponse{}
	var leaving []*classicMember
	for _, id := range req.Members {
		m, code := g.validateMember(id.MemberID, id.GroupInstanceID)
		if id.MemberID == "" && id.GroupInstanceID != "" {
			// an admin removal by group.instance.id
			if mid, ok := g.instances[id.GroupInstanceID]; ok {
				m, code = g.members[mid], kafka.NONE
			}
		}
		resp.Members = append(resp.Members, LeaveGroupMemberResponse{MemberID: id.MemberID, GroupInstanceID: id.GroupInstanceID, ErrorCode: code})
		// a member's error is its own: the response's error stays NONE
		// (classicGroupLeaveToClassicGroup; the client's LeaveGroupResponse.error()
		// reads the first member's, as ErrorOf does)
		if code == kafka.NONE {
			leaving = append(leaving, m)
		}
	}
	g.b().reply(env, g.generation, resp)
	for i, m := range leaving {
		reason := ""
		if i < len(req.Members) {
			reason = req.Members[i].Reason
		}
		g.removeMember(m, event.Event{Reason: event.ReasonLeaveGroup}.WithText(reason), true)
	}
}

// failParked answers a member's parked JoinGroup and SyncGroup with an error.
func (g *ClassicGroup) failParked(m *classicMember, code kafka.ErrorCode) {
	if env := g.unparkJoin(m); env != nil {
		g.b().reply(env, g.generation, &JoinGroupResponse{ErrorCode: code, MemberID: m.id})
	}
	if m.sync != nil {
		s := m.sync
		m.sync = nil
		g.b().reply(s, g.generation, &SyncGroupResponse{ErrorCode: code})
	}
}

// removeMember drops a member (why: the removal event's Reason, Ticks and
// Text) and, if rebalance, starts a rebalance.
func (g *ClassicGroup) removeMember(m *classicMember, why event.Event, rebalance bool) {
	g.failParked(m, kafka.UNKNOWN_MEMBER_ID)
	m.session.Stop()
	m.syncTimer.Stop()
	g.dropProtocols(m)
	delete(g.members, m.id)
	m.removed = true
	m.forget()
	for i, id := range g.order {
		if id == m.id {
			// copies, not shifts: callers may hold order (Members) or
			// range over inOrder (completeJoin)
			g.order = append(g.order[:i:i], g.order[i+1:]...)
			g.inOrder = append(g.inOrder[:i:i], g.inOrder[i+1:]...)
			break
		}
	}
	g.removeByID(m)
	if m.instanceID != "" && g.instances[m.instanceID] == m.id {
		delete(g.instances, m.instanceID)
	}
	if g.leader == m.id {
		g.leader = ""
	}
	why.Type, why.Member, why.MemberID, why.Generation, why.InstanceID = event.EvMemberRemoved, m.clientID, m.id, g.generation, m.instanceID
	g.b().record(why)
	if !rebalance {
		return
	}
	switch g.state {
	case kafka.GroupStable, kafka.GroupCompletingRebalance:
		g.prepareRebalance(event.ReasonMemberLeft, m.id)
	case kafka.GroupPreparingRebalance:
		g.maybeCompleteJoin()
	}
}

// offsetCommitted: a member's accepted OffsetCommit restarts its session
// while the group is Stable or PreparingRebalance ("in the old consumer
// group protocol, the offset commits maintain the session",
// OffsetMetadataManager.commitOffset: rescheduleClassicGroupMemberHeartbeat);
// a TxnOffsetCommit does not.
func (g *ClassicGroup) offsetCommitted(memberID string) {
	if m, ok := g.members[memberID]; ok && (g.state == kafka.GroupStable || g.state == kafka.GroupPreparingRebalance) {
		g.heardFrom(m, g.now()-1)
	}
}

// validateOffsetCommit is ClassicGroup.validateOffsetCommit: fenced by member
// and generation; a plain OffsetCommit also waits out CompletingRebalance
// (a TxnOffsetCommit has no state check, KIP-447).
func (g *ClassicGroup) validateOffsetCommit(memberID, instanceID string, gen int, txn bool) kafka.ErrorCode {
	if g.state == kafka.GroupDead {
		return kafka.COORDINATOR_NOT_AVAILABLE
	}
	if gen < 0 && memberID == "" && g.state == kafka.GroupEmpty {
		return kafka.NONE // a simple (non-group) commit
	}
	if _, code := g.validateMember(memberID, instanceID); code != kafka.NONE {
		return code
	}
	if gen != g.generation {
		return kafka.ILLEGAL_GENERATION
	}
	if !txn && g.state == kafka.GroupCompletingRebalance {
		return kafka.REBALANCE_IN_PROGRESS
	}
	return kafka.NONE
}
