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

// refDeliver is deliver as it was before heartbeats went straight to their
// handlers: a heartbeat request through the broker's Receive (the
// envelope by value), a heartbeat answer through the member's receive and
// the heartbeat handler as it was (refOnHeartbeatResponse).
func refDeliver(n *network, f *flight) {
	if f.lost {
		n.record(event.EvDrop, f, event.ReasonLostInFlight)
		return
	}
	if f.env.To == n.w.broker.Name() {
		n.w.broker.Receive(f.env)
		return
	}
	p := f.proc
	if p == nil || !p.alive() {
		if f.recorded {
			n.record(event.EvDrop, f, event.ReasonNotRunning)
		}
		return
	}
	switch m := f.env.Msg.(type) {
	case *broker.HeartbeatResponse:
		if m.ErrorCode != kafka.NONE {
			n.w.ver++
		}
		refOnHeartbeatResponse(p, f.env, m)
		return
	case *broker.ConsumerGroupHeartbeatResponse:
		if m.ErrorCode != kafka.NONE || m.Assignment != nil || m.MemberEpoch != p.cg.epoch {
			n.w.ver++
		}
	default:
		n.w.ver++
	}
	p.receive(f.env)
}

// refOnHeartbeatResponse is onHeartbeatResponse as it was: the heartbeat
// answered looked up first, whatever the answer.
func refOnHeartbeatResponse(p *member, env broker.Envelope, m *broker.HeartbeatResponse) {
	g := &p.group
	var sent sentHeartbeat
	for _, s := range g.hbSent {
		if s.msg == env.ReplyTo {
			sent = s
		}
	}
	switch m.ErrorCode {
	case kafka.REBALANCE_IN_PROGRESS:
		if g.state == ClassicStable {
			g.rejoinNeeded = true
			p.wake()
		}
	case kafka.ILLEGAL_GENERATION, kafka.UNKNOWN_MEMBER_ID, kafka.FENCED_INSTANCE_ID:
		if sent.generation != g.generation || sent.memberID != g.memberID {
			return
		}
		p.resetGeneration(m.ErrorCode != kafka.ILLEGAL_GENERATION)
		if m.ErrorCode == kafka.FENCED_INSTANCE_ID {
			g.hbFailed = event.FencedInstanceIDException
		}
		p.wake()
	}
}

// TestNetworkDeliverHeartbeatsMatchesReference: random heartbeat requests
// (of the member's generation and member id or not, of the group or of
// another) and random heartbeat answers (each error, answering one of the
// member's last two heartbeats or another one, lost or not, to members
// running or not), delivered by deliver in one world and by refDeliver in
// its twin, taken at random ticks of random groups, leave the same
// messages on the wire, the same member states and world version, and
// record the same events; so do the ticks after them.
func TestNetworkDeliverHeartbeatsMatchesReference(t *testing.T) {
	codes := []kafka.ErrorCode{kafka.NONE, kafka.REBALANCE_IN_PROGRESS, kafka.UNKNOWN_MEMBER_ID, kafka.ILLEGAL_GENERATION, kafka.FENCED_INSTANCE_ID}
	for seed := range uint64(15) {
		a, b, _ := twinOwnedWorlds(seed)
		rng := rand.New(rand.NewPCG(seed, 31))
		for range rng.IntN(40) {
			a.Step()
			b.Step()
		}
		for step := range 200 {
			if rng.IntN(6) == 0 {
				events := a.EventCount()
				a.Step()
				b.Step()
				requireSameWire(t, a, b, events, fmt.Sprintf("seed %d, step %d (tick)", seed, step))
				continue
			}
			conn := 1 + rng.IntN(len(a.conns)-1)
			pa, pb := a.conns[conn], b.conns[conn]
			var fa, fb flight
			if rng.IntN(2) == 0 {
				req := &broker.HeartbeatRequest{GroupID: GroupID, GenerationID: pa.group.generation + rng.IntN(3) - 1, MemberID: pa.group.memberID, GroupInstanceID: pa.cfg.instanceID}
				if rng.IntN(4) == 0 {
					req.MemberID = "someone-else"
				}
				if rng.IntN(8) == 0 {
					req.GroupID = "other"
				}
				fa = flight{env: broker.Envelope{ID: 1_000_000 + step, From: pa.name, To: a.broker.Name(), Conn: conn, Generation: req.GenerationID, Msg: req}, sentAt: a.now() - 1, proc: pa}
				fb = fa
				fb.env.To, fb.proc = b.broker.Name(), pb
			} else {
				replyTo := rng.IntN(1000)
				if s := pa.group.hbSent[rng.IntN(2)]; rng.IntN(3) > 0 {
					replyTo = s.msg
				}
				m := &broker.HeartbeatResponse{ErrorCode: codes[rng.IntN(len(codes))]}
				fa = flight{env: broker.Envelope{ID: 1_000_000 + step, ReplyTo: replyTo, From: a.broker.Name(), To: pa.name, Conn: conn, Generation: rng.IntN(3), Msg: m},
					sentAt: a.now() - 1, proc: pa, lost: rng.IntN(10) == 0, recorded: rng.IntN(2) == 0}
				fb = fa
				fb.env.From, fb.proc = b.broker.Name(), pb
			}
			events := a.EventCount()
			a.net.deliver(&fa)
			refDeliver(&b.net, &fb)
			at := fmt.Sprintf("seed %d, step %d", seed, step)
			requireSameWire(t, a, b, events, at)
			require.Equal(t, b.ver, a.ver, "%s: world version", at)
			for c := 1; c < len(a.conns); c++ {
				ma, mb := a.conns[c], b.conns[c]
				require.Equal(t, mb.group, ma.group, "%s: conn %d: group state", at, c)
				require.Equal(t, mb.phase, ma.phase, "%s: conn %d: phase", at, c)
				require.Equal(t, mb.ver, ma.ver, "%s: conn %d: version", at, c)
			}
		}
	}
}
