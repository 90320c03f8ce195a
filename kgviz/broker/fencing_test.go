package broker

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Which fence a stale request meets, as Kafka 4.1.1's group coordinator
// decides it: a member the group no longer has is UNKNOWN_MEMBER_ID whatever
// generation it sends (ClassicGroup.validateMember runs first); a member the
// group still has, with another generation, is ILLEGAL_GENERATION
// (ClassicGroup.validateOffsetCommit, GroupMetadataManager
// .validateClassicGroupHeartbeat and .validateSyncGroup); a
// group.instance.id that now belongs to another member id is
// FENCED_INSTANCE_ID, an unknown one UNKNOWN_MEMBER_ID (validateMember); a
// plain OffsetCommit during CompletingRebalance is REBALANCE_IN_PROGRESS, a
// transactional one is not checked against the state
// (ClassicGroup.validateOffsetCommit).
func TestFencingAnswers(t *testing.T) {
	h := newHarness(t)
	c1 := h.stableAlone() // generation 1
	// A static member S joins: generation 2.
	sj := join("")
	sj.GroupInstanceID = "s"
	h.send("S", sj)
	c1j := answerTo[*JoinGroupResponse](h, h.send("C1", join(c1)), "C1")
	if c1j.GenerationID != 2 {
		t.Fatalf("generation 2 expected: %+v", c1j)
	}
	s1 := answerTo[*JoinGroupResponse](h, h.out.sent, "S").MemberID
	g := h.b.Groups().Classic("g")
	gc := h.b.Groups()
	if g.State() != kafka.GroupCompletingRebalance {
		t.Fatalf("state %s", g.State())
	}
	type check struct {
		name      string
		member    string
		instance  string
		gen       int
		want      kafka.ErrorCode // OffsetCommit
		wantTxn   kafka.ErrorCode // TxnOffsetCommit
		heartbeat kafka.ErrorCode
	}
	run := func(phase string, checks []check) {
		t.Helper()
		for _, c := range checks {
			if got := gc.CheckOffsetCommit("g", c.member, c.instance, c.gen, false); got != c.want {
				t.Errorf("%s, %s: OffsetCommit answered %s, Kafka %s", phase, c.name, got, c.want)
			}
			if got := gc.CheckOffsetCommit("g", c.member, c.instance, c.gen, true); got != c.wantTxn {
				t.Errorf("%s, %s: TxnOffsetCommit answered %s, Kafka %s", phase, c.name, got, c.wantTxn)
			}
			hb := &HeartbeatRequest{GroupID: "g", GenerationID: c.gen, MemberID: c.member, GroupInstanceID: c.instance}
			if got := answerTo[*HeartbeatResponse](h, h.send("X", hb), "X").ErrorCode; got != c.heartbeat {
				t.Errorf("%s, %s: Heartbeat answered %s, Kafka %s", phase, c.name, got, c.heartbeat)
			}
		}
	}
	run("CompletingRebalance", []check{
		{"a current member", c1, "", 2, kafka.REBALANCE_IN_PROGRESS, kafka.NONE, kafka.NONE},
		{"a current member, the generation before", c1, "", 1, kafka.ILLEGAL_GENERATION, kafka.ILLEGAL_GENERATION, kafka.ILLEGAL_GENERATION},
	})

	plan := []SyncGroupAssignment{{MemberID: c1, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: 0}}},
		{MemberID: s1, Assignment: []kafka.TopicPartition{{Topic: "orders", Partition: 1}}}}
	h.send("C1", &SyncGroupRequest{GroupID: "g", GenerationID: 2, MemberID: c1, Assignments: plan})
	h.send("S", &SyncGroupRequest{GroupID: "g", GenerationID: 2, MemberID: s1, GroupInstanceID: "s"})
	if g.State() != kafka.GroupStable {
		t.Fatalf("state %s", g.State())
	}
	// A late SyncGroup of the generation before.
	if r := answerTo[*SyncGroupResponse](h, h.send("C1", &SyncGroupRequest{GroupID: "g", GenerationID: 1, MemberID: c1}), "C1"); r.ErrorCode != kafka.ILLEGAL_GENERATION {
		t.Errorf("SyncGroup of a current member at the generation before: %s", r.ErrorCode)
	}

	// S restarts as a new process (a JoinGroup without member id, same
	// group.instance.id): it replaces its old member id, with no rebalance (KIP-345).
	s2 := answerTo[*JoinGroupResponse](h, h.send("S", sj), "S").MemberID
	if s2 == s1 || g.Generation() != 2 {
		t.Fatalf("static replacement: %s, generation %d", s2, g.Generation())
	}
	// C1 leaves: it is no longer a member.
	h.send("C1", &LeaveGroupRequest{GroupID: "g", Members: []MemberIdentity{{MemberID: c1}}})
	run("after C1 left and S was replaced", []check{
		{"a member that left, its own generation", c1, "", 2, kafka.UNKNOWN_MEMBER_ID, kafka.UNKNOWN_MEMBER_ID, kafka.UNKNOWN_MEMBER_ID},
		{"a member that left, the generation before", c1, "", 1, kafka.UNKNOWN_MEMBER_ID, kafka.UNKNOWN_MEMBER_ID, kafka.UNKNOWN_MEMBER_ID},
		{"the old member id of a replaced static member", s1, "s", 2, kafka.FENCED_INSTANCE_ID, kafka.FENCED_INSTANCE_ID, kafka.FENCED_INSTANCE_ID},
		{"an unknown group.instance.id", s1, "t", 2, kafka.UNKNOWN_MEMBER_ID, kafka.UNKNOWN_MEMBER_ID, kafka.UNKNOWN_MEMBER_ID},
	})
	if r := answerTo[*SyncGroupResponse](h, h.send("C1", &SyncGroupRequest{GroupID: "g", GenerationID: 2, MemberID: c1}), "C1"); r.ErrorCode != kafka.UNKNOWN_MEMBER_ID {
		t.Errorf("SyncGroup of a member that left: %s", r.ErrorCode)
	}
}
