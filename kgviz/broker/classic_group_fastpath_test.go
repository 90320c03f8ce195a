package broker

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// storePlanSimple is the plan storage as it was before storePlan: the plan
// by member id in a map (the last share named wins), then each member's
// share copied into one buffer, capped.
func storePlanSimple(g *ClassicGroup, assignments []SyncGroupAssignment) {
	plan := make(map[string][]kafka.TopicPartition, len(assignments))
	total := 0
	for _, a := range assignments {
		plan[a.MemberID] = a.Assignment
	}
	for _, id := range g.order {
		total += len(plan[id])
	}
	buf := make([]kafka.TopicPartition, 0, total)
	for _, id := range g.order {
		var own []kafka.TopicPartition
		if l := plan[id]; len(l) > 0 {
			start := len(buf)
			buf = append(buf, l...)
			own = buf[start:len(buf):len(buf)]
		}
		g.members[id].assignment = own
	}
}

// TestStorePlanMatchesSimple: random groups and plans (shares in any order,
// named twice, for ids not in the group, empty or nil, with spare capacity)
// give every member the same share as the map-and-copy version, nil where it
// gives nil, and never a share an append could write past.
func TestStorePlanMatchesSimple(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 14))
	for iter := range 2000 {
		newGroup := func() *ClassicGroup {
			return &ClassicGroup{members: map[string]*classicMember{}}
		}
		fast, simple := newGroup(), newGroup()
		n := rng.IntN(8)
		for i := range n {
			id := fmt.Sprintf("M%d-%d", i, rng.IntN(3))
			if _, ok := fast.members[id]; ok {
				continue
			}
			old := []kafka.TopicPartition{{Topic: "old", Partition: i}}
			for _, g := range []*ClassicGroup{fast, simple} {
				g.order = append(g.order, id)
				g.members[id] = &classicMember{id: id, assignment: old}
			}
		}
		rng.Shuffle(len(fast.order), func(i, j int) { fast.order[i], fast.order[j] = fast.order[j], fast.order[i] })
		copy(simple.order, fast.order)
		var plan []SyncGroupAssignment
		if rng.IntN(10) > 0 {
			plan = []SyncGroupAssignment{}
		}
		for range rng.IntN(10) {
			id := fmt.Sprintf("M%d-%d", rng.IntN(9), rng.IntN(3))
			var l []kafka.TopicPartition
			switch rng.IntN(4) {
			case 0: // nil
			case 1:
				l = make([]kafka.TopicPartition, 0, rng.IntN(3))
			default:
				k := rng.IntN(5)
				l = make([]kafka.TopicPartition, k, k+rng.IntN(3))
				for j := range l {
					l[j] = kafka.TopicPartition{Topic: "t", Partition: rng.IntN(20)}
				}
			}
			plan = append(plan, SyncGroupAssignment{MemberID: id, Assignment: l})
		}
		fast.storePlan(plan)
		storePlanSimple(simple, plan)
		for _, id := range fast.order {
			f, s := fast.members[id].assignment, simple.members[id].assignment
			require.Equal(t, s, f, "iteration %d, member %s", iter, id)
			require.Equal(t, s == nil, f == nil, "iteration %d, member %s: nil", iter, id)
			require.Equal(t, len(f), cap(f), "iteration %d, member %s: capped", iter, id)
		}
	}
}
