package broker

import (
	"slices"
	"strconv"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// GroupType is the protocol a group runs.
type GroupType string

// The group types: the classic protocol (JoinGroup, SyncGroup, Heartbeat)
// and the consumer protocol (KIP-848, ConsumerGroupHeartbeat).
const (
	GroupTypeClassic  GroupType = "classic"
	GroupTypeConsumer GroupType = "consumer"
)

// Group is one consumer group on the coordinator (Kafka's
// org.apache.kafka.coordinator.group.Group): the offset APIs work on any
// group type through it.
type Group interface {
	// ID is the group.id.
	ID() string
	// Type is the group's protocol.
	Type() GroupType
	// validateOffsetCommit fences an OffsetCommit (txn false) or a
	// TxnOffsetCommit (txn true) by member and generation (member epoch).
	validateOffsetCommit(memberID, instanceID string, generation int, txn bool) kafka.ErrorCode
}

type pendingOffset struct {
	offset int
	pid    int64
}

// groupOffsets are the committed offsets of one group, and the transactional
// offsets waiting for their transaction's marker (OffsetMetadataManager).
type groupOffsets struct {
	committed map[kafka.TopicPartition]int
	pending   map[kafka.TopicPartition]pendingOffset
	// byTopic repeats committed by topic, indexed by partition, for the
	// partitions 0 to maxIndexedPartition-1: every member fetches the
	// offsets of its partitions after each rebalance, and a list of one
	// topic's partitions then costs one map lookup instead of one a
	// partition (a TopicPartition key hashes a string and an int). Written
	// only with committed, in commit.
	byTopic map[string][]committedOffset
}

// committedOffset is one partition's entry in groupOffsets.byTopic.
type committedOffset struct {
	offset int
	set    bool // false: no offset committed
}

// maxIndexedPartition bounds byTopic's lists: a partition beyond it (or
// negative) is looked up in committed alone.
const maxIndexedPartition = 1 << 16

// setCommitted commits offset for tp, in committed and in byTopic.
func (o *groupOffsets) setCommitted(tp kafka.TopicPartition, offset int) {
	o.committed[tp] = offset
	if tp.Partition < 0 || tp.Partition >= maxIndexedPartition {
		return
	}
	l := o.byTopic[tp.Topic]
	if tp.Partition >= len(l) {
		l = append(l, make([]committedOffset, tp.Partition+1-len(l))...)
		o.byTopic[tp.Topic] = l
	}
	l[tp.Partition] = committedOffset{offset, true}
}

// committedOf is committed[tp] read through byTopic; topic and list are the
// last topic looked up and its list (none: ""/nil), updated for the next call,
// so that a run of one topic's partitions looks the topic up once.
func (o *groupOffsets) committedOf(tp kafka.TopicPartition, topic *string, list *[]committedOffset) (int, bool) {
	if tp.Partition < 0 || tp.Partition >= maxIndexedPartition {
		off, ok := o.committed[tp]
		return off, ok
	}
	if *list == nil || tp.Topic != *topic {
		*topic, *list = tp.Topic, o.byTopic[tp.Topic]
	}
	if l := *list; tp.Partition < len(l) && l[tp.Partition].set {
		return l[tp.Partition].offset, true
	}
	return 0, false
}

// GroupCoordinator is the group coordinator on the broker (Kafka's
// GroupMetadataManager and OffsetMetadataManager): the groups by id, their
// offsets, and the __consumer_offsets partitions that hold them.
type GroupCoordinator struct {
	b       *Broker
	groups  map[string]Group
	offsets map[string]*groupOffsets
	logs    map[int]*Log // partitions of __consumer_offsets that hold records
	seq     map[string]int
	// lastID, last: the group Group found last (nil: none), forgotten
	// whenever a group is added or removed (setGroup, deleteGroup). A fast
	// path, kept for its figure: every heartbeat names the same group (see
	// ClassicGroup.validateHeartbeater).
	lastID string
	last   Group
	// shareConfigs are the share groups' group configs (KIP-932; share_group.go).
	shareConfigs map[string]ShareGroupConfig
}

func newGroupCoordinator(b *Broker) *GroupCoordinator {
	return &GroupCoordinator{b: b, groups: map[string]Group{}, offsets: map[string]*groupOffsets{},
		logs: map[int]*Log{}, seq: map[string]int{}}
}

// Group returns the group with that id, or nil.
func (gc *GroupCoordinator) Group(id string) Group {
	if gc.last != nil && id == gc.lastID {
		return gc.last
	}
	g := gc.groups[id]
	if g != nil {
		gc.lastID, gc.last = id, g
	}
	return g
}

// setGroup and deleteGroup are the only writers of gc.groups.
func (gc *GroupCoordinator) setGroup(id string, g Group) {
	gc.groups[id] = g
	gc.last = nil
}

func (gc *GroupCoordinator) deleteGroup(id string) {
	delete(gc.groups, id)
	gc.last = nil
}

// Classic returns the classic group with that id, or nil.
func (gc *GroupCoordinator) Classic(id string) *ClassicGroup {
	g, _ := gc.Group(id).(*ClassicGroup)
	return g
}

// Consumer returns the consumer group (KIP-848) with that id, or nil.
func (gc *GroupCoordinator) Consumer(id string) *ConsumerGroup {
	g, _ := gc.Group(id).(*ConsumerGroup)
	return g
}

// consumerGroupFor is getOrMaybeCreateConsumerGroup: the consumer group, or
// (create: a member joins) a new one. An empty classic group becomes a
// consumer group (maybeDeleteEmptyClassicGroup); a classic group with
// members is refused as Kafka refuses it with
// group.consumer.migration.policy=disabled: kgviz does not model the online
// upgrade of a running classic group (docs/simplifications.md).
func (gc *GroupCoordinator) consumerGroupFor(id string, create bool) (*ConsumerGroup, kafka.ErrorCode, string) {
	switch g := gc.Group(id).(type) {
	case *ConsumerGroup:
		return g, kafka.NONE, ""
	case *ClassicGroup:
		if !create {
			return nil, kafka.GROUP_ID_NOT_FOUND, "Group " + id + " is not a consumer group."
		}
		if g.State() != kafka.GroupEmpty {
			return nil, kafka.GROUP_ID_NOT_FOUND, "Cannot upgrade classic group " + id +
				" to consumer group because online upgrade is disabled (kgviz does not model the online migration of a classic group with members)."
		}
	default:
		if !create {
			return nil, kafka.GROUP_ID_NOT_FOUND, "Consumer group " + id + " not found."
		}
	}
	g := newConsumerGroup(gc, id)
	gc.setGroup(id, g)
	return g, kafka.NONE, ""
}

// generationOf is the generation an offset request is answered in, for the
// record: the classic group's generation, or the consumer group member's epoch.
func (gc *GroupCoordinator) generationOf(groupID, memberID string) int {
	switch g := gc.groups[groupID].(type) {
	case *ClassicGroup:
		return g.generation
	case *ConsumerGroup:
		return g.memberEpoch(memberID)
	}
	return 0
}

// classicGroup returns the classic group, created Empty if it does not exist.
func (gc *GroupCoordinator) classicGroup(id string) *ClassicGroup {
	if g := gc.Classic(id); g != nil {
		return g
	}
	g := newClassicGroup(gc, id)
	gc.setGroup(id, g)
	return g
}

// OffsetsLog returns the partition of __consumer_offsets that holds group id's records.
func (gc *GroupCoordinator) OffsetsLog(id string) *Log {
	n := kafka.PartitionFor(id)
	l := gc.logs[n]
	if l == nil {
		l = newLog(kafka.TopicPartition{Topic: kafka.ConsumerOffsetsTopic, Partition: n})
		gc.logs[n] = l
	}
	return l
}

func (gc *GroupCoordinator) groupOffsets(id string) *groupOffsets {
	o := gc.offsets[id]
	if o == nil {
		o = &groupOffsets{committed: map[kafka.TopicPartition]int{}, pending: map[kafka.TopicPartition]pendingOffset{},
			byTopic: map[string][]committedOffset{}}
		gc.offsets[id] = o
	}
	return o
}

// Committed returns group id's committed offset of tp.
func (gc *GroupCoordinator) Committed(id string, tp kafka.TopicPartition) (int, bool) {
	off, ok := gc.groupOffsets(id).committed[tp]
	return off, ok
}

// PendingOffsets returns how many transactional offsets of group id wait for their marker.
func (gc *GroupCoordinator) PendingOffsets(id string) int { return len(gc.groupOffsets(id).pending) }

// newMemberID makes a member id the way Kafka does, from the client id,
// with a counter instead of a UUID so that runs are reproducible.
func (gc *GroupCoordinator) newMemberID(clientID string) string {
	gc.seq[clientID]++
	return clientID + "-" + strconv.Itoa(gc.seq[clientID])
}

func (gc *GroupCoordinator) commit(group string, tp kafka.TopicPartition, offset, gen int, by string) {
	gc.groupOffsets(group).setCommitted(tp, offset)
	gc.b.record(event.Event{Type: event.EvOffsetCommitted, Member: by, Partition: gc.b.pname(tp), Offset: offset, Generation: gen})
}

func offsetRecordName(group string, tp kafka.TopicPartition, offset int) string {
	return group + "/" + tp.String() + "=" + strconv.Itoa(offset)
}

// validateOffsetCommit is ClassicGroup.validateOffsetCommit behind the group
// lookup: no group and no generation is a "simple" commit.
func (gc *GroupCoordinator) validateOffsetCommit(groupID, memberID, instanceID string, gen int, txn bool) kafka.ErrorCode {
	g := gc.groups[groupID]
	if g == nil {
		if gen < 0 && memberID == "" {
			return kafka.NONE
		}
		return kafka.ILLEGAL_GENERATION
	}
	return g.validateOffsetCommit(memberID, instanceID, gen, txn)
}

// CheckOffsetCommit answers, without changing anything, what the coordinator
// would answer now to an OffsetCommit (txn false) or a TxnOffsetCommit (txn
// true) from memberID (and groupInstanceID) at generation gen: NONE,
// UNKNOWN_MEMBER_ID for a member the group does not have, ILLEGAL_GENERATION
// for a member of the group with another generation, FENCED_INSTANCE_ID for a
// group.instance.id that belongs to another member id, REBALANCE_IN_PROGRESS
// for an OffsetCommit while the group is CompletingRebalance
// (ClassicGroup.validateOffsetCommit). Exercises and notebooks ask it what a
// commit the client never sent would have met.
func (gc *GroupCoordinator) CheckOffsetCommit(groupID, memberID, groupInstanceID string, gen int, txn bool) kafka.ErrorCode {
	return gc.validateOffsetCommit(groupID, memberID, groupInstanceID, gen, txn)
}

// completeTxnOffsets applies a transaction marker written to __consumer_offsets.
func (gc *GroupCoordinator) completeTxnOffsets(l *Log, pid int64, commit bool) {
	for _, id := range sortedKeys(gc.offsets) {
		if kafka.PartitionFor(id) != l.tp.Partition {
			continue
		}
		o := gc.offsets[id]
		var tps []kafka.TopicPartition
		for tp, p := range o.pending {
			if p.pid == pid {
				tps = append(tps, tp)
			}
		}
		kafka.SortPartitions(tps)
		gen := 0
		switch g := gc.groups[id].(type) {
		case *ClassicGroup:
			gen = g.generation
		case *ConsumerGroup:
			gen = g.groupEpoch
		}
		for _, tp := range tps {
			p := o.pending[tp]
			delete(o.pending, tp)
			if commit {
				gc.commit(id, tp, p.offset, gen, gc.b.name)
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

func sortStrings(s []string) { slices.Sort(s) }
