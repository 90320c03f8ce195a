package broker

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/kgviz/modern"
)

// ConsumerGroup is a group of the consumer group protocol (KIP-848) on the
// coordinator: Kafka 4.1.1's ConsumerGroup with the consumer-protocol parts
// of GroupMetadataManager (consumerGroupHeartbeat, consumerGroupLeave, the
// session and rebalance timers).
//
// There is no join phase and no leader. Every heartbeat that changes the
// group's membership or subscriptions bumps the group epoch; the heartbeat
// that finds the group epoch ahead of the target assignment epoch computes
// the new target assignment with the server-side assignor
// (TargetAssignmentBuilder: modern.BuildTargetAssignment); and every
// heartbeat reconciles its member alone towards the target
// (CurrentAssignmentBuilder: modern.ReconcileMember): a member first revokes
// what moves away, staying at its epoch; it gets a partition only once no
// other member holds it; it moves to the target epoch on its own. The other
// members go on consuming what they keep: no global barrier.
//
// State (ConsumerGroup.maybeUpdateGroupState): Empty without members,
// Assigning while the group epoch is ahead of the target assignment epoch,
// Reconciling while a member is not STABLE at the target epoch, Stable.
//
// The coordinator's writes to __consumer_offsets (Kafka's records) are not
// kept; where their replay order decides something (the iteration order of
// the members, which the assignors' tie-breaks follow) it is followed
// (GroupMemberOrder.Put for every member metadata or current assignment
// record, Remove for a member's tombstones).
type ConsumerGroup struct {
	gc              *GroupCoordinator
	id              string
	state           kafka.GroupState
	groupEpoch      int
	assignmentEpoch int // the target assignment epoch
	members         map[string]*consumerMember
	order           modern.GroupMemberOrder      // ConsumerGroup.members()'s iteration order
	static          map[string]string            // group.instance.id → member id
	target          map[string]modern.Assignment // the target assignment, by member id
	owner           map[modern.TopicID][]*consumerMember
	assignors       map[string]int    // group.remote.assignor → members asking for it
	unreconciled    int               // members not STABLE at the target epoch
	byConn          []*consumerMember // the member last updated on each connection (plainHeartbeat)
	img             *modern.TopicsImage
	imgTopics       int                          // the broker's topic count the image was built from
	recordedEpoch   int                          // the group epoch of the last EvGroupState
	specs           []modern.GroupMember         // BuildTargetAssignment's Members, reused
	ids             []string                     // the members\' order for specs, reused
	newTarget       map[string]modern.Assignment // BuildTargetAssignmentInto's result members, reused
}

// consumerMember is the coordinator's view of one member (Kafka's
// ConsumerGroupMember): its subscription, timeouts and reconciliation state.
type consumerMember struct {
	id, instanceID, rackID string
	clientID               string // the member's name (the request's client id), for events
	rebalanceTimeout       int
	subscribed             []string // in the order of the heartbeat that carried them
	serverAssignor         string
	modern.MemberAssignmentState
	heard, deadline int
	session         *clock.Timer
	revoke          *clock.Timer // the rebalance timeout of an unacknowledged revocation
	removed         bool
	reconciled      bool // counted as reconciled in the group's unreconciled count
	// holdsTarget: the last reconciliation left the member STABLE, which
	// means holding exactly its target; cleared when its target changes
	// (setTarget). See reconcile.
	holdsTarget bool
}

func newConsumerGroup(gc *GroupCoordinator, id string) *ConsumerGroup {
	return &ConsumerGroup{gc: gc, id: id, state: kafka.GroupEmpty, members: map[string]*consumerMember{}, static: map[string]string{},
		target: map[string]modern.Assignment{}, owner: map[modern.TopicID][]*consumerMember{}, assignors: map[string]int{}}
}

// ID returns the group.id.
func (g *ConsumerGroup) ID() string { return g.id }

// Type returns GroupTypeConsumer.
func (g *ConsumerGroup) Type() GroupType { return GroupTypeConsumer }

// State returns the group's state: Empty, Assigning, Reconciling or Stable.
func (g *ConsumerGroup) State() kafka.GroupState { return g.state }

// GroupEpoch returns the group epoch (0 before the first member joined).
func (g *ConsumerGroup) GroupEpoch() int { return g.groupEpoch }

// AssignmentEpoch returns the target assignment epoch.
func (g *ConsumerGroup) AssignmentEpoch() int { return g.assignmentEpoch }

// Size returns the number of members.
func (g *ConsumerGroup) Size() int { return len(g.members) }

// HasMember says whether member id is in the group.
func (g *ConsumerGroup) HasMember(id string) bool { _, ok := g.members[id]; return ok }

// MemberIDs returns the member ids in the group's iteration order.
func (g *ConsumerGroup) MemberIDs() []string { return g.order.IDs() }

// MemberClientID returns the client id (the member's name) of a member, "" if unknown.
func (g *ConsumerGroup) MemberClientID(id string) string {
	if m, ok := g.members[id]; ok {
		return m.clientID
	}
	return ""
}

// MemberEpoch returns a member's epoch, and whether it is in the group.
func (g *ConsumerGroup) MemberEpoch(id string) (int, bool) {
	if m, ok := g.members[id]; ok {
		return m.MemberEpoch, true
	}
	return 0, false
}

// Owns says whether member id's assigned partitions are exactly tps.
func (g *ConsumerGroup) Owns(id string, tps []kafka.TopicPartition) bool {
	m, ok := g.members[id]
	if !ok || m.AssignedPartitions.Len() != len(tps) {
		return false
	}
	img := g.image()
	var own []*consumerMember
	topic := ""
	for i, tp := range tps {
		if i == 0 || tp.Topic != topic {
			tid, ok := img.TopicID(tp.Topic)
			if !ok {
				return false
			}
			own, topic = g.owner[tid], tp.Topic
		}
		if tp.Partition >= len(own) || own[tp.Partition] != m {
			return false
		}
	}
	return m.PartitionsPendingRevocation.Len() == 0
}

// ConsumerMemberInfo is the coordinator's view of one member, as
// DescribeConsumerGroups shows it.
type ConsumerMemberInfo struct {
	MemberID, InstanceID, ClientID string
	MemberEpoch                    int
	State                          modern.MemberState
	Assigned                       []kafka.TopicPartition // what it may consume
	PendingRevocation              []kafka.TopicPartition // what it must give up first
	Target                         []kafka.TopicPartition // its target assignment
	ServerAssignor                 string
}

// Member describes member id, or returns false.
func (g *ConsumerGroup) Member(id string) (ConsumerMemberInfo, bool) {
	m, ok := g.members[id]
	if !ok {
		return ConsumerMemberInfo{}, false
	}
	img := g.image()
	return ConsumerMemberInfo{MemberID: m.id, InstanceID: m.instanceID, ClientID: m.clientID, MemberEpoch: m.MemberEpoch, State: m.State,
		Assigned: m.AssignedPartitions.TopicPartitions(img), PendingRevocation: m.PartitionsPendingRevocation.TopicPartitions(img),
		Target: g.target[m.id].TopicPartitions(img), ServerAssignor: m.serverAssignor}, true
}

// Reconciled says whether member id is STABLE at the target assignment epoch.
func (g *ConsumerGroup) Reconciled(id string) bool {
	m, ok := g.members[id]
	return ok && g.isReconciled(m)
}

// PreferredAssignor is the server-side assignor the group uses now.
func (g *ConsumerGroup) PreferredAssignor() string {
	if name := modern.PreferredServerAssignor(g.assignors); name != "" {
		return name
	}
	return g.gc.b.consumerAssignors[0]
}

func (g *ConsumerGroup) b() *Broker { return g.gc.b }
func (g *ConsumerGroup) now() int   { return g.b().clock.Now() }

// image is the broker's topics as the coordinator's metadata image, with the
// topic ids of modern.TopicIDFor.
func (g *ConsumerGroup) image() *modern.TopicsImage {
	if g.img == nil || g.imgTopics != len(g.b().topics) {
		var topics []modern.TopicImage
		for _, name := range sortedKeys(g.b().topics) {
			topics = append(topics, modern.TopicImage{Name: name, ID: registerTopicID(name), Partitions: g.b().topics[name]})
		}
		img, err := modern.NewTopicsImageOf(topics...)
		if err != nil {
			panic("broker: " + err.Error()) // the broker's own topics are always valid
		}
		g.img, g.imgTopics = img, len(g.b().topics)
	}
	return g.img
}

func (g *ConsumerGroup) isReconciled(m *consumerMember) bool {
	return m.State == modern.MemberStable && m.MemberEpoch == g.assignmentEpoch
}

// recount keeps the count of unreconciled members after m changed.
func (g *ConsumerGroup) recount(m *consumerMember) {
	r := !m.removed && g.isReconciled(m)
	if r != m.reconciled {
		if r {
			g.unreconciled--
		} else {
			g.unreconciled++
		}
		m.reconciled = r
	}
}

// recountAll recounts after the target assignment epoch changed.
func (g *ConsumerGroup) recountAll() {
	g.unreconciled = 0
	for _, m := range g.members {
		m.reconciled = g.isReconciled(m)
		if !m.reconciled {
			g.unreconciled++
		}
	}
}

// updateState is ConsumerGroup.maybeUpdateGroupState; it records the state
// and the group epoch whenever either changes (EvGroupState).
func (g *ConsumerGroup) updateState() {
	s := kafka.GroupStable
	switch {
	case len(g.members) == 0:
		s = kafka.GroupEmpty
	case g.groupEpoch > g.assignmentEpoch:
		s = kafka.GroupAssigning
	case g.unreconciled > 0:
		s = kafka.GroupReconciling
	}
	if s == g.state && g.recordedEpoch == g.groupEpoch {
		return
	}
	g.state = s
	g.recordedEpoch = g.groupEpoch
	g.b().record(event.Event{Type: event.EvGroupState, Member: g.b().name, GroupState: s, Generation: g.groupEpoch,
		Assignor: g.PreferredAssignor()})
}

// heardFrom restarts a member's session timer (as ClassicGroup.heardFrom):
// group.consumer.session.timeout.ms after the heartbeat was sent.
func (g *ConsumerGroup) heardFrom(m *consumerMember, sent int) {
	m.heard = sent
	m.deadline = sent + g.b().consumerSessionTimeout
	switch {
	case m.session == nil:
		id := m.id
		m.session = g.b().clock.Schedule(m.deadline, "session "+id, func() { g.sessionExpired(id, m) })
	case !m.session.Pending() || m.session.At() > m.deadline:
		m.session.Reset(m.deadline)
	}
}

// sessionExpired fences a member not heard from for the session timeout
// (consumerGroupFenceMemberOperation, "the member session expired"). The
// timer is the member's own (heardFrom made it for m, member id id), and
// forget stops it when it removes m, the only way m leaves g.members; so
// while m is not removed it is the group's member of that id.
func (g *ConsumerGroup) sessionExpired(id string, m *consumerMember) {
	if m.removed {
		return
	}
	if g.now() < m.deadline {
		m.session.Reset(m.deadline)
		return
	}
	g.fence(m, event.Event{Reason: event.ReasonSessionTimeout, Ticks: g.now() - m.heard})
}

// scheduleRevocationTimeout is scheduleConsumerGroupRebalanceTimeout: the
// member must acknowledge its revocation within its rebalance timeout
// (max.poll.interval.ms), or it is fenced.
func (g *ConsumerGroup) scheduleRevocationTimeout(m *consumerMember) {
	id, epoch := m.id, m.MemberEpoch
	at := g.now() + m.rebalanceTimeout
	m.revoke.Stop()
	m.revoke = g.b().clock.Schedule(at, "rebalance timeout "+id, func() {
		if m, ok := g.members[id]; ok && !m.removed && m.MemberEpoch == epoch {
			g.fence(m, event.Event{Reason: event.ReasonRebalanceTimeout, Ticks: g.now() - (at - m.rebalanceTimeout)})
		}
	})
}

// checkEpoch is throwIfConsumerGroupMemberEpochIsInvalid: an epoch ahead of
// the member's is fenced; one behind it too, unless it is the previous epoch
// and the member owns no more than its assignment (the answer that moved it
// on was lost).
func checkEpoch(m *consumerMember, req *ConsumerGroupHeartbeatRequest) (kafka.ErrorCode, string) {
	switch {
	case req.MemberEpoch > m.MemberEpoch:
		return kafka.FENCED_MEMBER_EPOCH, "The consumer group member has a greater member epoch (" + strconv.Itoa(req.MemberEpoch) +
			") than the one known by the group coordinator (" + strconv.Itoa(m.MemberEpoch) + "). The member must abandon all its partitions and rejoin."
	case req.MemberEpoch < m.MemberEpoch && (req.MemberEpoch != m.PreviousMemberEpoch || !isSubset(req.TopicPartitions, m.AssignedPartitions)):
		return kafka.FENCED_MEMBER_EPOCH, "The consumer group member has a smaller member epoch (" + strconv.Itoa(req.MemberEpoch) +
			") than the one known by the group coordinator (" + strconv.Itoa(m.MemberEpoch) + "). The member must abandon all its partitions and rejoin."
	}
	return kafka.NONE, ""
}

// isSubset is GroupMetadataManager.isSubset: owned (nil: not reported) holds
// only partitions of target.
func isSubset(owned, target modern.Assignment) bool {
	if owned == nil {
		return false
	}
	for _, tp := range owned {
		var have []int
		found := false
		for _, t := range target {
			if t.TopicID == tp.TopicID {
				have, found = t.Partitions, true
				break
			}
		}
		if !found {
			return false
		}
		for _, p := range tp.Partitions {
			if !slices.Contains(have, p) {
				return false
			}
		}
	}
	return true
}

func sameStringSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// plain says whether a heartbeat carries nothing but who is beating: the
// request of a member whose subscription and assignment did not change.
func plain(req *ConsumerGroupHeartbeatRequest) bool {
	return req.RebalanceTimeoutMs == -1 && req.SubscribedTopicNames == nil && req.ServerAssignor == "" && req.TopicPartitions == nil &&
		req.RackID == ""
}

// handleHeartbeat is GroupMetadataManager.consumerGroupHeartbeat: a regular
// heartbeat (epoch 0 to join, or the member's epoch). It (1) creates or
// updates the member, bumping the group epoch when the subscriptions
// changed, (2) computes the new target assignment when the group epoch is
// ahead of it, (3) reconciles this member towards its target.
func (g *ConsumerGroup) handleHeartbeat(env *Envelope, req *ConsumerGroupHeartbeatRequest) {
	if g.plainHeartbeat(env, req) {
		return
	}
	fail := func(code kafka.ErrorCode, msg string) {
		g.b().reply(env, req.MemberEpoch, &ConsumerGroupHeartbeatResponse{ErrorCode: code, ErrorMessage: msg})
	}
	joining := req.MemberEpoch == JoinGroupMemberEpoch
	var member, replaced *consumerMember
	var code kafka.ErrorCode
	var msg string
	if req.InstanceID == "" {
		member, code, msg = g.dynamicMember(req)
	} else {
		member, replaced, code, msg = g.staticMember(req)
	}
	if code != kafka.NONE {
		fail(code, msg)
		return
	}

	// 1. The updated member.
	upd, before := updatedMember(env, req, member, replaced)
	isNew := member == nil
	metadataChanged := isNew || upd.instanceID != before.instanceID || upd.rackID != before.rackID ||
		upd.rebalanceTimeout != before.rebalanceTimeout || upd.serverAssignor != before.serverAssignor ||
		!slices.Equal(upd.subscribed, before.subscribed) || upd.clientID != before.clientID
	bump := g.groupEpoch == 0 || !sameStringSet(upd.subscribed, before.subscribed)
	groupEpoch := g.groupEpoch
	if bump {
		groupEpoch++
	}

	// 2. The target assignment, from the group as it is before this heartbeat.
	var result *modern.TargetAssignmentResult
	var assignor string
	if groupEpoch > g.assignmentEpoch {
		if result, assignor, code, msg = g.newTargetAssignment(member, replaced, &upd, groupEpoch); code != kafka.NONE {
			fail(code, msg)
			return
		}
	}
	var target modern.Assignment
	if result != nil {
		target = result.Members[upd.id]
	} else if replaced != nil {
		target = g.target[replaced.id]
	} else {
		target = g.target[upd.id]
	}

	// Apply, in the order Kafka replays its records.
	m := g.apply(env, req, member, replaced, &upd, metadataChanged)
	if bump {
		g.groupEpoch = groupEpoch
		reason := event.ReasonMemberJoined
		if !isNew && replaced == nil {
			reason = event.ReasonMetadataChanged
		}
		g.b().record(event.Event{Type: event.EvRebalance, Member: g.b().name, Generation: groupEpoch, Reason: reason, MemberID: m.id})
	}
	if result != nil {
		g.setTarget(result, groupEpoch, assignor)
	}

	full := req.RebalanceTimeoutMs != -1 && req.SubscribedTopicNames != nil && req.TopicPartitions != nil
	g.reconcileAndAnswer(env, m, target, req.TopicPartitions, before.AssignedPartitions, joining || full)
}

// plainHeartbeat answers a plain heartbeat (nothing new, see plain) of a
// member the group knows on that connection (byConn), at its epoch, while
// the target assignment is up to date: what handleHeartbeat's general path
// does for it, which would find the member unchanged (no metadata, no
// subscription change, so no epoch bump and no target assignment to
// compute) and go straight to its reconciliation; a reconciled member has
// nothing to reconcile either. It returns false for any other heartbeat.
//
// A fast path, kept for its figure: without it, the 500-member KIP-848
// rolling restarts cost 3.3x (dynamic) and 4.3x (static) the CPU of
// 8717557 (scripts/bench.sh guard, docs/performance.md); every member
// heartbeats every tick.
func (g *ConsumerGroup) plainHeartbeat(env *Envelope, req *ConsumerGroupHeartbeatRequest) bool {
	if env.Conn <= 0 || env.Conn >= len(g.byConn) {
		return false
	}
	m := g.byConn[env.Conn]
	if m == nil || m.removed || m.id != req.MemberID || m.instanceID != req.InstanceID ||
		req.MemberEpoch != m.MemberEpoch || req.MemberEpoch <= 0 || !plain(req) || g.groupEpoch != g.assignmentEpoch ||
		g.groupEpoch <= 0 || m.clientID != env.From || (req.InstanceID != "" && g.static[req.InstanceID] != m.id) {
		return false
	}
	if m.reconciled {
		g.heardFrom(m, g.now()-1)
		g.b().reply(env, m.MemberEpoch, &ConsumerGroupHeartbeatResponse{MemberID: m.id, MemberEpoch: m.MemberEpoch,
			HeartbeatIntervalMs: g.b().consumerHeartbeatInterval})
		return true
	}
	g.reconcileAndAnswer(env, m, g.target[m.id], nil, m.AssignedPartitions, false)
	return true
}

// dynamicMember is getOrMaybeSubscribeDynamicConsumerGroupMember: the member
// as the coordinator knows it (nil: a new one, when joining), or the error.
func (g *ConsumerGroup) dynamicMember(req *ConsumerGroupHeartbeatRequest) (*consumerMember, kafka.ErrorCode, string) {
	member := g.members[req.MemberID]
	if member == nil {
		if req.MemberEpoch != JoinGroupMemberEpoch {
			return nil, kafka.UNKNOWN_MEMBER_ID, "Member " + req.MemberID + " is not a member of group " + g.id + "."
		}
		return nil, kafka.NONE, ""
	}
	code, msg := checkEpoch(member, req)
	return member, code, msg
}

// staticMember is getOrMaybeSubscribeStaticConsumerGroupMember: the member as
// the coordinator knows it (nil: a new one) and the static member a joining
// one replaces (KIP-345 under KIP-848), or the error.
func (g *ConsumerGroup) staticMember(req *ConsumerGroupHeartbeatRequest) (member, replaced *consumerMember, code kafka.ErrorCode, msg string) {
	joining := req.MemberEpoch == JoinGroupMemberEpoch
	var existing *consumerMember
	if id, ok := g.static[req.InstanceID]; ok {
		existing = g.members[id]
	}
	switch {
	case joining && existing == nil:
		return g.members[req.MemberID], nil, kafka.NONE, ""
	case joining && existing.MemberEpoch != LeaveGroupStaticMemberEpoch:
		// throwIfInstanceIdIsUnreleased: the previous instance must have left with epoch -2.
		return nil, nil, kafka.UNRELEASED_INSTANCE_ID, "Static member " + req.MemberID + " with instance id " + req.InstanceID +
			" cannot join the group because the instance id is owned by " + existing.id + " member."
	case joining:
		return nil, existing, kafka.NONE, ""
	case existing == nil:
		return nil, nil, kafka.UNKNOWN_MEMBER_ID, "Instance id " + req.InstanceID + " is unknown."
	case existing.id != req.MemberID:
		return nil, nil, kafka.FENCED_INSTANCE_ID, "Static member " + req.MemberID + " with instance id " + req.InstanceID + " was fenced by member " + existing.id + "."
	}
	code, msg = checkEpoch(existing, req)
	return existing, nil, code, msg
}

// updatedMember is the member as this heartbeat leaves it (not yet the
// group's), and before it, the member as getOrMaybeSubscribe... returned it:
// a copy of the replaced static member with the new member id at epoch 0, the
// known member, or a new one.
func updatedMember(env *Envelope, req *ConsumerGroupHeartbeatRequest, member, replaced *consumerMember) (upd, before consumerMember) {
	switch {
	case replaced != nil:
		upd = *replaced
		upd.id, upd.session, upd.revoke, upd.removed, upd.reconciled = req.MemberID, nil, nil, false, false
		upd.MemberEpoch, upd.PreviousMemberEpoch = 0, 0
	case member != nil:
		upd = *member
	default:
		upd = consumerMember{id: req.MemberID, MemberAssignmentState: modern.MemberAssignmentState{
			AssignedPartitions: modern.Assignment{}, PartitionsPendingRevocation: modern.Assignment{}}}
	}
	before = upd
	if req.InstanceID != "" {
		upd.instanceID = req.InstanceID
	}
	if req.RackID != "" {
		upd.rackID = req.RackID
	}
	if req.RebalanceTimeoutMs != -1 {
		upd.rebalanceTimeout = req.RebalanceTimeoutMs
	}
	if req.ServerAssignor != "" {
		upd.serverAssignor = req.ServerAssignor
	}
	if req.SubscribedTopicNames != nil {
		upd.subscribed = append([]string(nil), req.SubscribedTopicNames...)
	}
	upd.clientID = env.From
	return upd, before
}

// newTargetAssignment computes the target assignment of groupEpoch with the
// group's preferred server assignor, the member updated (upd, in place of
// member or replaced): the result, the assignor's name, or the error.
func (g *ConsumerGroup) newTargetAssignment(member, replaced, upd *consumerMember, groupEpoch int) (*modern.TargetAssignmentResult, string, kafka.ErrorCode, string) {
	counts := make(map[string]int, len(g.assignors)+1)
	for k, v := range g.assignors {
		counts[k] = v
	}
	if member != nil && member.serverAssignor != "" {
		counts[member.serverAssignor]--
	} else if replaced != nil && replaced.serverAssignor != "" {
		counts[replaced.serverAssignor]--
	}
	if upd.serverAssignor != "" {
		counts[upd.serverAssignor]++
	}
	assignor := modern.PreferredServerAssignor(counts)
	if assignor == "" {
		assignor = g.b().consumerAssignors[0]
	}
	a, err := modern.ServerAssignorByName(assignor)
	if err != nil {
		return nil, "", kafka.UNSUPPORTED_ASSIGNOR, err.Error()
	}
	// The members' slice is the group's, reused: BuildTargetAssignment
	// keeps no reference to it.
	in := modern.TargetAssignmentInput{Topics: g.image(), TargetAssignment: g.target, Members: g.specs[:0]}
	g.ids = g.order.AppendIDs(g.ids[:0])
	for _, id := range g.ids {
		m := g.members[id]
		in.Members = append(in.Members, modern.GroupMember{MemberID: m.id, InstanceID: m.instanceID, RackID: m.rackID, SubscribedTopicNames: m.subscribed})
	}
	g.specs = in.Members
	gm := modern.GroupMember{MemberID: upd.id, InstanceID: upd.instanceID, RackID: upd.rackID, SubscribedTopicNames: upd.subscribed}
	in.Updates = []modern.MemberUpdate{{MemberID: upd.id, Member: &gm}}
	if replaced != nil {
		in.Updates = append(in.Updates, modern.MemberUpdate{MemberID: replaced.id})
	}
	// The result's members map is the group's too: setTarget copies it
	// into g.target before the next computation empties it.
	if g.newTarget == nil {
		g.newTarget = map[string]modern.Assignment{}
	}
	res, err := modern.BuildTargetAssignmentInto(a, in, g.newTarget)
	if err != nil {
		// UnknownServerException: "Failed to compute a new target assignment"
		return nil, "", kafka.ErrorCode(-1), "Failed to compute a new target assignment for epoch " + strconv.Itoa(groupEpoch) + ": " + err.Error()
	}
	return res, assignor, kafka.NONE, ""
}

// reconcileAndAnswer is the end of consumerGroupHeartbeat: (3) the member
// reconciled towards its target (maybeReconcile), then the answer, with
// the member's assignment when it asked for everything (withAll) or when
// its assignment changed from before.
func (g *ConsumerGroup) reconcileAndAnswer(env *Envelope, m *consumerMember, target, owned, before modern.Assignment, withAll bool) {
	g.reconcile(m, target, owned)
	g.heardFrom(m, g.now()-1)
	g.recount(m)
	g.updateState()

	if withAll || !before.Equal(m.AssignedPartitions) {
		g.b().reply(env, m.MemberEpoch, &ConsumerGroupHeartbeatResponse{MemberID: m.id, MemberEpoch: m.MemberEpoch,
			HeartbeatIntervalMs: g.b().consumerHeartbeatInterval,
			Assignment:          &ConsumerGroupHeartbeatAssignment{TopicPartitions: slices.Clone(m.AssignedPartitions)}})
		return
	}
	g.b().reply(env, m.MemberEpoch, &ConsumerGroupHeartbeatResponse{MemberID: m.id, MemberEpoch: m.MemberEpoch,
		HeartbeatIntervalMs: g.b().consumerHeartbeatInterval})
}

// apply makes the updated member the group's: the replaced static member's
// records (replaceMember), then the member's metadata record. It returns the
// member as the group now holds it.
func (g *ConsumerGroup) apply(env *Envelope, req *ConsumerGroupHeartbeatRequest, member, replaced, upd *consumerMember, metadataChanged bool) *consumerMember {
	m := member
	if replaced != nil {
		// replaceMember: the old member's tombstones, then the new member's
		// metadata, target and current assignment records.
		g.order.Put(replaced.id) // current assignment tombstone
		tgt := g.target[replaced.id]
		delete(g.target, replaced.id)
		g.order.Remove(replaced.id)
		g.forget(replaced)
		m = &consumerMember{}
		*m = *upd
		g.members[m.id] = m
		g.static[m.instanceID] = m.id
		g.order.Put(m.id) // metadata
		g.target[m.id] = tgt
		g.order.Put(m.id) // current assignment
		g.hold(m)
		g.unreconciled++ // a new member is not reconciled until recount says so
		g.countAssignor("", m.serverAssignor)
		g.b().record(event.Event{Type: event.EvMemberAdded, Member: env.From, MemberID: m.id, Generation: g.groupEpoch,
			InstanceID: m.instanceID, Replaces: replaced.id})
	} else if member == nil {
		m = &consumerMember{}
		*m = *upd
		g.members[m.id] = m
		g.unreconciled++
		if m.instanceID != "" {
			g.static[m.instanceID] = m.id
		}
		g.countAssignor("", m.serverAssignor)
		g.b().record(event.Event{Type: event.EvMemberAdded, Member: env.From, MemberID: m.id, Generation: g.groupEpoch, InstanceID: m.instanceID})
	} else {
		g.countAssignor(member.serverAssignor, upd.serverAssignor)
		session, revoke, reconciled := m.session, m.revoke, m.reconciled
		*m = *upd
		m.session, m.revoke, m.reconciled = session, revoke, reconciled
	}
	if metadataChanged {
		g.order.Put(m.id)
	}
	if env.Conn > 0 {
		for len(g.byConn) <= env.Conn {
			g.byConn = append(g.byConn, nil)
		}
		g.byConn[env.Conn] = m
	}
	return m
}

func (g *ConsumerGroup) countAssignor(old, cur string) {
	if old == cur {
		return
	}
	if old != "" {
		if g.assignors[old]--; g.assignors[old] <= 0 {
			delete(g.assignors, old)
		}
	}
	if cur != "" {
		g.assignors[cur]++
	}
}

// setTarget installs a new target assignment (the target assignment records
// and the target assignment metadata record) and records the plan: the new
// target of every member whose target changed (the others keep theirs, as
// Kafka writes records for the changed members only), and, as withheld, the
// partitions of those targets another member still holds.
func (g *ConsumerGroup) setTarget(res *modern.TargetAssignmentResult, epoch int, assignor string) {
	for id, a := range res.Members {
		g.target[id] = a
	}
	for _, id := range res.Changed {
		if m, ok := g.members[id]; ok {
			m.holdsTarget = false
		}
	}
	g.assignmentEpoch = epoch
	g.recountAll()
	img := g.image()
	plan := &event.Plan{Target: make(map[string][]string, len(res.Changed)), Sent: make(map[string][]string, len(res.Changed))}
	held := map[modern.TopicID][]bool{}
	for _, id := range res.Changed {
		a := res.Members[id]
		names := g.partitionNames(a)
		plan.Target[id], plan.Sent[id] = names, names
		for _, tp := range a {
			own := g.owner[tp.TopicID]
			for _, p := range tp.Partitions {
				if p < len(own) && own[p] != nil && own[p].id != id {
					h := held[tp.TopicID]
					if h == nil {
						h = make([]bool, len(own))
						held[tp.TopicID] = h
					}
					h[p] = true
				}
			}
		}
	}
	if len(held) > 0 {
		n := 0
		for _, h := range held {
			for _, ok := range h {
				if ok {
					n++
				}
			}
		}
		plan.Withheld = make([]string, 0, n)
		for _, t := range img.Topics() { // by name, then partition: sorted without sorting
			for p, ok := range held[t.ID] {
				if ok {
					plan.Withheld = append(plan.Withheld, g.b().pname(kafka.TopicPartition{Topic: t.Name, Partition: p}))
				}
			}
		}
	}
	g.b().record(event.Event{Type: event.EvAssignorRun, Member: g.b().name, Generation: epoch, Assignor: assignor}.WithPlan(plan))
}

// partitionNames is the broker's short names of a.TopicPartitions(image),
// sorted by topic name, then partition, without building that list: an
// assignment holds each topic once and each of its partitions once, so
// sorting the topics by name and each topic's partitions gives the same
// order.
func (g *ConsumerGroup) partitionNames(a modern.Assignment) []string {
	img := g.image()
	type topic struct {
		name       string
		partitions []int
	}
	topics := make([]topic, 0, len(a))
	n := 0
	for _, tp := range a {
		if name, ok := img.TopicName(tp.TopicID); ok {
			topics = append(topics, topic{name, tp.Partitions})
			n += len(tp.Partitions)
		}
	}
	slices.SortFunc(topics, func(x, y topic) int { return strings.Compare(x.name, y.name) })
	out := make([]string, 0, n)
	var sorted []int
	for _, t := range topics {
		sorted = append(sorted[:0], t.partitions...)
		slices.Sort(sorted)
		for _, p := range sorted {
			out = append(out, g.b().pname(kafka.TopicPartition{Topic: t.name, Partition: p}))
		}
	}
	return out
}

// reconcile is maybeReconcile: CurrentAssignmentBuilder for one member, the
// partition epochs kept, the rebalance timeout of a revocation scheduled or
// cancelled, and EvMemberEpoch recorded when the member moved.
func (g *ConsumerGroup) reconcile(m *consumerMember, target modern.Assignment, owned modern.Assignment) {
	if g.isReconciled(m) {
		return
	}
	if target == nil {
		target = modern.Assignment{}
	}
	var next modern.MemberAssignmentState
	if m.State == modern.MemberStable && m.holdsTarget {
		// A fast path, kept for its figure: what computeNextAssignment
		// gives a STABLE member that holds its unchanged target, the same
		// partitions at the target epoch. Without it every member is
		// reconciled by sets at every epoch bump: the 500-member KIP-848
		// dynamic rolling restart cost 1.8x the CPU of 8717557
		// (scripts/bench.sh guard, docs/performance.md).
		next = m.MemberAssignmentState
		next.PreviousMemberEpoch, next.MemberEpoch = m.MemberEpoch, g.assignmentEpoch
	} else {
		var err error
		next, err = modern.ReconcileMember(m.MemberAssignmentState, modern.Reconciliation{TargetAssignmentEpoch: g.assignmentEpoch,
			TargetAssignment: target, CurrentPartitionEpoch: g.partitionEpoch, OwnedTopicPartitions: owned})
		if err != nil {
			return
		}
	}
	m.holdsTarget = next.State == modern.MemberStable
	if sameAssignmentState(next, m.MemberAssignmentState) {
		return
	}
	prev := m.MemberAssignmentState
	g.release(m)
	m.MemberAssignmentState = next
	g.hold(m)
	g.order.Put(m.id) // the current assignment record
	if m.State == modern.MemberUnrevokedPartitions {
		g.scheduleRevocationTimeout(m)
	} else {
		m.revoke.Stop()
	}
	if prev.MemberEpoch != next.MemberEpoch || !prev.PartitionsPendingRevocation.Equal(next.PartitionsPendingRevocation) {
		g.record(m, prev.MemberEpoch)
	}
}

func sameAssignmentState(a, b modern.MemberAssignmentState) bool {
	return a.State == b.State && a.MemberEpoch == b.MemberEpoch && a.PreviousMemberEpoch == b.PreviousMemberEpoch &&
		a.AssignedPartitions.Equal(b.AssignedPartitions) && a.PartitionsPendingRevocation.Equal(b.PartitionsPendingRevocation)
}

// record records a member's epoch and what it must revoke (EvMemberEpoch).
func (g *ConsumerGroup) record(m *consumerMember, prev int) {
	pending := []string{} // mostly nothing to revoke: no list to build and sort
	if m.PartitionsPendingRevocation.Len() > 0 {
		pending = g.partitionNames(m.PartitionsPendingRevocation)
	}
	g.b().record(event.Event{Type: event.EvMemberEpoch, Member: m.clientID, MemberID: m.id, Generation: m.MemberEpoch, Count: prev}.
		WithPartitions(pending))
}

// partitionEpoch is ConsumerGroup.currentPartitionEpoch: the epoch of the
// member holding the partition (assigned or pending revocation), -1 if none.
func (g *ConsumerGroup) partitionEpoch(t modern.TopicID, p int) int {
	if own := g.owner[t]; p < len(own) && own[p] != nil {
		return own[p].MemberEpoch
	}
	return -1
}

// hold and release keep the partition owners (addPartitionEpochs,
// removePartitionEpochs) for a member's assigned and pending partitions.
func (g *ConsumerGroup) hold(m *consumerMember) {
	g.setOwner(m.AssignedPartitions, m, nil)
	g.setOwner(m.PartitionsPendingRevocation, m, nil)
}

func (g *ConsumerGroup) release(m *consumerMember) {
	g.setOwner(m.AssignedPartitions, nil, m)
	g.setOwner(m.PartitionsPendingRevocation, nil, m)
}

func (g *ConsumerGroup) setOwner(a modern.Assignment, m, was *consumerMember) {
	for _, tp := range a {
		own := g.owner[tp.TopicID]
		n := len(own)
		if own == nil {
			own = make([]*consumerMember, max(g.image().NumPartitions(tp.TopicID), 0))
		}
		for _, p := range tp.Partitions {
			for p >= len(own) {
				own = append(own, nil)
			}
			if own[p] != m && (m != nil || own[p] == was) {
				own[p] = m // stored only when it changes: no write barrier for nothing
			}
		}
		if n == 0 || len(own) != n {
			g.owner[tp.TopicID] = own
		}
	}
}

// forget takes a member out of the group's maps and stops its timers.
func (g *ConsumerGroup) forget(m *consumerMember) {
	g.release(m)
	delete(g.members, m.id)
	if m.instanceID != "" && g.static[m.instanceID] == m.id {
		delete(g.static, m.instanceID)
	}
	g.countAssignor(m.serverAssignor, "")
	m.session.Stop()
	m.revoke.Stop()
	if m.reconciled {
		m.reconciled = false
	} else {
		g.unreconciled--
	}
	m.removed = true
}

// fence is consumerGroupFenceMembers for one member: its records removed
// (current assignment tombstone, target assignment tombstone, metadata
// tombstone), its partitions released, the group epoch bumped (why: the
// removal event's Reason, Ticks and Text).
func (g *ConsumerGroup) fence(m *consumerMember, why event.Event) {
	g.order.Put(m.id) // current assignment tombstone
	delete(g.target, m.id)
	g.order.Remove(m.id) // metadata tombstone
	g.forget(m)
	why.Type, why.Member, why.MemberID, why.Generation, why.InstanceID = event.EvMemberRemoved, m.clientID, m.id, g.groupEpoch, m.instanceID
	g.b().record(why)
	g.groupEpoch++
	g.b().record(event.Event{Type: event.EvRebalance, Member: g.b().name, Generation: g.groupEpoch, Reason: event.ReasonMemberLeft, MemberID: m.id})
	g.updateState()
}

// handleLeave is consumerGroupLeave: epoch -1 removes the member; epoch -2
// from a static member keeps it at epoch -2 with its assignment until it is
// back or its session expires (consumerGroupStaticMemberGroupLeave).
func (g *ConsumerGroup) handleLeave(env *Envelope, req *ConsumerGroupHeartbeatRequest) {
	fail := func(code kafka.ErrorCode, msg string) {
		g.b().reply(env, req.MemberEpoch, &ConsumerGroupHeartbeatResponse{ErrorCode: code, ErrorMessage: msg})
	}
	var m *consumerMember
	if req.InstanceID == "" {
		if m = g.members[req.MemberID]; m == nil {
			fail(kafka.UNKNOWN_MEMBER_ID, "Member "+req.MemberID+" is not a member of group "+g.id+".")
			return
		}
	} else {
		if id, ok := g.static[req.InstanceID]; ok {
			m = g.members[id]
		}
		switch {
		case m == nil:
			fail(kafka.UNKNOWN_MEMBER_ID, "Instance id "+req.InstanceID+" is unknown.")
			return
		case m.id != req.MemberID:
			fail(kafka.FENCED_INSTANCE_ID, "Static member "+req.MemberID+" with instance id "+req.InstanceID+" was fenced by member "+m.id+".")
			return
		}
	}
	if req.InstanceID != "" && req.MemberEpoch == LeaveGroupStaticMemberEpoch {
		prev := m.MemberEpoch
		g.release(m)
		m.MemberEpoch = LeaveGroupStaticMemberEpoch
		m.PartitionsPendingRevocation = modern.Assignment{}
		g.hold(m)
		g.order.Put(m.id)
		g.recount(m)
		g.record(m, prev)
		g.updateState()
		g.b().reply(env, LeaveGroupStaticMemberEpoch, &ConsumerGroupHeartbeatResponse{MemberID: m.id, MemberEpoch: LeaveGroupStaticMemberEpoch})
		return
	}
	g.b().reply(env, req.MemberEpoch, &ConsumerGroupHeartbeatResponse{MemberID: req.MemberID, MemberEpoch: req.MemberEpoch})
	g.fence(m, event.Event{Reason: event.ReasonLeaveGroup}.WithText("the member left (ConsumerGroupHeartbeat with member epoch -1)"))
}

// validateOffsetCommit is ConsumerGroup.validateOffsetCommit: a member
// commits with its member epoch (OffsetCommit's GenerationIdOrMemberEpoch,
// TxnOffsetCommit's GenerationId). A member the group does not know is
// UNKNOWN_MEMBER_ID; any other epoch than the member's is
// STALE_MEMBER_EPOCH, which TxnOffsetCommit answers as ILLEGAL_GENERATION
// (OffsetMetadataManager.validateTransactionalOffsetCommit).
func (g *ConsumerGroup) validateOffsetCommit(memberID, instanceID string, epoch int, txn bool) kafka.ErrorCode {
	if epoch < 0 && len(g.members) == 0 {
		return kafka.NONE
	}
	if txn && epoch == -1 && memberID == "" && instanceID == "" {
		return kafka.NONE
	}
	m, ok := g.members[memberID]
	if !ok {
		return kafka.UNKNOWN_MEMBER_ID
	}
	if epoch != m.MemberEpoch {
		if txn {
			return kafka.ILLEGAL_GENERATION
		}
		return kafka.STALE_MEMBER_EPOCH
	}
	return kafka.NONE
}

// validateOffsetFetch is ConsumerGroup.validateOffsetFetch: a member that
// names itself must be a member at its epoch.
func (g *ConsumerGroup) validateOffsetFetch(memberID string, epoch int) kafka.ErrorCode {
	if memberID == "" && epoch < 0 {
		return kafka.NONE
	}
	m, ok := g.members[memberID]
	if !ok {
		return kafka.UNKNOWN_MEMBER_ID
	}
	if epoch != m.MemberEpoch {
		return kafka.STALE_MEMBER_EPOCH
	}
	return kafka.NONE
}

// memberEpoch returns a member's epoch (0 if unknown), for the record.
func (g *ConsumerGroup) memberEpoch(id string) int {
	if m, ok := g.members[id]; ok {
		return m.MemberEpoch
	}
	return 0
}
