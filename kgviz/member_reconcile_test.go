package kgviz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// reconcileDiffDef is reconcileDiff by its definition: the partitions of
// owned not in target, in owned's order, and those of target not in owned,
// in target's order.
func reconcileDiffDef(target, owned []TopicPartition) (revoked, added []TopicPartition) {
	for _, tp := range owned {
		if !slices.Contains(target, tp) {
			revoked = append(revoked, tp)
		}
	}
	for _, tp := range target {
		if !slices.Contains(owned, tp) {
			added = append(added, tp)
		}
	}
	return revoked, added
}

// TestReconcileDiffMatchesDefinition: reconcileDiff gives the partitions to
// revoke and to add, in the order of its definition, over random targets
// and owned lists, short and long, overlapping or not.
func TestReconcileDiffMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(848, 17))
	random := func() []TopicPartition {
		var out []TopicPartition
		n := rng.IntN(12)
		if rng.IntN(5) == 0 {
			n = rng.IntN(200)
		}
		for range n {
			out = append(out, TopicPartition{Topic: fmt.Sprint("t", rng.IntN(3)), Partition: rng.IntN(40)})
		}
		return out
	}
	for i := range 5000 {
		target, owned := random(), random()
		if rng.IntN(3) == 0 && len(owned) > 0 {
			target = append(target, owned[:rng.IntN(len(owned))]...)
			rng.Shuffle(len(target), func(x, y int) { target[x], target[y] = target[y], target[x] })
		}
		wantRevoked, wantAdded := reconcileDiffDef(target, owned)
		gotRevoked, gotAdded := reconcileDiff(target, owned)
		require.Equal(t, wantRevoked, gotRevoked, "case %d: revoked", i)
		require.Equal(t, wantAdded, gotAdded, "case %d: added", i)
	}
}

// TestAssignmentDiffIsOnJoinCompletesSets: a classic member's SyncGroup
// answer is applied as Kafka's ConsumerCoordinator.onJoinComplete applies
// it: revokedPartitions = owned minus assigned (which only a cooperative
// member still owns: an eager one revoked everything before it joined) and
// addedPartitions = assigned minus owned; kgviz keeps owned's order for the
// first and the assignment's for the second (both arrive sorted). With
// nothing owned, everything assigned is added.
func TestAssignmentDiffIsOnJoinCompletesSets(t *testing.T) {
	a0, a1, a2, b0 := TopicPartition{Topic: "a", Partition: 0}, TopicPartition{Topic: "a", Partition: 1},
		TopicPartition{Topic: "a", Partition: 2}, TopicPartition{Topic: "b", Partition: 0}
	cases := []struct {
		name                   string
		assigned, owned        []TopicPartition
		wantRevoked, wantAdded []TopicPartition
	}{
		{"first assignment (or eager: all revoked before joining)", []TopicPartition{a0, a1}, nil, nil, []TopicPartition{a0, a1}},
		{"nothing assigned, nothing owned", nil, nil, nil, nil},
		{"the same assignment again", []TopicPartition{a0, b0}, []TopicPartition{a0, b0}, nil, nil},
		{"one moves away", []TopicPartition{a0}, []TopicPartition{a0, a1}, []TopicPartition{a1}, nil},
		{"one more", []TopicPartition{a0, a1, a2}, []TopicPartition{a1}, nil, []TopicPartition{a0, a2}},
		{"swap", []TopicPartition{a2, b0}, []TopicPartition{a0, a1, a2}, []TopicPartition{a0, a1}, []TopicPartition{b0}},
		{"everything revoked", nil, []TopicPartition{a0, b0}, []TopicPartition{a0, b0}, nil},
	}
	for _, c := range cases {
		revoked, added := assignmentDiff(c.assigned, c.owned)
		require.Equal(t, c.wantRevoked, revoked, "%s: revoked", c.name)
		require.Equal(t, c.wantAdded, added, "%s: added", c.name)
	}
}
