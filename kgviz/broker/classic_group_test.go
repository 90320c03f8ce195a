package broker

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// The classic group coordinator stepped by messages alone: no client, only
// requests in and answers out, on the logical clock.

type outbox struct{ sent []Envelope }

func (o *outbox) Send(e *Envelope) { o.sent = append(o.sent, *e) } // a copy: e is lent

type harness struct {
	t   *testing.T
	b   *Broker
	clk *clock.Clock
	out *outbox
	id  int
}

func newHarness(t *testing.T) *harness {
	clk, out := clock.New(), &outbox{}
	b := New(Config{InternalTopics: true}, clk, out, nil)
	b.CreateTopic("orders", 2)
	return &harness{t: t, b: b, clk: clk, out: out}
}

var conns = map[string]int{"C1": 1, "C2": 2, "C3": 3}

// send delivers a request from client and returns the answers the broker
// sent at once (to anyone).
func (h *harness) send(client string, m kafka.Message) []Envelope {
	h.id++
	n := len(h.out.sent)
	h.b.Receive(&Envelope{ID: h.id, From: client, To: "B1", Conn: conns[client], Msg: m})
	return h.out.sent[n:]
}

// tick advances the clock and fires the coordinator's timers; it returns
// what the broker sent meanwhile.
func (h *harness) tick(n int) []Envelope {
	from := len(h.out.sent)
	for i := 0; i < n; i++ {
		h.clk.Advance()
		h.clk.FireDue()
	}
	return h.out.sent[from:]
}

// answerTo finds the answer to client among envelopes.
func answerTo[T kafka.Message](h *harness, envs []Envelope, client string) T {
	h.t.Helper()
	for _, e := range envs {
		if m, ok := e.Msg.(T); ok && e.To == client {
			return m
		}
	}
	var zero T
	h.t.Fatalf("no %T to %s among %d answers", zero, client, len(envs))
	return zero
}

func join(member string) *JoinGroupRequest {
	return &JoinGroupRequest{GroupID: "g", SessionTimeout: 10, RebalanceTimeout: 12, MemberID: member, ProtocolType: "consumer",
		Protocols: []JoinGroupProtocol{{Name: "range", Metadata: ConsumerProtocolSubscription{Topics: []string{"orders"}, GenerationID: -1}}}}
}

func heartbeat(member string, gen int) *HeartbeatRequest {
	return &HeartbeatRequest{GroupID: "g", GenerationID: gen, MemberID: member}
}

// stableAlone makes C1 the only member of a stable group; it returns C1's member id.
func (h *harness) stableAlone() string {
	jr := answerTo[*JoinGroupResponse](h, h.send("C1", join("")), "C1")
	if jr.ErrorCode != kafka.NONE || jr.GenerationID != 1 || jr.Leader != jr.MemberID {
		h.t.Fatalf("join: %+v", jr)
	}
	plan := []SyncGroupAssignment{{MemberID: jr.MemberID, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}}}}
	sr := answerTo[*SyncGroupResponse](h, h.send("C1", &SyncGroupRequest{GroupID: "g", GenerationID: 1, MemberID: jr.MemberID, Assignments: plan}), "C1")
	if sr.ErrorCode != kafka.NONE || len(sr.Assignment) != 2 {
		h.t.Fatalf("sync: %+v", sr)
	}
	if g := h.b.Groups().Classic("g"); g.State() != kafka.GroupStable {
		h.t.Fatalf("state %s", g.State())
	}
	return jr.MemberID
}

// A member that stops heartbeating is removed after session.timeout.ms; a
// later heartbeat learns it (UNKNOWN_MEMBER_ID), and the group is Empty.
func TestSessionTimeoutRemovesMember(t *testing.T) {
	h := newHarness(t)
	c1 := h.stableAlone()
	for i := 0; i < 3; i++ {
		h.tick(3)
		if r := answerTo[*HeartbeatResponse](h, h.send("C1", heartbeat(c1, 1)), "C1"); r.ErrorCode != kafka.NONE {
			t.Fatalf("heartbeat %d: %s", i, r.ErrorCode)
		}
	}
	// The last heartbeat arrived at tick 9, sent at tick 8 (every message
	// takes a tick): the session ends at 8 + 10.
	g := h.b.Groups().Classic("g")
	h.tick(8)
	if !g.HasMember(c1) {
		t.Fatal("removed before the session timeout")
	}
	h.tick(1)
	if g.HasMember(c1) || g.State() != kafka.GroupEmpty {
		t.Fatalf("after the session timeout: member %v, state %s", g.HasMember(c1), g.State())
	}
	if r := answerTo[*HeartbeatResponse](h, h.send("C1", heartbeat(c1, 1)), "C1"); r.ErrorCode != kafka.UNKNOWN_MEMBER_ID {
		t.Fatalf("heartbeat of a removed member: %s", r.ErrorCode)
	}
}

// A member joins a stable group: the old member's heartbeat answers
// REBALANCE_IN_PROGRESS; it does not rejoin within the rebalance timeout,
// so the coordinator completes the join without it, and its next heartbeat
// answers UNKNOWN_MEMBER_ID. The newcomer leads generation 2 alone.
func TestRebalanceTimeoutRemovesMember(t *testing.T) {
	h := newHarness(t)
	c1 := h.stableAlone()
	if out := h.send("C2", join("")); len(out) != 0 {
		t.Fatalf("the newcomer's JoinGroup is answered at once: %v", out)
	}
	g := h.b.Groups().Classic("g")
	if g.State() != kafka.GroupPreparingRebalance {
		t.Fatalf("state %s", g.State())
	}
	h.tick(1)
	if r := answerTo[*HeartbeatResponse](h, h.send("C1", heartbeat(c1, 1)), "C1"); r.ErrorCode != kafka.REBALANCE_IN_PROGRESS {
		t.Fatalf("heartbeat during the rebalance: %s", r.ErrorCode)
	}
	// C1 keeps heartbeating (its heartbeat thread runs) but never rejoins.
	var jr *JoinGroupResponse
	for i := 0; i < 14 && jr == nil; i++ {
		out := h.tick(1)
		for _, e := range out {
			if m, ok := e.Msg.(*JoinGroupResponse); ok && e.To == "C2" {
				jr = m
			}
		}
		if jr == nil {
			h.send("C1", heartbeat(c1, 1))
		}
	}
	if jr == nil || jr.ErrorCode != kafka.NONE || jr.GenerationID != 2 || jr.Leader != jr.MemberID || len(jr.Members) != 1 {
		t.Fatalf("the newcomer's join: %+v", jr)
	}
	if g.HasMember(c1) {
		t.Fatal("C1 is still a member after the rebalance timeout")
	}
	if r := answerTo[*HeartbeatResponse](h, h.send("C1", heartbeat(c1, 1)), "C1"); r.ErrorCode != kafka.UNKNOWN_MEMBER_ID {
		t.Fatalf("heartbeat of the removed member: %s", r.ErrorCode)
	}
	// C1 rejoins with no member id, as the consumer does after resetting its generation.
	h.send("C1", join(""))
	if g.State() != kafka.GroupPreparingRebalance {
		t.Fatalf("C1's rejoin: state %s", g.State())
	}
}

// A heartbeat from an old generation answers ILLEGAL_GENERATION.
func TestHeartbeatIllegalGeneration(t *testing.T) {
	h := newHarness(t)
	c1 := h.stableAlone()
	if r := answerTo[*HeartbeatResponse](h, h.send("C1", heartbeat(c1, 0)), "C1"); r.ErrorCode != kafka.ILLEGAL_GENERATION {
		t.Fatalf("heartbeat of generation 0: %s", r.ErrorCode)
	}
}

// A join phase no member rejoined is not completed: static C1 is stable in
// generation 1, dynamic C2 joins and leaves before the phase ends, and C1
// (heartbeating, REBALANCE_IN_PROGRESS) does not rejoin within the rebalance
// timeout. Kafka keeps the group PreparingRebalance in generation 1 and
// waits another rebalance timeout ("could not complete rebalance because no
// members rejoined", GroupMetadataManager.completeClassicGroupJoin after
// ClassicGroup.maybeElectNewJoinedLeader); C1's rejoin then completes
// generation 2 at once.
func TestJoinPhaseNoMemberRejoinedIsNotCompleted(t *testing.T) {
	h := newHarness(t)
	j1 := join("")
	j1.GroupInstanceID = "i1"
	jr := answerTo[*JoinGroupResponse](h, h.send("C1", j1), "C1")
	c1 := jr.MemberID
	plan := []SyncGroupAssignment{{MemberID: c1, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}}}}
	if sr := answerTo[*SyncGroupResponse](h, h.send("C1", &SyncGroupRequest{GroupID: "g", GenerationID: 1, MemberID: c1, GroupInstanceID: "i1", Assignments: plan}), "C1"); sr.ErrorCode != kafka.NONE {
		t.Fatalf("sync: %s", sr.ErrorCode)
	}
	h.send("C2", join(""))
	g := h.b.Groups().Classic("g")
	var c2 string
	for _, id := range g.order {
		if id != c1 {
			c2 = id
		}
	}
	h.send("C2", &LeaveGroupRequest{GroupID: "g", Members: []MemberIdentity{{MemberID: c2}}})
	for i := 0; i < 20; i++ {
		h.tick(2)
		hb := &HeartbeatRequest{GroupID: "g", GenerationID: 1, MemberID: c1, GroupInstanceID: "i1"}
		if r := answerTo[*HeartbeatResponse](h, h.send("C1", hb), "C1"); r.ErrorCode != kafka.REBALANCE_IN_PROGRESS {
			t.Fatalf("tick %d: heartbeat %s", h.clk.Now(), r.ErrorCode)
		}
		if g.State() != kafka.GroupPreparingRebalance || g.Generation() != 1 || !g.HasMember(c1) {
			t.Fatalf("tick %d: state %s generation %d member %v", h.clk.Now(), g.State(), g.Generation(), g.HasMember(c1))
		}
	}
	rejoin := join(c1)
	rejoin.GroupInstanceID = "i1"
	jr = answerTo[*JoinGroupResponse](h, h.send("C1", rejoin), "C1")
	if jr.ErrorCode != kafka.NONE || jr.GenerationID != 2 || jr.Leader != c1 {
		t.Fatalf("rejoin: %+v", jr)
	}
}

// Kafka's classic coordinator restarts a member's session on a Heartbeat, a
// JoinGroup and an accepted OffsetCommit while the group is Stable or
// PreparingRebalance (OffsetMetadataManager.commitOffset:
// rescheduleClassicGroupMemberHeartbeat), not on a SyncGroup answered at once
// in a Stable group (GroupMetadataManager.classicGroupSyncToClassicGroup).
// C1's session (10 ticks) restarted when the group became Stable at tick 0.
func TestSessionRestartedByOffsetCommitNotBySyncGroup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		request func(c1 string) kafka.Message
		removed int // the tick C1 is removed at
	}{
		{"offset commit sent at 2", func(c1 string) kafka.Message {
			return &OffsetCommitRequest{GroupID: "g", GenerationID: 1, MemberID: c1,
				Offsets: []PartitionOffset{{Partition: kafka.TopicPartition{Topic: "orders", Partition: 0}, Offset: 1}}}
		}, 12},
		{"refused offset commit (old generation)", func(c1 string) kafka.Message {
			return &OffsetCommitRequest{GroupID: "g", GenerationID: 0, MemberID: c1,
				Offsets: []PartitionOffset{{Partition: kafka.TopicPartition{Topic: "orders", Partition: 0}, Offset: 1}}}
		}, 10},
		{"sync group in a Stable group", func(c1 string) kafka.Message {
			return &SyncGroupRequest{GroupID: "g", GenerationID: 1, MemberID: c1}
		}, 10},
		{"heartbeat sent at 2", func(c1 string) kafka.Message { return heartbeat(c1, 1) }, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			c1 := h.stableAlone()
			g := h.b.Groups().Classic("g")
			h.tick(3)
			h.send("C1", tc.request(c1))
			h.tick(tc.removed - 1 - h.clk.Now())
			if !g.HasMember(c1) {
				t.Fatalf("removed before tick %d", tc.removed)
			}
			h.tick(1)
			if g.HasMember(c1) {
				t.Fatalf("still a member at tick %d", tc.removed)
			}
		})
	}
}

// TestStorePlanGivesEachMemberItsShare: the leader's SyncGroup plan is
// stored as GroupMetadataManager's classic SyncGroup handling stores it: the
// assignments by member id, ids that are not members ignored, and every
// member given its own share or nothing (setAndPropagateAssignment's
// getOrDefault(memberId, EMPTY_ASSIGNMENT); kgviz's nothing is nil, an empty
// share too). A member named twice keeps its last share (kgviz's choice: a
// leader running Kafka's ConsumerCoordinator never names one twice). A share
// is capped: an append to it cannot write into the leader's request.
func TestStorePlanGivesEachMemberItsShare(t *testing.T) {
	tp := func(p int) kafka.TopicPartition { return kafka.TopicPartition{Topic: "orders", Partition: p} }
	backing := []kafka.TopicPartition{tp(0), tp(1), tp(2), tp(3)}
	cases := []struct {
		name string
		plan []SyncGroupAssignment
		want map[string][]kafka.TopicPartition
	}{
		{"each its own", []SyncGroupAssignment{{"C1-1", backing[:1]}, {"C2-1", backing[1:3]}},
			map[string][]kafka.TopicPartition{"C1-1": {tp(0)}, "C2-1": {tp(1), tp(2)}}},
		{"one left out", []SyncGroupAssignment{{"C2-1", backing[:2]}},
			map[string][]kafka.TopicPartition{"C1-1": nil, "C2-1": {tp(0), tp(1)}}},
		{"named twice: the last wins", []SyncGroupAssignment{{"C1-1", backing[:1]}, {"C1-1", backing[2:3]}},
			map[string][]kafka.TopicPartition{"C1-1": {tp(2)}, "C2-1": nil}},
		{"an id not in the group", []SyncGroupAssignment{{"C9-1", backing[:1]}, {"C1-1", backing[3:]}},
			map[string][]kafka.TopicPartition{"C1-1": {tp(3)}, "C2-1": nil}},
		{"empty shares", []SyncGroupAssignment{{"C1-1", backing[:0]}, {"C2-1", nil}},
			map[string][]kafka.TopicPartition{"C1-1": nil, "C2-1": nil}},
		{"no plan", nil, map[string][]kafka.TopicPartition{"C1-1": nil, "C2-1": nil}},
	}
	for _, c := range cases {
		g := &ClassicGroup{members: map[string]*classicMember{}}
		for _, id := range []string{"C2-1", "C1-1"} { // join order
			m := &classicMember{id: id, assignment: []kafka.TopicPartition{{Topic: "old"}}}
			g.order, g.inOrder, g.members[id] = append(g.order, id), append(g.inOrder, m), m
		}
		g.storePlan(c.plan)
		for id, want := range c.want {
			got := g.members[id].assignment
			require.Equal(t, want, got, "%s: %s", c.name, id)
			require.Equal(t, len(got), cap(got), "%s: %s capped", c.name, id)
		}
	}
}

// Broker.Receive borrows its envelope (broker.go, Envelope's seams): a
// JoinGroup and a SyncGroup the coordinator parks are answered on the
// connection and to the request they came with, though the caller reused
// the envelope as soon as Receive returned.
func TestReceiveKeepsNoEnvelope(t *testing.T) {
	h := newHarness(t)
	c1 := h.stableAlone()
	// lend sends m from C2 in one envelope, scribbled over after Receive.
	var env Envelope
	lend := func(id int, m kafka.Message) []Envelope {
		n := len(h.out.sent)
		env = Envelope{ID: id, From: "C2", To: "B1", Conn: conns["C2"], Msg: m}
		h.b.Receive(&env)
		env = Envelope{ID: -1, ReplyTo: -1, From: "X", To: "Y", Conn: 9, Generation: -1, Msg: &HeartbeatRequest{}}
		return h.out.sent[n:]
	}
	// answered checks that the answer to C2's request id went to C2 on its connection.
	answered := func(out []Envelope, id int) kafka.Message {
		t.Helper()
		for _, e := range out {
			if e.ReplyTo == id {
				if e.To != "C2" || e.Conn != conns["C2"] || e.From != "B1" {
					t.Fatalf("the answer to request %d went to %s on connection %d from %s", id, e.To, e.Conn, e.From)
				}
				return e.Msg
			}
		}
		t.Fatalf("no answer to request %d among %d", id, len(out))
		return nil
	}
	if out := lend(101, join("")); len(out) != 0 {
		t.Fatalf("C2's JoinGroup is answered at once: %v", out)
	}
	out := h.send("C1", join(c1)) // the last member rejoins: the join phase completes
	jr, ok := answered(out, 101).(*JoinGroupResponse)
	if !ok || jr.ErrorCode != kafka.NONE || jr.GenerationID != 2 {
		t.Fatalf("C2's join: %+v", jr)
	}
	c2 := jr.MemberID
	if out := lend(102, &SyncGroupRequest{GroupID: "g", GenerationID: 2, MemberID: c2}); len(out) != 0 {
		t.Fatalf("the follower's SyncGroup is answered before the leader's: %v", out)
	}
	plan := []SyncGroupAssignment{
		{MemberID: c1, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: 0}}},
		{MemberID: c2, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: 1}}}}
	out = h.send("C1", &SyncGroupRequest{GroupID: "g", GenerationID: 2, MemberID: c1, Assignments: plan})
	if sr, ok := answered(out, 102).(*SyncGroupResponse); !ok || sr.ErrorCode != kafka.NONE || len(sr.Assignment) != 1 {
		t.Fatalf("C2's sync: %+v", sr)
	}
}
