package modern

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNextAssignmentSortedMatchesSets: nextAssignmentSorted (sorted
// partitions merged per topic) gives what nextAssignmentBySets (a set per
// topic and list) gives, over random current and target assignments
// (unsorted, with duplicate partitions, empty topics, topics in any order),
// random holders of the partitions and random owned lists; it declines only
// an assignment that lists a topic twice.
func TestNextAssignmentSortedMatchesSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(848, 11))
	img, err := NewTopicsImage(map[string]int{"a": 8, "b": 8, "c": 8, "d": 8})
	require.NoError(t, err)
	var ids []TopicID
	for _, ti := range img.Topics() {
		ids = append(ids, ti.ID)
	}
	randomAssignment := func(sorted bool) Assignment {
		var a Assignment
		for _, i := range rng.Perm(len(ids))[:rng.IntN(len(ids)+1)] {
			var ps []int
			for p := range 8 {
				if rng.IntN(2) == 0 {
					ps = append(ps, p)
				}
			}
			if !sorted {
				rng.Shuffle(len(ps), func(x, y int) { ps[x], ps[y] = ps[y], ps[x] })
				if len(ps) > 0 && rng.IntN(5) == 0 {
					ps = append(ps, ps[0]) // a partition twice
				}
			}
			a = append(a, TopicPartitions{TopicID: ids[i], Partitions: ps})
		}
		if sorted {
			a = sortedAssignment(partitionLists(a))
		} else if len(a) > 0 && rng.IntN(10) == 0 {
			a = append(a, TopicPartitions{TopicID: a[0].TopicID, Partitions: []int{7}}) // a topic twice
		}
		if a == nil && rng.IntN(2) == 0 {
			a = Assignment{}
		}
		return a
	}
	declined := 0
	for i := range 20000 {
		held := map[TopicID]map[int]int{}
		for _, id := range ids {
			held[id] = map[int]int{}
			for p := range 8 {
				if rng.IntN(3) == 0 {
					held[id][p] = rng.IntN(5)
				}
			}
		}
		epoch := func(id TopicID, p int) int {
			if e, ok := held[id][p]; ok {
				return e
			}
			return -1
		}
		m := MemberAssignmentState{State: MemberState(rng.IntN(3)), MemberEpoch: rng.IntN(9), PreviousMemberEpoch: rng.IntN(9),
			AssignedPartitions: randomAssignment(rng.IntN(4) != 0), PartitionsPendingRevocation: randomAssignment(true)}
		r := Reconciliation{TargetAssignmentEpoch: 1 + rng.IntN(9), TargetAssignment: randomAssignment(false),
			CurrentPartitionEpoch: epoch}
		if rng.IntN(3) != 0 {
			r.OwnedTopicPartitions = randomAssignment(false)
		}
		memberEpoch := m.MemberEpoch + rng.IntN(2)
		want := nextAssignmentBySets(m, r, memberEpoch)
		got, ok := nextAssignmentSorted(m, r, memberEpoch)
		if !ok {
			require.True(t, repeatsTopic(m.AssignedPartitions) || repeatsTopic(r.TargetAssignment), "case %d: declined", i)
			declined++
			continue
		}
		require.Equal(t, want, got, "case %d: %+v %+v", i, m, r)
	}
	require.Less(t, declined, 5000)
}

// partitionLists is an assignment's partitions by topic.
func partitionLists(a Assignment) map[TopicID][]int {
	out := map[TopicID][]int{}
	for _, tp := range a {
		out[tp.TopicID] = append(out[tp.TopicID], tp.Partitions...)
	}
	return out
}
