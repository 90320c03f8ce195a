package broker

import (
	"slices"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// GroupTypeShare is a share group's type (KIP-932).
const GroupTypeShare GroupType = "share"

// ShareGroupConfig is a share group's configuration: its group configs
// (GroupConfig: share.record.lock.duration.ms, share.delivery.count.limit,
// share.auto.offset.reset) and the broker's group.share.* settings it runs
// with (ShareGroupConfig), durations in ticks.
type ShareGroupConfig struct {
	// RecordLockDuration is share.record.lock.duration.ms
	// (group.share.record.lock.duration.ms, Kafka 30000 ms; kgviz 10 ticks).
	RecordLockDuration int
	// DeliveryCountLimit is share.delivery.count.limit
	// (group.share.delivery.count.limit, Kafka 5, from 2 to 10).
	DeliveryCountLimit int
	// AutoOffsetReset is share.auto.offset.reset: "earliest" or "latest".
	AutoOffsetReset string
	// PartitionMaxRecordLocks is group.share.partition.max.record.locks
	// (Kafka 200 in 4.0): at most that many records in flight per share-partition.
	PartitionMaxRecordLocks int
	// HeartbeatInterval is group.share.heartbeat.interval.ms (Kafka 5000 ms;
	// kgviz 1 tick) and SessionTimeout group.share.session.timeout.ms
	// (Kafka 45000 ms; kgviz 6 ticks).
	HeartbeatInterval int
	SessionTimeout    int
}

// DefaultShareGroupConfig is kgviz's share group configuration with
// Kafka's defaults in ticks: a lock of 10 ticks (30 s), 5 deliveries,
// share.auto.offset.reset=earliest (Kafka: latest; kgviz's input topics are
// filled before the story starts, docs/simplifications.md), 200 record
// locks, a heartbeat every tick and a session of 6 ticks.
func DefaultShareGroupConfig() ShareGroupConfig {
	return ShareGroupConfig{RecordLockDuration: 10, DeliveryCountLimit: 5, AutoOffsetReset: "earliest",
		PartitionMaxRecordLocks: 200, HeartbeatInterval: 1, SessionTimeout: 6}
}

// ShareGroup is a share group on the group coordinator (Kafka's
// modern.share.ShareGroup with GroupMetadataManager.shareGroupHeartbeat):
// its members, their member epochs, the group epoch and the target
// assignment the simple assignor computes, in which a partition may go to
// several members.
type ShareGroup struct {
	gc         *GroupCoordinator
	id         string
	cfg        ShareGroupConfig
	groupEpoch int
	members    []*ShareGroupMember // in join order
	// assignmentEpoch is the group epoch the target assignment was computed in.
	assignmentEpoch int
	target          map[string][]kafka.TopicPartition // member id → target partitions
}

// ShareGroupMember is one member of a share group (ShareGroupMember).
type ShareGroupMember struct {
	ID                   string
	ClientID             string
	MemberEpoch          int
	SubscribedTopicNames []string
	Assigned             []kafka.TopicPartition // the assignment it was last sent
	session              *clock.Timer
}

func (g *ShareGroup) ID() string      { return g.id }
func (g *ShareGroup) Type() GroupType { return GroupTypeShare }

// validateOffsetCommit: a share group has no committed offsets (its
// progress is the share-partitions' state).
func (g *ShareGroup) validateOffsetCommit(string, string, int, bool) kafka.ErrorCode {
	return kafka.GROUP_ID_NOT_FOUND
}

// GroupEpoch is the group epoch.
func (g *ShareGroup) GroupEpoch() int { return g.groupEpoch }

// Config is the group's configuration.
func (g *ShareGroup) Config() ShareGroupConfig { return g.cfg }

// State is Empty without members, else Stable (ShareGroup.ShareGroupState).
func (g *ShareGroup) State() kafka.GroupState {
	if len(g.members) == 0 {
		return kafka.GroupEmpty
	}
	return kafka.GroupStable
}

// Members returns the members in join order (copies).
func (g *ShareGroup) Members() []ShareGroupMember {
	out := make([]ShareGroupMember, len(g.members))
	for i, m := range g.members {
		out[i] = *m
		out[i].session = nil
	}
	return out
}

func (g *ShareGroup) member(id string) *ShareGroupMember {
	for _, m := range g.members {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// Share returns the share group with that id, or nil.
func (gc *GroupCoordinator) Share(id string) *ShareGroup {
	g, _ := gc.Group(id).(*ShareGroup)
	return g
}

// SetShareGroupConfig sets a share group's configuration before it exists
// or while it is Empty (an administrator's IncrementalAlterConfigs of the
// group's configs; kgviz's world does it when the group's first member is
// added). A running group keeps its configuration; the answer says whether
// it was set.
func (gc *GroupCoordinator) SetShareGroupConfig(id string, cfg ShareGroupConfig) bool {
	if gc.shareConfigs == nil {
		gc.shareConfigs = map[string]ShareGroupConfig{}
	}
	if g := gc.Share(id); g != nil && len(g.members) > 0 {
		return false
	}
	gc.shareConfigs[id] = cfg
	if g := gc.Share(id); g != nil {
		g.cfg = cfg
	}
	return true
}

// ShareGroupConfigOf is the configuration a share group runs (or will run) with.
func (gc *GroupCoordinator) ShareGroupConfigOf(id string) ShareGroupConfig {
	if g := gc.Share(id); g != nil {
		return g.cfg
	}
	if cfg, ok := gc.shareConfigs[id]; ok {
		return cfg
	}
	return DefaultShareGroupConfig()
}

// shareGroupFor is getOrMaybeCreateShareGroup.
func (gc *GroupCoordinator) shareGroupFor(id string, create bool) (*ShareGroup, kafka.ErrorCode, string) {
	switch g := gc.Group(id).(type) {
	case *ShareGroup:
		return g, kafka.NONE, ""
	case nil:
		if !create {
			return nil, kafka.GROUP_ID_NOT_FOUND, "Share group " + id + " not found."
		}
	default:
		return nil, kafka.GROUP_ID_NOT_FOUND, "Group " + id + " is not a share group."
	}
	g := &ShareGroup{gc: gc, id: id, cfg: gc.ShareGroupConfigOf(id)}
	gc.setGroup(id, g)
	return g, kafka.NONE, ""
}

func (g *ShareGroup) b() *Broker { return g.gc.b }

// heartbeat handles a member's heartbeat with epoch 0 or more.
func (g *ShareGroup) heartbeat(env *Envelope, req *ShareGroupHeartbeatRequest) {
	b := g.b()
	m := g.member(req.MemberID)
	resp := &ShareGroupHeartbeatResponse{MemberID: req.MemberID, HeartbeatIntervalMs: g.cfg.HeartbeatInterval}
	switch {
	case req.MemberEpoch == JoinGroupMemberEpoch:
		if m == nil {
			m = &ShareGroupMember{ID: req.MemberID, ClientID: env.From}
			g.members = append(g.members, m)
			b.record(event.Event{Type: event.EvMemberAdded, Member: env.From, MemberID: m.ID, Generation: g.groupEpoch + 1,
				Assignor: SimpleAssignorName}.WithText(g.id))
		}
		m.SubscribedTopicNames = slices.Clone(req.SubscribedTopicNames)
		m.MemberEpoch = 0
		g.bumpEpoch()
	case m == nil:
		resp = &ShareGroupHeartbeatResponse{ErrorCode: kafka.UNKNOWN_MEMBER_ID,
			ErrorMessage: "Member " + req.MemberID + " is not a member of group " + g.id + "."}
		b.reply(env, req.MemberEpoch, resp)
		return
	case req.MemberEpoch != m.MemberEpoch:
		resp = &ShareGroupHeartbeatResponse{ErrorCode: kafka.FENCED_MEMBER_EPOCH,
			ErrorMessage: "The share group member has a smaller member epoch than the one the coordinator has."}
		b.reply(env, req.MemberEpoch, resp)
		return
	case req.SubscribedTopicNames != nil && !slices.Equal(req.SubscribedTopicNames, m.SubscribedTopicNames):
		m.SubscribedTopicNames = slices.Clone(req.SubscribedTopicNames)
		g.bumpEpoch()
	}
	g.resetSession(m)
	if m.MemberEpoch != g.assignmentEpoch {
		// A share group member takes its target assignment at once: there is
		// nothing to revoke first (ShareGroupAssignmentBuilder).
		old := m.MemberEpoch
		m.MemberEpoch = g.assignmentEpoch
		m.Assigned = slices.Clone(g.target[m.ID])
		b.record(event.Event{Type: event.EvMemberEpoch, Member: m.ClientID, MemberID: m.ID, Generation: m.MemberEpoch, Count: old,
			Assignor: SimpleAssignorName}.WithText(g.id))
		resp.Assignment = &ShareGroupHeartbeatAssignment{TopicPartitions: m.Assigned}
		if resp.Assignment.TopicPartitions == nil {
			resp.Assignment.TopicPartitions = []kafka.TopicPartition{}
		}
	}
	resp.MemberEpoch = m.MemberEpoch
	b.reply(env, m.MemberEpoch, resp)
}

// bumpEpoch bumps the group epoch and computes the target assignment.
func (g *ShareGroup) bumpEpoch() {
	g.groupEpoch++
	members := make([]SimpleAssignorMember, len(g.members))
	for i, m := range g.members {
		members[i] = SimpleAssignorMember{ID: m.ID, Topics: m.SubscribedTopicNames, Current: g.target[m.ID]}
	}
	g.target = SimpleAssign(members, g.b().topics)
	g.assignmentEpoch = g.groupEpoch
}

func (g *ShareGroup) resetSession(m *ShareGroupMember) {
	at := g.b().clock.Now() + g.cfg.SessionTimeout
	if m.session == nil {
		mm := m
		m.session = g.b().clock.Schedule(at, "share session "+m.ID, func() { g.sessionExpired(mm) })
		return
	}
	m.session.Reset(at)
}

func (g *ShareGroup) sessionExpired(m *ShareGroupMember) {
	if g.member(m.ID) != m {
		return
	}
	g.remove(m, event.ReasonSessionTimeout)
}

// remove removes a member and gives its partitions to the others.
func (g *ShareGroup) remove(m *ShareGroupMember, why event.Reason) {
	m.session.Stop()
	g.members = slices.DeleteFunc(g.members, func(x *ShareGroupMember) bool { return x == m })
	delete(g.target, m.ID)
	e := event.Event{Type: event.EvMemberRemoved, Member: m.ClientID, MemberID: m.ID, Generation: g.groupEpoch + 1, Reason: why,
		Assignor: SimpleAssignorName}
	text := g.id
	if why == event.ReasonSessionTimeout {
		e.Ticks = g.cfg.SessionTimeout
	} else {
		text = "share group " + g.id + ", member epoch -1" // the detail of a LeaveGroup shows its text
	}
	g.b().record(e.WithText(text))
	g.bumpEpoch()
}

// ShareGroupConfigured returns the configuration set for a share group
// (SetShareGroupConfig), and whether one was.
func (gc *GroupCoordinator) ShareGroupConfigured(id string) (ShareGroupConfig, bool) {
	cfg, ok := gc.shareConfigs[id]
	return cfg, ok
}
