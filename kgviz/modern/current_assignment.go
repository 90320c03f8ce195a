package modern

import (
	"fmt"
	"slices"
)

// Reconciliation of one member towards its target assignment (KIP-848), as
// Kafka 4.1.1's CurrentAssignmentBuilder
// (org.apache.kafka.coordinator.group.modern.consumer) does it at every
// ConsumerGroupHeartbeat. It is what makes the consumer protocol incremental
// without a global barrier: a member first gives up (revokes) what its new
// target no longer holds, staying at its epoch; it gets a partition of its
// target only once no other member holds it any more (the partition's
// current epoch is -1); and it moves to the target epoch on its own, while
// the other members go on consuming what they keep.

// MemberState is a consumer group member's reconciliation state (Kafka's
// MemberState).
type MemberState int

const (
	// MemberStable: the member owns its target assignment at the target
	// epoch, or waits for no revocation.
	MemberStable MemberState = iota
	// MemberUnrevokedPartitions: the member must revoke partitions and has
	// not acknowledged it yet (it still reports them as owned).
	MemberUnrevokedPartitions
	// MemberUnreleasedPartitions: the member is at the target epoch but some
	// partitions of its target are still held by other members.
	MemberUnreleasedPartitions
)

// String returns Kafka's name: "STABLE", "UNREVOKED_PARTITIONS",
// "UNRELEASED_PARTITIONS".
func (s MemberState) String() string {
	switch s {
	case MemberStable:
		return "STABLE"
	case MemberUnrevokedPartitions:
		return "UNREVOKED_PARTITIONS"
	case MemberUnreleasedPartitions:
		return "UNRELEASED_PARTITIONS"
	}
	return fmt.Sprintf("MemberState(%d)", int(s))
}

// MemberAssignmentState is the part of a consumer group member that
// reconciliation reads and writes (fields of Kafka's ConsumerGroupMember).
// Its Assignments are sets: sorted by topic id and partition here.
type MemberAssignmentState struct {
	State               MemberState
	MemberEpoch         int
	PreviousMemberEpoch int
	// AssignedPartitions: what the member may consume now.
	AssignedPartitions Assignment
	// PartitionsPendingRevocation: what it must give up before it goes on.
	PartitionsPendingRevocation Assignment
}

// Reconciliation is the input of ReconcileMember (CurrentAssignmentBuilder's
// with* calls).
type Reconciliation struct {
	TargetAssignmentEpoch int
	TargetAssignment      Assignment
	// CurrentPartitionEpoch is ConsumerGroup.currentPartitionEpoch: the
	// epoch of the member that holds the partition now (assigned or pending
	// revocation), or -1 when nobody does.
	CurrentPartitionEpoch func(topic TopicID, partition int) int
	// OwnedTopicPartitions are the partitions the member reports as owned in
	// its ConsumerGroupHeartbeat; nil when the request does not carry them
	// (then the member is taken to still own what it must revoke).
	OwnedTopicPartitions Assignment
}

// ReconcileMember is CurrentAssignmentBuilder.build: the member's next state
// towards its target assignment, or the same state when it cannot move on.
//
//   - STABLE at an older epoch than the target: compute the next assignment.
//   - UNREVOKED_PARTITIONS: wait while the member still owns a partition
//     pending revocation; once it does not, compute the next assignment from
//     epoch + 1.
//   - UNRELEASED_PARTITIONS: compute the next assignment (picking up the
//     partitions released since).
//
// The next assignment keeps assigned ∩ target, revokes assigned − target
// (the member stays at its epoch in UNREVOKED_PARTITIONS if it still owns
// any of them), and adds the partitions of the target that nobody holds
// (the member moves to the target epoch, UNRELEASED_PARTITIONS while some of
// its target is still held by others, else STABLE).
func ReconcileMember(m MemberAssignmentState, r Reconciliation) (MemberAssignmentState, error) {
	if r.CurrentPartitionEpoch == nil {
		return m, fmt.Errorf("kgviz: ReconcileMember: nil CurrentPartitionEpoch")
	}
	switch m.State {
	case MemberStable:
		if m.MemberEpoch != r.TargetAssignmentEpoch {
			return nextAssignment(m, r, m.MemberEpoch), nil
		}
		return m, nil
	case MemberUnrevokedPartitions:
		if ownsAny(r.OwnedTopicPartitions, m.PartitionsPendingRevocation) {
			return m, nil
		}
		return nextAssignment(m, r, m.MemberEpoch+1), nil
	case MemberUnreleasedPartitions:
		return nextAssignment(m, r, m.MemberEpoch), nil
	}
	return m, fmt.Errorf("kgviz: ReconcileMember: member in unknown state %v: FENCED_MEMBER_EPOCH, it must rejoin without partitions", m.State)
}

// ownsAny is ownsRevokedPartitions: whether the owned partitions (nil: not
// reported) include any of revoked.
func ownsAny(owned Assignment, revoked Assignment) bool {
	if owned == nil {
		return true
	}
	pending := partitionSet(revoked)
	for _, tp := range owned {
		for _, p := range tp.Partitions {
			if pending[tp.TopicID][p] {
				return true
			}
		}
	}
	return false
}

func partitionSet(a Assignment) map[TopicID]map[int]bool {
	out := make(map[TopicID]map[int]bool, len(a))
	for _, tp := range a {
		s := out[tp.TopicID]
		if s == nil {
			s = make(map[int]bool, len(tp.Partitions))
			out[tp.TopicID] = s
		}
		for _, p := range tp.Partitions {
			s[p] = true
		}
	}
	return out
}

// sortedAssignment turns a set into an Assignment sorted by topic id
// (Uuid.compareTo) and partition.
func sortedAssignment(set map[TopicID][]int) Assignment {
	ids := make([]TopicID, 0, len(set))
	for id, ps := range set {
		if len(ps) > 0 {
			ids = append(ids, id)
		}
	}
	sortedTopicIDs(ids)
	out := make(Assignment, 0, len(ids))
	for _, id := range ids {
		ps := slices.Clone(set[id])
		slices.Sort(ps)
		out = append(out, TopicPartitions{TopicID: id, Partitions: ps})
	}
	return out
}

// nextAssignment is CurrentAssignmentBuilder.computeNextAssignment, with a
// set per topic and list.
func nextAssignment(m MemberAssignmentState, r Reconciliation, memberEpoch int) MemberAssignmentState {
	target := partitionSet(r.TargetAssignment)
	current := partitionSet(m.AssignedPartitions)
	topics := make([]TopicID, 0, len(target)+len(current))
	for id := range target {
		topics = append(topics, id)
	}
	for id := range current {
		if _, dup := target[id]; !dup {
			topics = append(topics, id)
		}
	}
	sortedTopicIDs(topics)

	assigned := map[TopicID][]int{}
	revoking := map[TopicID][]int{}
	pending := map[TopicID][]int{}
	unreleased := false
	for _, id := range topics {
		for p := range current[id] {
			if target[id][p] {
				assigned[id] = append(assigned[id], p)
			} else {
				revoking[id] = append(revoking[id], p)
			}
		}
		for p := range target[id] {
			if current[id][p] {
				continue
			}
			if r.CurrentPartitionEpoch(id, p) != -1 {
				unreleased = true
				continue
			}
			pending[id] = append(pending[id], p)
		}
	}
	next := m
	setEpoch := func(e int) {
		next.PreviousMemberEpoch = m.MemberEpoch
		next.MemberEpoch = e
	}
	revocation := sortedAssignment(revoking)
	switch {
	case len(revocation) > 0 && ownsAny(r.OwnedTopicPartitions, revocation):
		// Revoke first: stay at the epoch until the member acknowledges.
		next.State = MemberUnrevokedPartitions
		setEpoch(memberEpoch)
		next.AssignedPartitions = sortedAssignment(assigned)
		next.PartitionsPendingRevocation = revocation
		return next
	case len(pending) > 0:
		for id, ps := range pending {
			assigned[id] = append(assigned[id], ps...)
		}
		next.State = MemberStable
		if unreleased {
			next.State = MemberUnreleasedPartitions
		}
	case unreleased:
		next.State = MemberUnreleasedPartitions
	default:
		next.State = MemberStable
	}
	setEpoch(r.TargetAssignmentEpoch)
	next.AssignedPartitions = sortedAssignment(assigned)
	next.PartitionsPendingRevocation = Assignment{}
	return next
}
