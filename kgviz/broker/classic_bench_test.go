package broker

import (
	"fmt"
	"testing"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// discard is a network that drops what the broker sends (the benchmarks
// measure the coordinator, not the wire).
// It keeps the member list the leader was last sent.
type discard struct{ leaderList []JoinGroupMember }

func (d *discard) Send(e *Envelope) {
	if r, ok := e.Msg.(*JoinGroupResponse); ok && r.Members != nil {
		d.leaderList = r.Members
	}
}

// BenchmarkClassicRebalance is the coordinator's side of one eager
// rebalance of a 500-member group over 5000 partitions, as in the rolling
// restart: one member leaves and comes back with a new member id, every
// member rejoins, the leader syncs a range plan, the followers sync, every
// member fetches its offsets and heartbeats once.
func BenchmarkClassicRebalance(b *testing.B) {
	const members, partitions = 500, 5000
	clk, net := clock.New(), &discard{}
	br := New(Config{InternalTopics: true}, clk, net, nil)
	br.CreateTopic("t", partitions)
	names := make([]string, members+1)
	conns := map[string]int{}
	for c := range names {
		names[c] = fmt.Sprintf("C%d", c)
		conns[names[c]] = c
	}
	id := 0
	send := func(conn int, m kafka.Message) {
		id++
		br.Receive(&Envelope{ID: id, From: names[conn], To: "B1", Conn: conn, Msg: m})
	}
	connOf := func(g *ClassicGroup, mid string) int { return conns[g.MemberClientID(mid)] }
	// every partition has a committed offset; the i-th member by id gets
	// the i-th range of partitions
	per := partitions / members
	shares := make([][]kafka.TopicPartition, members)
	for i := range shares {
		for p := i * per; p < (i+1)*per; p++ {
			tp := kafka.TopicPartition{Topic: "t", Partition: p}
			shares[i] = append(shares[i], tp)
			br.Groups().commit("g", tp, p, 0, "C1")
		}
	}
	protocols := []JoinGroupProtocol{{Name: "range", Metadata: ConsumerProtocolSubscription{Topics: []string{"t"}, GenerationID: -1}}}
	joinReq := func(mid string) *JoinGroupRequest {
		return &JoinGroupRequest{GroupID: "g", SessionTimeout: 45, RebalanceTimeout: 300, MemberID: mid, ProtocolType: "consumer", Protocols: protocols}
	}
	for c := 1; c <= members; c++ {
		send(c, joinReq(""))
	}
	g := br.Groups().Classic("g")
	restarted := 0
	rebalance := func() {
		// one member restarts: leaves, and joins as a new member
		c := 1 + restarted%members
		restarted++
		var old string
		for _, mid := range g.order {
			if g.MemberClientID(mid) == names[c] {
				old = mid
			}
		}
		if old != "" {
			send(c, &LeaveGroupRequest{GroupID: "g", Members: []MemberIdentity{{MemberID: old}}})
		}
		send(c, joinReq(""))
		for _, mid := range append([]string(nil), g.order...) {
			if m := g.members[mid]; m.join == nil {
				send(connOf(g, mid), joinReq(mid))
			}
		}
		ids := make([]string, len(net.leaderList))
		for i, m := range net.leaderList {
			ids[i] = m.MemberID
		}
		plan := make([]SyncGroupAssignment, len(ids))
		for i, mid := range ids {
			plan[i] = SyncGroupAssignment{MemberID: mid, Assignment: shares[i]}
		}
		send(connOf(g, g.Leader()), &SyncGroupRequest{GroupID: "g", GenerationID: g.Generation(), MemberID: g.Leader(), Assignments: plan})
		for _, mid := range ids {
			if mid != g.Leader() {
				send(connOf(g, mid), &SyncGroupRequest{GroupID: "g", GenerationID: g.Generation(), MemberID: mid})
			}
		}
		for i, mid := range ids {
			send(connOf(g, mid), &OffsetFetchRequest{GroupID: "g", MemberEpoch: -1, Partitions: plan[i].Assignment, RequireStable: true})
			send(connOf(g, mid), &HeartbeatRequest{GroupID: "g", GenerationID: g.Generation(), MemberID: mid})
		}
		clk.Advance()
		clk.FireDue()
	}
	rebalance()
	if g.State() != kafka.GroupStable || g.Size() != members {
		b.Fatalf("state %s, %d members", g.State(), g.Size())
	}
	for b.Loop() {
		rebalance()
	}
	if g.State() != kafka.GroupStable || g.Size() != members {
		b.Fatalf("state %s, %d members", g.State(), g.Size())
	}
}
