package broker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// refSessionExpired is sessionExpired as it was before the timer held its
// member: the member looked up by id at every expiry.
func refSessionExpired(g *ClassicGroup, id string) {
	m, ok := g.members[id]
	if !ok {
		return
	}
	if g.now() < m.deadline {
		m.session.Reset(m.deadline)
		return
	}
	if m.join != nil || m.sync != nil {
		g.heardFrom(m, g.now())
		return
	}
	g.removeMember(m, event.Event{Reason: event.ReasonSessionTimeout, Ticks: g.now() - m.heard}, true)
}

// TestClassicSessionExpiredMatchesReference: twin brokers take the same
// random histories (members joining, dynamic or static, rejoining,
// leaving, syncing, heartbeating, time passing with its session, join and
// sync timeouts); at random steps the session expiry of a random member,
// in the group or removed from it (left, timed out, replaced), is run by
// sessionExpired on one and by refSessionExpired on the other: the same
// answers are sent, and the groups keep the same members, states and
// session deadlines.
func TestClassicSessionExpiredMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	for iter := range 150 {
		type side struct {
			b    *Broker
			clk  *clock.Clock
			out  *outbox
			seen map[string]*classicMember // every member the group had
		}
		var sides [2]*side
		for i := range sides {
			clk, out := clock.New(), &outbox{}
			sides[i] = &side{New(Config{InternalTopics: true}, clk, out, nil), clk, out, map[string]*classicMember{}}
		}
		id := 0
		send := func(client int, m kafka.Message) {
			id++
			for _, s := range sides {
				s.b.Receive(&Envelope{ID: id, From: fmt.Sprintf("C%d", client), To: "B1", Conn: client, Msg: m})
			}
		}
		for step := range 150 {
			g := sides[0].b.Groups().Classic("g")
			var ids []string
			if g != nil {
				ids = g.order
			}
			client := 1 + rng.IntN(8)
			switch op := rng.IntN(10); {
			case op < 3 || len(ids) == 0:
				req := &JoinGroupRequest{GroupID: "g", SessionTimeout: 2 + rng.IntN(5), RebalanceTimeout: 2 + rng.IntN(5), ProtocolType: "consumer",
					Protocols: []JoinGroupProtocol{{Name: "range", Metadata: ConsumerProtocolSubscription{Topics: []string{"orders"}, GenerationID: -1}}}}
				if rng.IntN(2) == 0 {
					req.GroupInstanceID = fmt.Sprintf("i%d", rng.IntN(4))
				}
				send(client, req)
			case op < 4:
				mid := ids[rng.IntN(len(ids))]
				send(client, &JoinGroupRequest{GroupID: "g", SessionTimeout: 2 + rng.IntN(5), RebalanceTimeout: 2 + rng.IntN(5), MemberID: mid,
					GroupInstanceID: g.MemberInstanceID(mid), ProtocolType: "consumer",
					Protocols: []JoinGroupProtocol{{Name: "range", Metadata: ConsumerProtocolSubscription{Topics: []string{"orders"}, GenerationID: -1}}}})
			case op < 5:
				mid := ids[rng.IntN(len(ids))]
				send(client, &LeaveGroupRequest{GroupID: "g", Members: []MemberIdentity{{MemberID: mid, GroupInstanceID: g.MemberInstanceID(mid)}}})
			case op < 6:
				mid := ids[rng.IntN(len(ids))]
				var plan []SyncGroupAssignment
				if mid == g.Leader() {
					for _, m := range ids {
						plan = append(plan, SyncGroupAssignment{MemberID: m, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: rng.IntN(2)}}})
					}
				}
				send(client, &SyncGroupRequest{GroupID: "g", GenerationID: g.Generation(), MemberID: mid, GroupInstanceID: g.MemberInstanceID(mid), Assignments: plan})
			case op < 7:
				mid := ids[rng.IntN(len(ids))]
				send(client, &HeartbeatRequest{GroupID: "g", GenerationID: g.Generation(), MemberID: mid, GroupInstanceID: g.MemberInstanceID(mid)})
			case op < 8:
				for range 1 + rng.IntN(4) {
					for _, s := range sides {
						s.clk.Advance()
						s.clk.FireDue()
					}
				}
			default: // a session expires, of a member of the group or of one gone
				if len(sides[0].seen) == 0 {
					continue
				}
				var all []string
				for id := range sides[0].seen {
					all = append(all, id)
				}
				slices.Sort(all)
				mid := all[rng.IntN(len(all))]
				sides[0].b.Groups().Classic("g").sessionExpired(mid, sides[0].seen[mid])
				refSessionExpired(sides[1].b.Groups().Classic("g"), mid)
			}
			ga, gb := sides[0].b.Groups().Classic("g"), sides[1].b.Groups().Classic("g")
			if ga == nil {
				require.Nil(t, gb)
				continue
			}
			at := fmt.Sprintf("iteration %d, step %d", iter, step)
			require.Equal(t, sides[1].out.sent, sides[0].out.sent, "%s: answers", at)
			require.Equal(t, gb.order, ga.order, "%s: members", at)
			require.Equal(t, gb.state, ga.state, "%s: state", at)
			require.Equal(t, gb.generation, ga.generation, "%s: generation", at)
			for _, id := range ga.order {
				ma, mb := ga.members[id], gb.members[id]
				require.Equal(t, mb.deadline, ma.deadline, "%s: %s deadline", at, id)
				require.Equal(t, mb.heard, ma.heard, "%s: %s heard", at, id)
				require.Equal(t, mb.session.Pending(), ma.session.Pending(), "%s: %s session", at, id)
				if ma.session.Pending() {
					require.Equal(t, mb.session.At(), ma.session.At(), "%s: %s session", at, id)
				}
			}
			for _, s := range sides {
				for id, m := range s.b.Groups().Classic("g").members {
					s.seen[id] = m
				}
			}
		}
	}
}
