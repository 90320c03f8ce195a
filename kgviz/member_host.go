package kgviz

import (
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
)

// host is all a member reaches of the world it runs in: the clock, its
// outbox (the network), the event log it records into, and what stops or
// restarts it. What it reads of the world's topics is its topology (never
// changed once the world is built). The World is the host of its members
// (below); a test steps one member with a host of its own, by typed messages
// (member.receive) and ticks (member.tick) alone (member_host_test.go), as
// etcd raft's tests step one node.
type host interface {
	// timers is the world's clock: the current tick (Now) and the member's
	// timers (a producer's request timeout and retries). The member asks
	// for it once and reads the tick from it directly (member.now): the
	// tick is read several times per member and tick, and through an
	// interface method each read was a call that cannot be inlined
	// (BenchmarkDemoWorld, docs/performance.md).
	timers() *clock.Clock
	// record records the member's event, stamped with the current tick. By
	// value: a pointer given to an interface's method escapes, and every
	// event would be allocated on the heap (BenchmarkDemoWorld).
	record(e event.Event)
	// brokerName names the broker every request goes to.
	brokerName() string
	// send puts a request on the wire; sendHeartbeat a classic Heartbeat (on
	// the heartbeat lane, not recorded); sendConsumerHeartbeat a
	// ConsumerGroupHeartbeat (on the heartbeat lane, recorded if record).
	// Each returns the message's id, which its answer names (ReplyTo).
	// env is lent for the call (broker.Envelope's seams): the host copies
	// what it keeps, and the member writes its next request over it.
	send(env *broker.Envelope, p *member) int
	sendHeartbeat(env *broker.Envelope, p *member) int
	sendConsumerHeartbeat(env *broker.Envelope, p *member, record bool) int
	// changed says that the member's partitions, positions or state changed
	// (the pause tracker looks at it again).
	changed(p *member)
	// stop stops the whole world with err (the application's own code
	// failed: an assignor, a rebalance listener); stopped says whether it is
	// stopped.
	stop(err error)
	stopped() bool
	// restart starts a new process of the member (a static member's restart
	// on close, WithRestartOnClose).
	restart(p *member)
	// closeConnection says that the member's process ended and its
	// operating system closes its connection conn: the broker sees the
	// socket close after the requests already sent on it.
	closeConnection(conn int)
}

// The World as its members' host.

func (w *World) timers() *clock.Clock { return w.clock }
func (w *World) brokerName() string   { return w.broker.Name() }
func (w *World) send(env *broker.Envelope, p *member) int {
	return w.net.send(env, p)
}
func (w *World) sendHeartbeat(env *broker.Envelope, p *member) int {
	return w.net.sendHeartbeat(env, p)
}
func (w *World) sendConsumerHeartbeat(env *broker.Envelope, p *member, record bool) int {
	return w.net.sendConsumerHeartbeat(env, p, record)
}
func (w *World) changed(p *member) {
	w.pauses.dirty = true
	if !p.changed {
		p.changed = true
		w.pauses.changed = append(w.pauses.changed, p)
	}
}
func (w *World) stop(err error)    { w.fail(err) }
func (w *World) stopped() bool     { return w.err != nil }
func (w *World) restart(p *member) { w.startProcess(p.name, w.restartConfig(p)) }

// closeConnection: the broker sees the connection close in the next tick,
// after the messages sent on it until now, which all arrive then (TCP's FIN
// follows the data sent before it; network.go).
func (w *World) closeConnection(conn int) {
	w.closing = append(w.closing, connClose{at: w.now() + 1, conn: conn})
}

// closeConnections tells the broker of the connections closed until now.
func (w *World) closeConnections() {
	n := 0
	for _, c := range w.closing {
		if c.at <= w.now() {
			w.broker.ConnectionClosed(c.conn)
		} else {
			w.closing[n] = c
			n++
		}
	}
	w.closing = w.closing[:n]
}

var _ host = (*World)(nil)
