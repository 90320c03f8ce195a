package kgviz

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/stretchr/testify/require"
)

// refDeliverDue is deliverDue as it was before only the connections with
// a request due were looked at: every due heartbeat indexed by its
// connection, every index cleared after.
func refDeliverDue(n *network) {
	now := n.w.now()
	var due [2][]flight
	for lane := range n.lanes {
		d := n.lanes[lane]
		n.lanes[lane], n.spare[lane] = n.spare[lane][:0], nil
		k := len(d)
		for i := range d {
			if d[i].sentAt >= now { // not due yet
				k = i
				break
			}
		}
		n.lanes[lane] = append(n.lanes[lane], d[k:]...)
		due[lane] = d[:k]
	}
	hb := due[laneHeartbeat]
	for i := range hb {
		if c := hb[i].env.Conn; hb[i].proc != nil && hb[i].env.To == n.w.broker.Name() && c > 0 {
			for len(n.hbAt) <= c {
				n.hbAt = append(n.hbAt, 0)
			}
			if n.hbAt[c] == 0 {
				n.hbAt[c] = int32(i + 1)
			}
		}
	}
	normal := due[laneNormal]
	for i := range normal {
		f := &normal[i]
		if c := f.env.Conn; len(hb) > 0 && f.proc != nil && f.env.To == n.w.broker.Name() && c > 0 && c < len(n.hbAt) && n.hbAt[c] != 0 {
			if j := n.hbAt[c] - 1; hb[j].env.ID < f.env.ID {
				n.hbAt[c] = 0
				hb[j].done = true
				n.deliver(&hb[j])
			}
		}
		n.deliver(f)
	}
	for i := range hb {
		if c := hb[i].env.Conn; c > 0 && c < len(n.hbAt) {
			n.hbAt[c] = 0
		}
		if !hb[i].done {
			n.deliver(&hb[i])
		}
	}
	for lane := range due {
		// Not cleared: every slot a lane takes is written whole (put, Reply
		// and sendHeartbeat write every field of the slot they take;
		// deliverDue appends whole flights),
		// so what the delivered flights leave in the array is never read,
		// only kept alive until the lane fills over it. Clearing it cost a
		// write barrier per pointer while the collector marks.
		n.spare[lane] = due[lane][:0]
	}
}

// TestNetworkDeliverDueMatchesReference: random groups at random ticks,
// with random messages added to the wire (heartbeats, some connections
// sending two in a tick; FindCoordinator requests on the normal lane,
// before or after their connection's heartbeat; answers to members;
// requests of the broker to itself), all due, delivered by deliverDue in
// one world and by refDeliverDue in its twin: the same deliveries in the
// same order (the broker's answers, their ids and the events recorded
// show it), the same state after, and the same ticks after that.
func TestNetworkDeliverDueMatchesReference(t *testing.T) {
	for seed := range uint64(15) {
		a, b, _ := twinOwnedWorlds(seed)
		rng := rand.New(rand.NewPCG(seed, 37))
		for range rng.IntN(30) {
			a.Step()
			b.Step()
		}
		for round := range 60 {
			a.clock.Advance()
			b.clock.Advance()
			for range rng.IntN(12) {
				conn := 1 + rng.IntN(len(a.conns)-1)
				pa, pb := a.conns[conn], b.conns[conn]
				switch rng.IntN(4) {
				case 0, 1:
					r := &broker.HeartbeatRequest{GroupID: GroupID, GenerationID: pa.group.generation, MemberID: pa.group.memberID}
					a.net.sendHeartbeat(pa, r.GenerationID, r)
					b.net.sendHeartbeat(pb, r.GenerationID, r)
				case 2:
					m := &broker.FindCoordinatorRequest{CoordinatorKey: GroupID, KeyType: broker.CoordinatorGroup}
					a.net.send(broker.Envelope{From: pa.name, To: a.broker.Name(), Conn: conn, Msg: m}, pa)
					b.net.send(broker.Envelope{From: pb.name, To: b.broker.Name(), Conn: conn, Msg: m}, pb)
				default:
					m := &broker.LeaveGroupResponse{}
					replyTo := rng.IntN(100)
					a.net.Reply(replyTo, pa.name, conn, 0, m)
					b.net.Reply(replyTo, pb.name, conn, 0, m)
				}
			}
			// everything on the wire was sent before this tick
			for _, w := range []*World{a, b} {
				for lane := range w.net.lanes {
					for i := range w.net.lanes[lane] {
						w.net.lanes[lane][i].sentAt = w.now() - 1
					}
				}
			}
			at := fmt.Sprintf("seed %d, round %d", seed, round)
			events := a.EventCount()
			a.net.deliverDue()
			refDeliverDue(&b.net)
			requireSameWire(t, a, b, events, at)
			require.Equal(t, b.ver, a.ver, "%s: world version", at)
			for c, x := range a.net.hbAt {
				require.Zero(t, x, "%s: heartbeat index of conn %d left set", at, c)
			}
			for c := 1; c < len(a.conns); c++ {
				require.Equal(t, b.conns[c].group, a.conns[c].group, "%s: conn %d: group state", at, c)
			}
			for range rng.IntN(3) {
				events := a.EventCount()
				a.Step()
				b.Step()
				requireSameWire(t, a, b, events, at+" (tick)")
			}
		}
	}
}
