package kgviz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// memberOrdersReference is how newGroupView and kafkaOrder first ordered the
// members, their reference: always sorted (stably), already in order or not.
// It returns the unique members by id (first entry of each id in input
// order) and, as positions in that list, Kafka's MemberInfo order.
func memberOrdersReference(members []MemberSubscription) (unique []*MemberSubscription, kafka []int32) {
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(members[a].MemberID, members[b].MemberID) })
	for _, i := range order {
		if n := len(unique); n > 0 && unique[n-1].MemberID == members[i].MemberID {
			continue
		}
		unique = append(unique, &members[i])
	}
	kafka = make([]int32, len(unique))
	for i := range kafka {
		kafka[i] = int32(i)
	}
	slices.SortStableFunc(kafka, func(a, b int32) int { return memberInfoCompare(unique[a], unique[b]) })
	return unique, kafka
}

// TestMemberOrdersMatchReference: over random member lists (sorted by id as
// the broker sends them, or not; ids listed twice; static members; ids whose
// byte order is not Java's), newGroupView keeps the same members in the same
// order and kafkaOrder orders them as the reference does, whether or not a
// list already in order skips its sort.
func TestMemberOrdersMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(500, 5000))
	ids := []string{"C1-1", "C1-2", "C10-1", "C2-1", "a", "b", "\uffff-1", "\U0001F600-1", "C3-7"}
	sorted := 0
	for i := range 5000 {
		var members []MemberSubscription
		for range rng.IntN(8) {
			m := MemberSubscription{MemberID: ids[rng.IntN(len(ids))], Topics: []string{"t"}}
			if rng.IntN(4) == 0 {
				m.InstanceID = ids[rng.IntN(len(ids))]
			}
			members = append(members, m)
		}
		if rng.IntN(2) == 0 { // the broker's order
			slices.SortFunc(members, func(a, b MemberSubscription) int { return strings.Compare(a.MemberID, b.MemberID) })
			sorted++
		}
		wantMembers, wantOrder := memberOrdersReference(members)
		g := newGroupView(members, map[string]int{"t": 3})
		require.Len(t, g.members, len(wantMembers), "case %d", i)
		for k := range wantMembers {
			require.Same(t, wantMembers[k], g.members[k], "case %d: member %d", i, k)
		}
		require.Equal(t, fmt.Sprint(wantOrder), fmt.Sprint(g.kafkaOrder()), "case %d: Kafka's order", i)
	}
	require.Greater(t, sorted, 2000)
}
