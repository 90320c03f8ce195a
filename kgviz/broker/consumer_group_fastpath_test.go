package broker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/kgviz/modern"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type eventList struct{ events []event.Event }

func (l *eventList) Record(e event.Event) { l.events = append(l.events, e) }

// cgClient is a KIP-848 consumer as far as the coordinator can tell: it
// joins, heartbeats at its epoch, acknowledges each new assignment at once,
// and now and then sends a stale epoch, changes its subscription, leaves,
// leaves as a static member, or goes silent until its session expires.
type cgClient struct {
	name, instance string
	conn           int
	incarnation    int
	joined         bool
	epoch          int
	owned          modern.Assignment
	ack            bool
	silentUntil    int
}

func (c *cgClient) memberID() string { return fmt.Sprintf("%s-%d", c.name, c.incarnation) }

// consumerGroupRun drives one random consumer group and returns everything
// the broker sent and recorded.
func consumerGroupRun(seed uint64, members int) ([]Envelope, []event.Event) {
	rng := rand.New(rand.NewPCG(seed, 848))
	clk, out, rec := clock.New(), &outbox{}, &eventList{}
	b := New(Config{InternalTopics: true, ConsumerGroupSessionTimeout: 4}, clk, out, rec)
	b.CreateTopic("orders", 1+rng.IntN(12))
	b.CreateTopic("payments", 1+rng.IntN(6))
	topics := [][]string{{"orders", "payments"}, {"payments", "orders"}, {"orders"}}
	clients := make([]*cgClient, members)
	for i := range clients {
		clients[i] = &cgClient{name: fmt.Sprintf("C%d", i+1), conn: i + 1, incarnation: 1}
		if rng.IntN(3) == 0 {
			clients[i].instance = fmt.Sprintf("i%d", i+1)
		}
	}
	id := 0
	for range 200 {
		for _, c := range clients {
			if clk.Now() < c.silentUntil || rng.IntN(8) == 0 {
				continue // a heartbeat skipped now and then; silent for a while
			}
			req := &ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: c.memberID(), MemberEpoch: c.epoch, InstanceID: c.instance,
				RebalanceTimeoutMs: -1}
			switch r := rng.IntN(100); {
			case !c.joined:
				req.MemberEpoch, req.RebalanceTimeoutMs = 0, 10
				req.SubscribedTopicNames, req.TopicPartitions = topics[rng.IntN(2)], modern.Assignment{}
				c.joined = true
			case c.ack:
				req.TopicPartitions = slices.Clone(c.owned)
				c.ack = false
			case r < 2:
				req.MemberEpoch-- // a stale epoch (the answer that moved it on lost)
				if rng.IntN(2) == 0 {
					req.TopicPartitions = slices.Clone(c.owned)
				}
			case r < 4:
				req.SubscribedTopicNames = topics[rng.IntN(len(topics))]
			case r < 5:
				req.MemberEpoch = LeaveGroupMemberEpoch
			case r < 6 && c.instance != "":
				req.MemberEpoch = LeaveGroupStaticMemberEpoch
			case r < 7:
				c.silentUntil = clk.Now() + 2 + rng.IntN(6)
				continue
			}
			if req.MemberEpoch < 0 {
				c.joined, c.epoch, c.owned, c.incarnation = false, 0, nil, c.incarnation+1
			}
			id++
			n := len(out.sent)
			b.Receive(Envelope{ID: id, From: c.name, To: "B1", Conn: c.conn, Msg: req})
			for _, e := range out.sent[n:] {
				resp, ok := e.Msg.(*ConsumerGroupHeartbeatResponse)
				if !ok || e.To != c.name || req.MemberEpoch < 0 {
					continue
				}
				if resp.ErrorCode != kafka.NONE {
					if resp.ErrorCode == kafka.FENCED_MEMBER_EPOCH || resp.ErrorCode == kafka.UNKNOWN_MEMBER_ID {
						c.joined, c.epoch, c.owned, c.incarnation = false, 0, nil, c.incarnation+1
					}
					continue
				}
				c.epoch = resp.MemberEpoch
				if resp.Assignment != nil {
					c.owned, c.ack = resp.Assignment.TopicPartitions, true
				}
			}
		}
		clk.Advance()
		clk.FireDue()
	}
	return out.sent, rec.events
}

// TestConsumerGroupFastPathsMatchGeneralPath: the coordinator's fast paths
// (a plain heartbeat answered or reconciled without the general path, a
// STABLE member holding its target moved to the new epoch without
// CurrentAssignmentBuilder, owners not released to be held again) send and
// record exactly what the general path does.
func TestConsumerGroupFastPathsMatchGeneralPath(t *testing.T) {
	defer func() { generalPathOnly = false }()
	for seed := range uint64(40) {
		members := 1 + int(seed%12)
		generalPathOnly = false
		fastSent, fastEvents := consumerGroupRun(seed, members)
		generalPathOnly = true
		sent, events := consumerGroupRun(seed, members)
		require.Equal(t, len(sent), len(fastSent), "seed %d: messages sent", seed)
		for i := range sent {
			require.Equal(t, sent[i], fastSent[i], "seed %d: message %d", seed, i)
		}
		require.Equal(t, events, fastEvents, "seed %d", seed)
		require.NotEmpty(t, events)
	}
}

// TestPartitionNames: the short names of an assignment, sorted, as
// TopicPartitions and the broker's partition names give them.
func TestPartitionNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	b := New(Config{InternalTopics: true, PartitionName: func(tp kafka.TopicPartition) string {
		return fmt.Sprintf("%c%d", tp.Topic[0], tp.Partition)
	}}, clock.New(), &outbox{}, nil)
	names := []string{"orders", "payments", "invoices", "audit"}
	for _, n := range names {
		b.CreateTopic(n, 20)
	}
	g := newConsumerGroup(b.groups, "g")
	img := g.image()
	for range 500 {
		var a modern.Assignment
		for _, n := range names {
			if rng.IntN(2) == 0 {
				continue
			}
			id, _ := img.TopicID(n)
			tp := modern.TopicPartitions{TopicID: id}
			for _, p := range rng.Perm(20)[:rng.IntN(20)] {
				tp.Partitions = append(tp.Partitions, p)
			}
			a = append(a, tp)
		}
		if rng.IntN(5) == 0 {
			a = append(a, modern.TopicPartitions{TopicID: modern.TopicIDFor("deleted"), Partitions: []int{0}})
		}
		rng.Shuffle(len(a), func(i, j int) { a[i], a[j] = a[j], a[i] })
		var want []string
		for _, tp := range a.TopicPartitions(img) {
			want = append(want, b.pname(tp))
		}
		got := g.partitionNames(a)
		assert.Equal(t, len(want), len(got))
		if len(want) > 0 {
			assert.Equal(t, want, got)
		}
	}
}

// TestGroupLookupMatchesMap: the group coordinator's remembered last group
// is always the group its map holds, while consumer groups are created and
// emptied and empty ones become classic groups.
func TestGroupLookupMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	clk, out := clock.New(), &outbox{}
	b := New(Config{InternalTopics: true, ConsumerGroupSessionTimeout: 3}, clk, out, nil)
	b.CreateTopic("orders", 2)
	ids := []string{"g", "h"}
	members := map[string][]string{}
	for i := range 400 {
		id := ids[rng.IntN(len(ids))]
		env := Envelope{ID: i + 1, From: "C", To: "B1", Conn: 1 + rng.IntN(3)}
		switch rng.IntN(5) {
		case 0, 1:
			mid := fmt.Sprintf("m%d", i)
			env.Msg = &ConsumerGroupHeartbeatRequest{GroupID: id, MemberID: mid, RebalanceTimeoutMs: 10,
				SubscribedTopicNames: []string{"orders"}, TopicPartitions: modern.Assignment{}}
			members[id] = append(members[id], mid)
		case 2:
			if len(members[id]) == 0 {
				continue
			}
			env.Msg = &ConsumerGroupHeartbeatRequest{GroupID: id, MemberID: members[id][rng.IntN(len(members[id]))],
				MemberEpoch: LeaveGroupMemberEpoch, RebalanceTimeoutMs: -1}
		case 3:
			env.Msg = &JoinGroupRequest{GroupID: id, SessionTimeout: 3, RebalanceTimeout: 4, ProtocolType: "consumer",
				Protocols: []JoinGroupProtocol{{Name: "range", Metadata: ConsumerProtocolSubscription{Topics: []string{"orders"}, GenerationID: -1}}}}
		default:
			clk.Advance()
			clk.FireDue()
		}
		if env.Msg != nil {
			b.Receive(env)
		}
		for _, id := range ids {
			want := b.groups.groups[id]
			require.Equal(t, want, b.groups.Group(id), "step %d: group %s", i, id)
			c, _ := want.(*ConsumerGroup)
			k, _ := want.(*ClassicGroup)
			require.Equal(t, c, b.groups.Consumer(id), "step %d", i)
			require.Equal(t, k, b.groups.Classic(id), "step %d", i)
		}
	}
	_, classic := b.groups.groups["g"].(*ClassicGroup)
	_, consumer := b.groups.groups["h"].(*ConsumerGroup)
	t.Logf("at the end: g classic %v, h consumer %v", classic, consumer)
}
