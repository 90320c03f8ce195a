package kgviz

import (
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// TestNetworkReplyMatchesSend: random broker answers (heartbeat answers
// with and without errors, repeated or not, KIP-848 heartbeat answers with
// and without an assignment, produce answers to a member set to lose its
// next one, other answers; to a member or to the broker itself) put through
// Reply in one world and through Send (the reference, every other
// network's way) in its twin leave the same flights in the same lanes, the
// same message ids, heartbeat notes and lost produces, and record the same
// events.
func TestNetworkReplyMatchesSend(t *testing.T) {
	codes := []kafka.ErrorCode{kafka.NONE, kafka.NONE, kafka.REBALANCE_IN_PROGRESS, kafka.UNKNOWN_MEMBER_ID, kafka.ILLEGAL_GENERATION}
	for seed := range uint64(12) {
		a, b, _ := twinOwnedWorlds(seed)
		rng := rand.New(rand.NewPCG(seed, 17))
		for step := range 200 {
			conn := 1 + rng.IntN(len(a.conns)-1)
			to := a.conns[conn].name
			if rng.IntN(10) == 0 {
				to = a.broker.Name()
			}
			gen := rng.IntN(3)
			var m kafka.Message
			switch rng.IntN(6) {
			case 0, 1:
				m = &broker.HeartbeatResponse{ErrorCode: codes[rng.IntN(len(codes))]}
			case 2:
				r := &broker.ConsumerGroupHeartbeatResponse{ErrorCode: codes[rng.IntN(len(codes))]}
				if rng.IntN(2) == 0 {
					r.Assignment = &broker.ConsumerGroupHeartbeatAssignment{}
				}
				m = r
			case 3:
				if rng.IntN(2) == 0 {
					a.conns[conn].loseNextProduce, b.conns[conn].loseNextProduce = true, true
				}
				m = &broker.ProduceResponse{Partition: kafka.TopicPartition{Topic: "a", Partition: rng.IntN(5)}, BaseOffset: rng.IntN(9)}
			case 4:
				m = &broker.OffsetFetchResponse{Offsets: []broker.PartitionOffset{{Partition: kafka.TopicPartition{Topic: "b", Partition: 1}, Offset: 3}}}
			default:
				m = &broker.SyncGroupResponse{ErrorCode: codes[rng.IntN(len(codes))]}
			}
			replyTo := rng.IntN(1000)
			events := a.EventCount()
			require.Equal(t, events, b.EventCount())
			a.net.Reply(replyTo, to, conn, gen, m)
			b.net.Send(broker.Envelope{ReplyTo: replyTo, From: b.broker.Name(), To: to, Conn: conn, Generation: gen, Msg: m})

			require.Equal(t, b.net.nextMsg, a.net.nextMsg, "seed %d, step %d: message ids", seed, step)
			require.Equal(t, b.net.lastHB, a.net.lastHB, "seed %d, step %d: heartbeat notes", seed, step)
			for lane := range a.net.lanes {
				la, lb := a.net.lanes[lane], b.net.lanes[lane]
				require.Len(t, la, len(lb), "seed %d, step %d: lane %d", seed, step, lane)
				for i := range la {
					fa, fb := la[i], lb[i]
					require.Equal(t, fb.env, fa.env, "seed %d, step %d: lane %d flight %d", seed, step, lane, i)
					require.Equal(t, fb.proc == nil, fa.proc == nil, "seed %d, step %d: lane %d flight %d proc", seed, step, lane, i)
					if fa.proc != nil {
						require.Equal(t, fb.proc.name, fa.proc.name)
					}
					fa.env, fb.env, fa.proc, fb.proc = broker.Envelope{}, broker.Envelope{}, nil, nil
					require.Equal(t, fb, fa, "seed %d, step %d: lane %d flight %d", seed, step, lane, i)
				}
			}
			for c := 1; c < len(a.conns); c++ {
				require.Equal(t, b.conns[c].loseNextProduce, a.conns[c].loseNextProduce, "seed %d, step %d: conn %d", seed, step, c)
			}
			// the events' fields, then their bodies (an event also holds
			// where its log stored it, which differs between two logs)
			var ea, eb []Event
			var ba, bb []any
			for _, e := range a.EventsSince(events) {
				ea, ba = append(ea, e.WithBody(nil)), append(ba, e.Body(), e.Detail())
			}
			for _, e := range b.EventsSince(events) {
				eb, bb = append(eb, e.WithBody(nil)), append(bb, e.Body(), e.Detail())
			}
			require.Equal(t, eb, ea, "seed %d, step %d: events", seed, step)
			require.Equal(t, bb, ba, "seed %d, step %d: event bodies", seed, step)
		}
	}
}
