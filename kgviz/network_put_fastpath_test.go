package kgviz

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/stretchr/testify/require"
)

// refPut is put as it was before flights were taken by reslicing (slot)
// and written field by field: the reference of put, Reply and
// sendHeartbeat. It appends a zero flight and copies the envelope whole.
func refPut(n *network, lane int, env *broker.Envelope, p *member, record bool) int {
	n.nextMsg++
	l := append(n.lanes[lane], flight{})
	n.lanes[lane] = l
	f := &l[len(l)-1]
	f.env, f.sentAt, f.proc, f.recorded = *env, n.w.now(), p, record
	f.env.ID = n.nextMsg
	if _, ok := env.Msg.(*broker.ProduceResponse); ok && p != nil && p.loseNextProduce {
		p.loseNextProduce = false
		f.lost = true
	}
	if record {
		n.record(event.EvSend, f, "")
	}
	return n.nextMsg
}

// refSend is Send through refPut.
func refSend(n *network, env broker.Envelope) {
	var p *member
	if env.To != n.w.broker.Name() {
		p = n.w.conns[env.Conn]
	}
	lane, record := n.laneOf(env.Msg, env.Conn, env.Generation)
	refPut(n, lane, &env, p, record)
}

// TestNetworkPutMatchesReference: random client requests (recorded, on
// either lane), member heartbeats (sendHeartbeat) and broker answers
// (Reply) put on the wire of one world, and the same through refPut in
// its twin, leave the same flights, message ids, heartbeat notes and lost
// produces, and record the same events; between them, random parts of the
// lanes are taken off as deliverDue takes them (the due flights left in
// the array, marked delivered out of order or lost at random), so that
// the new flights reuse slots that held others.
func TestNetworkPutMatchesReference(t *testing.T) {
	codes := []kafka.ErrorCode{kafka.NONE, kafka.NONE, kafka.REBALANCE_IN_PROGRESS, kafka.UNKNOWN_MEMBER_ID}
	for seed := range uint64(12) {
		a, b, _ := twinOwnedWorlds(seed)
		rng := rand.New(rand.NewPCG(seed, 29))
		for step := range 300 {
			conn := 1 + rng.IntN(len(a.conns)-1)
			gen := rng.IntN(3)
			events := a.EventCount()
			require.Equal(t, events, b.EventCount())
			var ida, idb int
			switch rng.IntN(5) {
			case 0: // a member's heartbeat
				r := &broker.HeartbeatRequest{GroupID: GroupID, GenerationID: gen, MemberID: fmt.Sprint("m", rng.IntN(3))}
				ida = a.net.sendHeartbeat(a.conns[conn], gen, r)
				pb := b.conns[conn]
				idb = refPut(&b.net, laneHeartbeat, &broker.Envelope{From: pb.name, To: b.broker.Name(), Conn: pb.conn, Generation: gen, Msg: r}, pb, false)
			case 1: // a recorded request, on either lane
				lane, record := rng.IntN(2), rng.IntN(2) == 0
				m := &broker.OffsetFetchRequest{GroupID: GroupID}
				ea := broker.Envelope{From: a.conns[conn].name, To: a.broker.Name(), Conn: conn, Generation: gen, Msg: m}
				eb := ea
				ida = a.net.put(lane, &ea, a.conns[conn], record)
				idb = refPut(&b.net, lane, &eb, b.conns[conn], record)
			default: // a broker's answer, to a member or to the broker itself
				to := a.conns[conn].name
				if rng.IntN(10) == 0 {
					to = a.broker.Name()
				}
				var m kafka.Message
				switch rng.IntN(3) {
				case 0:
					m = &broker.HeartbeatResponse{ErrorCode: codes[rng.IntN(len(codes))]}
				case 1:
					if rng.IntN(2) == 0 {
						a.conns[conn].loseNextProduce, b.conns[conn].loseNextProduce = true, true
					}
					m = &broker.ProduceResponse{Partition: kafka.TopicPartition{Topic: "a", Partition: rng.IntN(5)}, BaseOffset: rng.IntN(9)}
				default:
					m = &broker.SyncGroupResponse{ErrorCode: codes[rng.IntN(len(codes))]}
				}
				replyTo := rng.IntN(1000)
				if rng.IntN(2) == 0 {
					a.net.Reply(replyTo, to, conn, gen, m)
				} else {
					a.net.Send(broker.Envelope{ReplyTo: replyTo, From: a.broker.Name(), To: to, Conn: conn, Generation: gen, Msg: m})
				}
				refSend(&b.net, broker.Envelope{ReplyTo: replyTo, From: b.broker.Name(), To: to, Conn: conn, Generation: gen, Msg: m})
			}
			require.Equal(t, idb, ida, "seed %d, step %d: message id returned", seed, step)
			requireSameWire(t, a, b, events, fmt.Sprintf("seed %d, step %d", seed, step))
			if rng.IntN(8) == 0 {
				lane := rng.IntN(2)
				k := rng.IntN(len(a.net.lanes[lane]) + 1)
				for _, w := range []*World{a, b} {
					takeDue(&w.net, lane, k, rand.New(rand.NewPCG(seed, uint64(step))))
				}
			}
		}
	}
}

// takeDue takes the first k flights of a lane off the wire as deliverDue
// does (the rest moved to the spare array, the taken ones left in theirs,
// which becomes the spare), marking them at random as deliverDue and
// deliver may have left them (done, lost, recorded), without delivering
// them.
func takeDue(n *network, lane, k int, rng *rand.Rand) {
	d := n.lanes[lane]
	for i := range d[:k] {
		d[i].done, d[i].lost, d[i].recorded = rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0
		d[i].env.ReplyTo = rng.IntN(100)
	}
	n.lanes[lane], n.spare[lane] = append(n.spare[lane][:0], d[k:]...), d[:0]
}

// requireSameWire checks that two twin worlds have the same messages on
// the wire (compared field by field, members by name), the same message
// ids, heartbeat notes and lost produces, and recorded the same events
// since event number events.
func requireSameWire(t *testing.T, a, b *World, events int, at string) {
	t.Helper()
	require.Equal(t, b.net.nextMsg, a.net.nextMsg, "%s: message ids", at)
	require.Equal(t, b.net.lastHB, a.net.lastHB, "%s: heartbeat notes", at)
	for lane := range a.net.lanes {
		la, lb := a.net.lanes[lane], b.net.lanes[lane]
		require.Len(t, la, len(lb), "%s: lane %d", at, lane)
		for i := range la {
			fa, fb := la[i], lb[i]
			require.Equal(t, fb.env, fa.env, "%s: lane %d flight %d", at, lane, i)
			require.Equal(t, fb.proc == nil, fa.proc == nil, "%s: lane %d flight %d proc", at, lane, i)
			if fa.proc != nil {
				require.Equal(t, fb.proc.name, fa.proc.name)
			}
			fa.env, fb.env, fa.proc, fb.proc = broker.Envelope{}, broker.Envelope{}, nil, nil
			require.Equal(t, fb, fa, "%s: lane %d flight %d", at, lane, i)
		}
	}
	for c := 1; c < len(a.conns); c++ {
		require.Equal(t, b.conns[c].loseNextProduce, a.conns[c].loseNextProduce, "%s: conn %d", at, c)
	}
	var ea, eb []Event
	var ba, bb []any
	for _, e := range a.EventsSince(events) {
		ea, ba = append(ea, e.WithBody(nil)), append(ba, e.Body(), e.Detail())
	}
	for _, e := range b.EventsSince(events) {
		eb, bb = append(eb, e.WithBody(nil)), append(bb, e.Body(), e.Detail())
	}
	require.Equal(t, eb, ea, "%s: events", at)
	require.Equal(t, bb, ba, "%s: event bodies", at)
}
