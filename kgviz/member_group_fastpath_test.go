package kgviz

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/stretchr/testify/require"
)

// sendJoinRequestReference is the JoinGroup request sendJoin sends, built as
// sendJoin first built it (the protocol list allocated apart from the
// request), its reference; it changes nothing of p.
func sendJoinRequestReference(p *member) *broker.JoinGroupRequest {
	g := &p.group
	sub := broker.ConsumerProtocolSubscription{Topics: p.t.topicNames(), GenerationID: -1, OwnedGenerationID: -1}
	if g.generation > 0 {
		sub.GenerationID = g.generation
	}
	if p.ownedGen != 0 {
		sub.OwnedGenerationID = p.ownedGen
	}
	if p.protocol == Cooperative {
		sub.OwnedPartitions = append([]TopicPartition(nil), p.owned...)
	} else {
		sub.UserData = g.prevAssignment
	}
	protocols := make([]broker.JoinGroupProtocol, len(p.cfg.assignors))
	for i, a := range p.cfg.assignors {
		protocols[i] = broker.JoinGroupProtocol{Name: a.Name(), Metadata: sub}
	}
	return &broker.JoinGroupRequest{GroupID: GroupID, SessionTimeout: p.cfg.sessionTimeout, RebalanceTimeout: p.cfg.maxPollInterval,
		MemberID: g.memberID, GroupInstanceID: p.cfg.instanceID, ProtocolType: "consumer", Protocols: protocols}
}

// TestSendJoinMatchesReference: members with one assignor (whose request
// and protocol are one allocation) and with several, eager and cooperative,
// static or not, new or after a rebalance, send the JoinGroup request the
// reference builds; a request's protocol list holds exactly its protocols.
func TestSendJoinMatchesReference(t *testing.T) {
	cases := []struct {
		name string
		opts []Option
	}{
		{"range", []Option{WithAssignor(Range)}},
		{"cooperative-sticky", []Option{WithAssignor(CooperativeSticky)}},
		{"range and cooperative-sticky", []Option{WithAssignor(Range, CooperativeSticky)}},
		{"all four", []Option{WithAssignor(Range, RoundRobin, Sticky, CooperativeSticky)}},
	}
	rejoins := 0 // requests of members that owned something
	for _, c := range cases {
		for _, static := range []bool{false, true} {
			w := NewWorld(append([]Option{WithOnlyTopics(), WithTopic("a", 4, "a"), WithTopic("b", 3, "b"), WithRecords(0)}, c.opts...)...)
			var memberOpts []Option
			if static {
				memberOpts = append(memberOpts, Static())
			}
			w.AddMember("C1", memberOpts...).AddMember("C2", memberOpts...)
			for round := range 3 {
				if round > 0 {
					w.RunUntil(Stable())
					require.NoError(t, w.Err())
				}
				for _, name := range []string{"C1", "C2"} {
					p, err := w.member("test", name)
					require.NoError(t, err)
					want := sendJoinRequestReference(p)
					p.sendJoin()
					lane := w.net.lanes[laneNormal]
					got, ok := lane[len(lane)-1].env.Msg.(*broker.JoinGroupRequest)
					require.True(t, ok, "%s static=%v round %d %s: the last message sent", c.name, static, round, name)
					require.Equal(t, want, got, "%s static=%v round %d %s", c.name, static, round, name)
					require.Equal(t, len(got.Protocols), cap(got.Protocols), "%s: no room after the protocols", c.name)
					if md := got.Protocols[0].Metadata; len(md.UserData)+len(md.OwnedPartitions) > 0 && md.GenerationID > 0 {
						rejoins++
					}
				}
			}
		}
	}
	require.Greater(t, rejoins, 10)
}
