package broker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz/clock"
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
				m := &classicMember{id: id, assignment: old}
				g.order = append(g.order, id)
				g.inOrder = append(g.inOrder, m)
				g.members[id] = m
			}
		}
		rng.Shuffle(len(fast.order), func(i, j int) {
			fast.order[i], fast.order[j] = fast.order[j], fast.order[i]
			fast.inOrder[i], fast.inOrder[j] = fast.inOrder[j], fast.inOrder[i]
		})
		copy(simple.order, fast.order)
		for i, id := range simple.order {
			simple.inOrder[i] = simple.members[id]
		}
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

// currentMembersSimple is the leader's member list as it was built before
// the group kept its members sorted (byID): the ids in join order, sorted,
// each member looked up by id.
func currentMembersSimple(g *ClassicGroup) []JoinGroupMember {
	ids := append([]string(nil), g.order...)
	sortStrings(ids)
	out := make([]JoinGroupMember, 0, len(ids))
	for _, id := range ids {
		m := g.members[id]
		var md ConsumerProtocolSubscription
		for _, p := range m.protocols {
			if p.Name == g.protocolName {
				md = p.Metadata
			}
		}
		out = append(out, JoinGroupMember{MemberID: id, GroupInstanceID: m.instanceID, Metadata: md})
	}
	return out
}

// TestClassicMemberListsMatchSimple: random histories of a classic group
// (dynamic and static members joining, static members replaced, members
// rejoining with other protocols, leaving, syncing, timing out) keep inOrder
// the members of order, one for one, and byID the members sorted by id; the
// leader's member list built from byID is the list built by sorting the ids
// and looking each member up, at every step.
func TestClassicMemberListsMatchSimple(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	protocols := func() []JoinGroupProtocol {
		all := []JoinGroupProtocol{
			{Name: "range", Metadata: ConsumerProtocolSubscription{Topics: []string{"orders"}, GenerationID: -1}},
			{Name: "roundrobin", Metadata: ConsumerProtocolSubscription{Topics: []string{"orders", "other"}, GenerationID: 2}},
		}
		switch rng.IntN(4) {
		case 0:
			return all[1:]
		case 1:
			return []JoinGroupProtocol{all[1], all[0]}
		}
		return all[:1+rng.IntN(2)]
	}
	for iter := range 200 {
		clk, out := clock.New(), &outbox{}
		b := New(Config{InternalTopics: true}, clk, out, nil)
		id := 0
		send := func(client int, m kafka.Message) {
			id++
			b.Receive(&Envelope{ID: id, From: fmt.Sprintf("C%d", client), To: "B1", Conn: client, Msg: m})
		}
		for step := range 150 {
			g := b.Groups().Classic("g")
			var ids []string
			if g != nil {
				ids = g.order
			}
			client := 1 + rng.IntN(12)
			switch op := rng.IntN(10); {
			case op < 3 || len(ids) == 0: // a new member, dynamic or static
				req := &JoinGroupRequest{GroupID: "g", SessionTimeout: 4 + rng.IntN(6), RebalanceTimeout: 3 + rng.IntN(6),
					ProtocolType: "consumer", Protocols: protocols()}
				if rng.IntN(2) == 0 {
					req.GroupInstanceID = fmt.Sprintf("i%d", rng.IntN(6))
				}
				send(client, req)
			case op < 5: // a member rejoins
				mid := ids[rng.IntN(len(ids))]
				send(client, &JoinGroupRequest{GroupID: "g", SessionTimeout: 4 + rng.IntN(6), RebalanceTimeout: 3 + rng.IntN(6),
					MemberID: mid, GroupInstanceID: g.MemberInstanceID(mid), ProtocolType: "consumer", Protocols: protocols()})
			case op < 6: // a member leaves
				mid := ids[rng.IntN(len(ids))]
				send(client, &LeaveGroupRequest{GroupID: "g", Members: []MemberIdentity{{MemberID: mid, GroupInstanceID: g.MemberInstanceID(mid)}}})
			case op < 8: // a member syncs (the leader with a plan)
				mid := ids[rng.IntN(len(ids))]
				var plan []SyncGroupAssignment
				if mid == g.Leader() {
					for _, m := range ids {
						plan = append(plan, SyncGroupAssignment{MemberID: m, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: rng.IntN(2)}}})
					}
				}
				send(client, &SyncGroupRequest{GroupID: "g", GenerationID: g.Generation(), MemberID: mid,
					GroupInstanceID: g.MemberInstanceID(mid), Assignments: plan})
			case op < 9: // a member heartbeats
				mid := ids[rng.IntN(len(ids))]
				send(client, &HeartbeatRequest{GroupID: "g", GenerationID: g.Generation(), MemberID: mid, GroupInstanceID: g.MemberInstanceID(mid)})
			default: // time passes: sessions, join and sync timeouts
				for range 1 + rng.IntN(5) {
					clk.Advance()
					clk.FireDue()
				}
			}
			g = b.Groups().Classic("g")
			if g == nil {
				continue
			}
			require.Len(t, g.inOrder, len(g.order), "iteration %d, step %d", iter, step)
			for i, id := range g.order {
				require.Same(t, g.members[id], g.inOrder[i], "iteration %d, step %d: inOrder[%d]", iter, step, i)
			}
			require.Len(t, g.byID, len(g.members), "iteration %d, step %d", iter, step)
			require.True(t, slices.IsSortedFunc(g.byID, func(a, b *classicMember) int { return strings.Compare(a.id, b.id) }),
				"iteration %d, step %d: byID sorted", iter, step)
			for _, m := range g.byID {
				require.Same(t, g.members[m.id], m, "iteration %d, step %d: byID member %s", iter, step, m.id)
			}
			require.Equal(t, currentMembersSimple(g), g.currentMembers(), "iteration %d, step %d", iter, step)
		}
	}
}
