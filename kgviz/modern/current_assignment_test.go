package modern

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReconcileMember (Kafka's CurrentAssignmentBuilder): one member's way to its
// target assignment, and the group-wide claims of KIP-848 it makes true:
// partitions are revoked before they are reassigned, there is no global
// barrier, and each member moves to the target epoch on its own.

func TestReconcileMember(t *testing.T) {
	img, err := NewTopicsImage(map[string]int{"orders": 3, "payments": 3})
	require.NoError(t, err)
	a := func(tps ...string) Assignment {
		out, err := AssignmentOf(img, parts(tps...))
		require.NoError(t, err)
		return sortedAssignment(func() map[TopicID][]int {
			m := map[TopicID][]int{}
			for _, tp := range out {
				m[tp.TopicID] = append(m[tp.TopicID], tp.Partitions...)
			}
			return m
		}())
	}
	free := func(TopicID, int) int { return -1 }
	heldBy := func(epoch int, tps ...string) func(TopicID, int) int {
		held := partitionSet(a(tps...))
		return func(id TopicID, p int) int {
			if held[id][p] {
				return epoch
			}
			return -1
		}
	}
	tests := []struct {
		name string
		in   MemberAssignmentState
		r    Reconciliation
		want MemberAssignmentState
	}{
		{
			name: "stable at the target epoch: nothing to do",
			in:   MemberAssignmentState{State: MemberStable, MemberEpoch: 5, PreviousMemberEpoch: 4, AssignedPartitions: a("orders-0")},
			r:    Reconciliation{TargetAssignmentEpoch: 5, TargetAssignment: a("orders-0"), CurrentPartitionEpoch: free},
			want: MemberAssignmentState{State: MemberStable, MemberEpoch: 5, PreviousMemberEpoch: 4, AssignedPartitions: a("orders-0")},
		},
		{
			name: "a new member gets its free partitions at once",
			in:   MemberAssignmentState{State: MemberStable, MemberEpoch: 0, PreviousMemberEpoch: -1},
			r:    Reconciliation{TargetAssignmentEpoch: 1, TargetAssignment: a("orders-0", "payments-0"), CurrentPartitionEpoch: free, OwnedTopicPartitions: Assignment{}},
			want: MemberAssignmentState{State: MemberStable, MemberEpoch: 1, PreviousMemberEpoch: 0, AssignedPartitions: a("orders-0", "payments-0"), PartitionsPendingRevocation: Assignment{}},
		},
		{
			name: "partitions to give up: revoke first, at the same epoch",
			in:   MemberAssignmentState{State: MemberStable, MemberEpoch: 1, AssignedPartitions: a("orders-0", "orders-1", "payments-0")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0", "payments-2"), CurrentPartitionEpoch: free, OwnedTopicPartitions: a("orders-0", "orders-1", "payments-0")},
			want: MemberAssignmentState{State: MemberUnrevokedPartitions, MemberEpoch: 1, PreviousMemberEpoch: 1, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: a("orders-1", "payments-0")},
		},
		{
			name: "still owns a revoked partition: wait",
			in:   MemberAssignmentState{State: MemberUnrevokedPartitions, MemberEpoch: 1, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: a("orders-1")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0"), CurrentPartitionEpoch: free, OwnedTopicPartitions: a("orders-0", "orders-1")},
			want: MemberAssignmentState{State: MemberUnrevokedPartitions, MemberEpoch: 1, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: a("orders-1")},
		},
		{
			name: "owned partitions not reported: wait",
			in:   MemberAssignmentState{State: MemberUnrevokedPartitions, MemberEpoch: 1, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: a("orders-1")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0"), CurrentPartitionEpoch: free},
			want: MemberAssignmentState{State: MemberUnrevokedPartitions, MemberEpoch: 1, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: a("orders-1")},
		},
		{
			name: "revocation acknowledged: on to the target epoch",
			in:   MemberAssignmentState{State: MemberUnrevokedPartitions, MemberEpoch: 1, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: a("orders-1")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0", "payments-2"), CurrentPartitionEpoch: free, OwnedTopicPartitions: a("orders-0")},
			want: MemberAssignmentState{State: MemberStable, MemberEpoch: 2, PreviousMemberEpoch: 1, AssignedPartitions: a("orders-0", "payments-2"), PartitionsPendingRevocation: Assignment{}},
		},
		{
			name: "a partition still held by another member: unreleased",
			in:   MemberAssignmentState{State: MemberStable, MemberEpoch: 1, AssignedPartitions: a("orders-0")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0", "orders-1", "orders-2"), CurrentPartitionEpoch: heldBy(1, "orders-1"), OwnedTopicPartitions: a("orders-0")},
			want: MemberAssignmentState{State: MemberUnreleasedPartitions, MemberEpoch: 2, PreviousMemberEpoch: 1, AssignedPartitions: a("orders-0", "orders-2"), PartitionsPendingRevocation: Assignment{}},
		},
		{
			name: "unreleased, nothing free yet: wait at the target epoch",
			in:   MemberAssignmentState{State: MemberUnreleasedPartitions, MemberEpoch: 2, PreviousMemberEpoch: 1, AssignedPartitions: a("orders-0")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0", "orders-1"), CurrentPartitionEpoch: heldBy(1, "orders-1"), OwnedTopicPartitions: a("orders-0")},
			want: MemberAssignmentState{State: MemberUnreleasedPartitions, MemberEpoch: 2, PreviousMemberEpoch: 2, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: Assignment{}},
		},
		{
			name: "unreleased partition freed: stable",
			in:   MemberAssignmentState{State: MemberUnreleasedPartitions, MemberEpoch: 2, PreviousMemberEpoch: 1, AssignedPartitions: a("orders-0")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0", "orders-1"), CurrentPartitionEpoch: free, OwnedTopicPartitions: a("orders-0")},
			want: MemberAssignmentState{State: MemberStable, MemberEpoch: 2, PreviousMemberEpoch: 2, AssignedPartitions: a("orders-0", "orders-1"), PartitionsPendingRevocation: Assignment{}},
		},
		{
			name: "the member already dropped what it must revoke: no revocation round",
			in:   MemberAssignmentState{State: MemberStable, MemberEpoch: 1, AssignedPartitions: a("orders-0", "orders-1")},
			r:    Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: a("orders-0"), CurrentPartitionEpoch: free, OwnedTopicPartitions: a("orders-0")},
			want: MemberAssignmentState{State: MemberStable, MemberEpoch: 2, PreviousMemberEpoch: 1, AssignedPartitions: a("orders-0"), PartitionsPendingRevocation: Assignment{}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReconcileMember(tc.in, tc.r)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}

	_, err = ReconcileMember(MemberAssignmentState{State: 9}, Reconciliation{CurrentPartitionEpoch: free})
	assert.ErrorContains(t, err, "unknown state MemberState(9)")
	_, err = ReconcileMember(MemberAssignmentState{}, Reconciliation{})
	assert.ErrorContains(t, err, "nil CurrentPartitionEpoch")
}

// reconGroup is a group of consumers under the consumer protocol, reduced to
// reconciliation: each heartbeat reconciles one member; a member acknowledges
// a revocation at its next heartbeat.
type reconGroup struct {
	state map[string]MemberAssignmentState
	owned map[string]Assignment // what each member's application holds
}

// currentEpoch is ConsumerGroup.currentPartitionEpoch: who holds a partition
// (assigned or pending revocation), other than the asking member.
func (g *reconGroup) currentEpoch(asking string) func(TopicID, int) int {
	return func(id TopicID, p int) int {
		for mid, s := range g.state {
			if mid == asking {
				continue
			}
			if partitionSet(s.AssignedPartitions)[id][p] || partitionSet(s.PartitionsPendingRevocation)[id][p] {
				return s.MemberEpoch
			}
		}
		return -1
	}
}

// TestReconciliationRevokesBeforeReassigning runs random groups through
// target assignments and heartbeats in random order, and checks KIP-848's
// claims at every step:
//   - no partition is held by two members (assigned or pending revocation);
//   - a member that gives nothing up and gains nothing keeps consuming all
//     along and moves to the new epoch at its first heartbeat (no barrier);
//   - every member reaches its target, STABLE at the target epoch.
func TestReconciliationRevokesBeforeReassigning(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 848))
	for _, a := range ServerAssignors() {
		for round := range 100 {
			topics := map[string]int{"orders": 1 + rng.IntN(12), "payments": 1 + rng.IntN(12)}
			img, err := NewTopicsImage(topics)
			require.NoError(t, err)
			sub := []string{"orders", "payments"}
			g := &reconGroup{state: map[string]MemberAssignmentState{}, owned: map[string]Assignment{}}
			var members []GroupMember
			target := map[string]Assignment{}
			epoch := 0
			for k := range 2 + rng.IntN(6) {
				// A member joins: the group epoch and the target move on.
				m := GroupMember{MemberID: fmt.Sprintf("C%d-1", k+1), SubscribedTopicNames: sub}
				res, err := BuildTargetAssignment(a, TargetAssignmentInput{Members: members, TargetAssignment: target, Topics: img, Updates: []MemberUpdate{{m.MemberID, &m}}})
				require.NoError(t, err)
				members = append(members, m)
				target = maps.Clone(res.Members)
				epoch++
				g.state[m.MemberID] = MemberAssignmentState{State: MemberStable, MemberEpoch: 0, PreviousMemberEpoch: -1}
				g.owned[m.MemberID] = Assignment{}
				untouched := map[string]bool{}
				for _, mm := range members[:len(members)-1] {
					untouched[mm.MemberID] = target[mm.MemberID].Equal(g.state[mm.MemberID].AssignedPartitions)
				}

				// Heartbeats in random order until everybody is stable at the epoch.
				for step := 0; ; step++ {
					require.Less(t, step, 1000, "%s round %d: no convergence", a.Name(), round)
					ids := make([]string, 0, len(g.state))
					for id := range g.state {
						ids = append(ids, id)
					}
					sort.Strings(ids)
					id := ids[rng.IntN(len(ids))]
					before := g.state[id]
					next, err := ReconcileMember(before, Reconciliation{TargetAssignmentEpoch: epoch, TargetAssignment: target[id],
						CurrentPartitionEpoch: g.currentEpoch(id), OwnedTopicPartitions: g.owned[id]})
					require.NoError(t, err)
					g.state[id] = next
					// The application drops what it must revoke (acknowledged at
					// the next heartbeat) and takes what it was assigned.
					g.owned[id] = next.AssignedPartitions

					if untouched[id] {
						assert.Equal(t, MemberStable, next.State, "%s loses nothing, gains nothing: no wait", id)
						assert.Equal(t, epoch, next.MemberEpoch)
					}
					holder := map[string]string{}
					for mid, s := range g.state {
						for _, tp := range append(append(Assignment{}, s.AssignedPartitions...), s.PartitionsPendingRevocation...) {
							for _, p := range tp.Partitions {
								key := fmt.Sprintf("%s-%d", tp.TopicID, p)
								if other, dup := holder[key]; dup {
									t.Fatalf("%s round %d: %s held by %s and %s", a.Name(), round, key, other, mid)
								}
								holder[key] = mid
							}
						}
					}
					done := true
					for mid, s := range g.state {
						if s.State != MemberStable || s.MemberEpoch != epoch || !s.AssignedPartitions.Equal(target[mid]) {
							done = false
						}
					}
					if done {
						break
					}
				}
			}
		}
	}
}

// parts parses a list of partitions: parts("orders-0", "payments-1").
func parts(ss ...string) []TopicPartition {
	out := []TopicPartition{}
	for _, s := range ss {
		i := strings.LastIndexByte(s, '-')
		p, err := strconv.Atoi(s[i+1:])
		if i < 0 || err != nil {
			panic("parts: " + s)
		}
		out = append(out, TopicPartition{Topic: s[:i], Partition: p})
	}
	return out
}
