package kgviz

import (
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Broker is the name of the one broker: leader of every partition, group
// coordinator of "billing" and transaction coordinator.
const Broker = "B1"

// GroupID is the consumer group's group.id.
const GroupID = "billing"

// flight is one message on the wire. Every message takes exactly one tick:
// sent at tick t, it is handled at tick t+1.
type flight struct {
	env      broker.Envelope
	sentAt   int
	lost     bool    // fault injection: never arrives
	recorded bool    // an EvSend was recorded for it
	proc     *member // the client end: sender of a request, recipient of a response
	done     bool    // delivered out of its lane's order (a heartbeat ahead of its connection's later requests)
}

// network carries the messages between the members and the broker, in two
// lanes: the heartbeat lane is delivered after the other messages of the
// same tick, so that a heartbeat meets a rebalance started by a JoinGroup in
// the same tick (the rebalance notice of the page, REBALANCE_IN_PROGRESS).
type network struct {
	w       *World
	nextMsg int
	lanes   [2][]flight // 0: requests and responses, 1: heartbeats
	spare   [2][]flight // the other buffer of each lane
	// the last heartbeat answer recorded for each connection: a run of equal
	// error answers is recorded once, successful ones never
	lastHB []hbNote // by connection
	// hbAt: by connection, while deliverDue runs: 1 + the index among this
	// tick's due heartbeats of the first one that connection sent (0: none)
	hbAt []int32
}

type hbNote struct {
	code ErrorCode
	gen  int
}

const (
	laneNormal    = 0
	laneHeartbeat = 1
)

// send puts a client's request on the wire and records it.
func (n *network) send(env *broker.Envelope, p *member) int {
	return n.put(laneNormal, env, p, true)
}

// sendHeartbeat puts a classic member's Heartbeat on the heartbeat lane,
// not recorded (a heartbeat answer is recorded when it brings news; see
// laneOf).
func (n *network) sendHeartbeat(env *broker.Envelope, p *member) int {
	return n.put(laneHeartbeat, env, p, false)
}

// sendConsumerHeartbeat puts a ConsumerGroupHeartbeat on the heartbeat lane;
// record says whether it carries something (a join, a leave, the owned
// partitions).
func (n *network) sendConsumerHeartbeat(env *broker.Envelope, p *member, record bool) int {
	return n.put(laneHeartbeat, env, p, record)
}

// Send is the broker's side: its responses and its requests to itself.
// env is lent (broker.Network): put copies it into the flight, and the
// broker reuses it for its next answer.
func (n *network) Send(env *broker.Envelope) {
	var p *member
	if env.To != n.w.broker.Name() {
		p = n.w.conns[env.Conn]
	}
	lane, record := n.laneOf(env.Msg, env.Conn, env.Generation)
	n.put(lane, env, p, record)
}

// laneOf is the lane of a message the broker sends, and whether it is recorded.
func (n *network) laneOf(m kafka.Message, conn, gen int) (lane int, record bool) {
	lane, record = laneNormal, true
	if hb, ok := m.(*broker.HeartbeatResponse); ok {
		lane = laneHeartbeat
		note := hbNote{hb.ErrorCode, gen}
		for len(n.lastHB) <= conn {
			n.lastHB = append(n.lastHB, hbNote{})
		}
		record = hb.ErrorCode != kafka.NONE && n.lastHB[conn] != note
		n.lastHB[conn] = note
	}
	if hb, ok := m.(*broker.ConsumerGroupHeartbeatResponse); ok {
		// Recorded when it carries an assignment or an error; an answer that
		// only says "still here, epoch e" is not (the member's epoch changes
		// are EvMemberEpoch events of the coordinator).
		lane, record = laneHeartbeat, hb.ErrorCode != kafka.NONE || hb.Assignment != nil
	}
	if hb, ok := m.(*broker.ShareGroupHeartbeatResponse); ok { // the same for a share group's (KIP-932)
		lane, record = laneHeartbeat, hb.ErrorCode != kafka.NONE || hb.Assignment != nil || hb.MemberEpoch == broker.LeaveGroupMemberEpoch
	}
	return lane, record
}

// put is the one way onto the wire: every message, a client's or the
// broker's, is appended to its lane here (and recorded if record).
func (n *network) put(lane int, env *broker.Envelope, p *member, record bool) int {
	n.nextMsg++
	// The flight is written once, in its place in the lane (not built apart
	// and copied in: BenchmarkDemoWorld, two members heartbeating, is mostly
	// this).
	l := append(n.lanes[lane], flight{})
	n.lanes[lane] = l
	f := &l[len(l)-1]
	// Field by field: the envelope copied whole is a typedmemmove (a bulk
	// write barrier over it while the collector marks), and its 16-byte
	// loads wait for the 8-byte stores that built it on the caller's stack
	// (BenchmarkDemoWorld: put is a tenth of it).
	f.env.ID, f.env.ReplyTo, f.env.From, f.env.To = n.nextMsg, env.ReplyTo, env.From, env.To
	f.env.Conn, f.env.Generation, f.env.Msg = env.Conn, env.Generation, env.Msg
	f.sentAt, f.proc, f.recorded = n.w.now(), p, record
	if _, ok := f.env.Msg.(*broker.ProduceResponse); ok && p != nil && p.loseNextProduce {
		p.loseNextProduce = false
		f.lost = true
	}
	if record {
		n.record(event.EvSend, f, "")
	}
	return n.nextMsg
}

// record records a message in flight (EvSend, EvDrop with its reason). The
// event is built once, where it is recorded: f is read in place, and no
// copy of the (large) event is returned.
func (n *network) record(t event.Type, f *flight, reason event.Reason) {
	var e event.Event
	messageEvent(&e, t, &f.env, f.proc, reason)
	n.w.recordAt(&e)
}

// messageEvent sets *e to the event of a message on the wire: env, sent by
// or to process p (nil: between the broker and itself).
func messageEvent(e *event.Event, t event.Type, env *broker.Envelope, p *member, reason event.Reason) {
	m := env.Msg
	// Set field by field, in place: a literal with calls in it is built
	// apart and copied, and WithBody copies the event twice more.
	e.Type, e.From, e.To, e.API, e.Response = t, env.From, env.To, m.Key(), m.IsResponse()
	e.Msg, e.ReplyTo, e.Generation, e.Error, e.Reason = env.ID, env.ReplyTo, env.Generation, broker.ErrorOf(m), reason
	e.SetBody(m)
	if p != nil {
		e.Member, e.MemberID = p.name, p.memberID()
	}
	e.PID, e.Epoch = broker.ProducerOf(m)
	if pr, ok := m.(*broker.ProduceRequest); ok {
		e.Record = pr.Batch.Record
	}
}

// deliverDue hands every message sent before this tick to its recipient:
// the requests and responses in send order, then the heartbeats. A
// connection is first in, first out, as a TCP connection is: a member's
// heartbeat goes before the requests that member sent after it (a heartbeat
// sent just before a JoinGroup meets the rebalance that JoinGroup joins,
// never the generation it completes).
func (n *network) deliverDue() {
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
	hb, normal := due[laneHeartbeat], due[laneNormal]
	// A heartbeat goes before the later requests of its connection: the
	// first due heartbeat of each connection to the broker is noted, and
	// delivered just before the first request of that connection sent
	// after it. Nothing to note when no request is due (an idle group's
	// ticks: only heartbeats; BenchmarkDemoWorld spends a tenth of its
	// time here otherwise).
	name := n.w.broker.Name()
	noted := len(normal) > 0
	for i := 0; noted && i < len(hb); i++ {
		if c := hb[i].env.Conn; hb[i].proc != nil && hb[i].env.To == name && c > 0 {
			for len(n.hbAt) <= c {
				n.hbAt = append(n.hbAt, 0)
			}
			if n.hbAt[c] == 0 {
				n.hbAt[c] = int32(i + 1)
			}
		}
	}
	for i := range normal {
		f := &normal[i]
		if c := f.env.Conn; f.proc != nil && f.env.To == name && c > 0 && c < len(n.hbAt) && n.hbAt[c] != 0 {
			if j := n.hbAt[c] - 1; hb[j].env.ID < f.env.ID {
				n.hbAt[c] = 0
				hb[j].done = true
				n.deliver(&hb[j])
			}
		}
		n.deliver(f)
	}
	for i := range hb {
		if c := hb[i].env.Conn; noted && c > 0 && c < len(n.hbAt) {
			n.hbAt[c] = 0
		}
		if !hb[i].done {
			n.deliver(&hb[i])
		}
	}
	for lane := range due {
		// Not cleared: what the delivered flights leave in the array is
		// never read (put appends whole flights), only kept alive until the
		// lane fills over it; clearing cost a write barrier per pointer
		// while the collector marks.
		n.spare[lane] = due[lane][:0]
	}
}

// deliver hands one message to its recipient; f points into deliverDue's
// list of due messages, which no send during the delivery touches.
func (n *network) deliver(f *flight) {
	if f.lost {
		n.record(event.EvDrop, f, event.ReasonLostInFlight)
		return
	}
	if f.env.To == n.w.broker.Name() {
		n.w.broker.Receive(&f.env) // lent: the broker copies what it keeps
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
	case *broker.ConsumerGroupHeartbeatResponse:
		if m.ErrorCode != kafka.NONE || m.Assignment != nil || m.MemberEpoch != p.cg.epoch {
			n.w.ver++
		}
	default:
		n.w.ver++
	}
	p.receive(&f.env) // lent: the member copies what it keeps
}

// busy says whether a message other than a heartbeat is on the wire.
func (n *network) busy() bool { return len(n.lanes[laneNormal]) > 0 }
