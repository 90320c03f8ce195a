package broker

// The classic group keeps its members both in join order (order, inOrder)
// and sorted by id (byID) instead of sorting at every rebalance
// (classic_group.go). The figure that keeps it: docs/performance.md,
// perf4/perf5 ("The classic group keeps its members both in join order and
// sorted by id": with the other changes of those branches a third less CPU
// in the rolling restarts); no figure of this change alone was measured.
// Sorting the ids and looking each member up is the plain statement.

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
