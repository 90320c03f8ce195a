package kgviz

// Broker is the name of the one broker: leader of every partition, group
// coordinator of "billing" and transaction coordinator.
const Broker = "B1"

// GroupID is the consumer group's group.id.
const GroupID = "billing"

// message is one request or response on the wire. Every message takes exactly
// one tick: sent at tick t, it is handled at tick t+1.
type message struct {
	id      int
	api     string
	resp    bool
	from    string // "C1", "B1"
	to      string
	proc    *process // the client end: sender of a request, recipient of a response
	sentAt  int
	lost    bool // fault injection: never arrives
	err     ErrorCode
	gen     int
	body    any
	replyTo int // for responses: the request's id
}

// send puts a message on the wire and records it.
func (w *World) send(m *message) *message {
	w.nextMsg++
	m.id = w.nextMsg
	m.sentAt = w.now
	w.inflight = append(w.inflight, m)
	ev := Event{Type: EvSend, From: m.from, To: m.to, API: m.api, Response: m.resp, Msg: m.id, ReplyTo: m.replyTo, Generation: m.gen, Error: m.err, PID: -1}
	if m.proc != nil {
		ev.Member = m.proc.name
		ev.MemberID = m.proc.memberID
	}
	switch b := m.body.(type) { // the producer id, for filtering by producer
	case *produceReq:
		ev.PID, ev.Epoch = b.pid, b.epoch
	case *txnReq:
		ev.PID, ev.Epoch = b.pid, b.epoch
	case *markerReq:
		ev.PID, ev.Epoch = b.pid, b.epoch
	case *commitReq:
		if b.txnID != "" {
			ev.PID, ev.Epoch = b.pid, b.epoch
		}
	case *initPIDResp:
		ev.PID, ev.Epoch = b.pid, b.epoch
	}
	ev.Detail = describe(m)
	w.record(ev)
	return m
}

// request sends a request from a client process to the broker.
func (w *World) request(p *process, api string, gen int, body any) *message {
	return w.send(&message{api: api, from: p.name, to: Broker, proc: p, gen: gen, body: body})
}

// respond answers a request from the broker.
func (w *World) respond(req *message, err ErrorCode, gen int, body any) *message {
	m := &message{api: req.api, resp: true, from: Broker, to: req.from, proc: req.proc, err: err, gen: gen, body: body, replyTo: req.id}
	if req.from == Broker { // broker-to-broker (WriteTxnMarkers)
		m.to = Broker
	}
	if req.proc != nil && req.proc.loseNextProduce && req.api == "Produce" {
		req.proc.loseNextProduce = false
		m.lost = true
	}
	return w.send(m)
}

// deliverDue hands every message sent in the previous tick to its recipient, in send order.
func (w *World) deliverDue() {
	if len(w.inflight) == 0 {
		return
	}
	due := w.inflight
	w.inflight = nil
	for i, m := range due {
		if m.sentAt >= w.now { // sent during this tick's delivery: next tick
			w.inflight = append(w.inflight, due[i:]...)
			break
		}
		w.deliver(m)
	}
}

func (w *World) deliver(m *message) {
	if m.lost {
		w.record(Event{Type: EvDrop, From: m.from, To: m.to, API: m.api, Response: m.resp, Msg: m.id, ReplyTo: m.replyTo, Error: m.err, PID: -1, Detail: "the answer was lost on the way"})
		return
	}
	if m.to == Broker {
		w.handleBroker(m)
		return
	}
	p := m.proc
	if p == nil || !p.alive {
		w.record(Event{Type: EvDrop, From: m.from, To: m.to, API: m.api, Response: m.resp, Msg: m.id, ReplyTo: m.replyTo, Error: m.err, PID: -1, Detail: "the recipient is not running"})
		return
	}
	w.handleClient(p, m)
}

// handleBroker dispatches a request (or a marker answer) arriving at B1.
func (w *World) handleBroker(m *message) {
	switch m.api {
	case "FindCoordinator":
		w.respond(m, NONE, 0, nil)
	case "JoinGroup":
		w.coord.onJoinGroup(m)
	case "SyncGroup":
		w.coord.onSyncGroup(m)
	case "LeaveGroup":
		w.coord.onLeaveGroup(m)
	case "OffsetCommit":
		w.coord.onOffsetCommit(m)
	case "TxnOffsetCommit":
		w.coord.onTxnOffsetCommit(m)
	case "OffsetFetch":
		w.coord.onOffsetFetch(m)
	case "Fetch":
		w.onFetch(m)
	case "Produce":
		w.onProduce(m)
	case "InitProducerId":
		w.txn.onInitProducerID(m)
	case "AddPartitionsToTxn":
		w.txn.onAddPartitions(m)
	case "AddOffsetsToTxn":
		w.txn.onAddOffsets(m)
	case "EndTxn":
		w.txn.onEndTxn(m)
	case "WriteTxnMarkers":
		if m.resp {
			w.txn.onMarkersWritten(m)
		} else {
			w.onWriteTxnMarkers(m)
		}
	}
}
