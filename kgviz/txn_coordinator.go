package kgviz

import (
	"fmt"
	"sort"
	"strings"
)

// Transaction states, as Kafka's TransactionState names them.
const (
	TxnEmpty          = "Empty"
	TxnOngoing        = "Ongoing"
	TxnPrepareCommit  = "PrepareCommit"
	TxnPrepareAbort   = "PrepareAbort"
	TxnCompleteCommit = "CompleteCommit"
	TxnCompleteAbort  = "CompleteAbort"
)

type txnMeta struct {
	id             string
	pid            int64
	epoch          int
	state          string
	partitions     []string // log names in the transaction
	started        int
	pendingMarkers int
	log            *partitionLog // its partition of __transaction_state
	committed      int
	aborted        int
}

type markerReq struct {
	pid    int64
	epoch  int
	commit bool
	log    string
	txnID  string
}

// txnCoordinator is the transaction coordinator on B1 (TransactionCoordinator).
type txnCoordinator struct {
	w     *World
	txns  map[string]*txnMeta
	logs  map[int]*partitionLog
	order []string
}

func newTxnCoordinator(w *World) *txnCoordinator {
	return &txnCoordinator{w: w, txns: map[string]*txnMeta{}, logs: map[int]*partitionLog{}}
}

func (tc *txnCoordinator) stateLog(id string) *partitionLog {
	n := internalPartition(id)
	l := tc.logs[n]
	if l == nil {
		l = newPartitionLog("__transaction_state", n)
		tc.logs[n] = l
	}
	return l
}

// transition writes the new state to __transaction_state and records it.
func (tc *txnCoordinator) transition(t *txnMeta, state string) {
	t.state = state
	rec := fmt.Sprintf("%s pid=%d epoch=%d %s", t.id, t.pid, t.epoch, state)
	if len(t.partitions) > 0 && state != TxnEmpty {
		rec += " [" + strings.Join(t.partitions, " ") + "]"
	}
	off := t.log.appendRecord(LogRecord{Record: rec, State: StateCommitted, PID: -1, Tick: tc.w.now})
	tc.w.record(Event{Type: EvAppend, Member: Broker, Partition: t.log.name, Offset: off, Record: rec, PID: -1})
	tc.w.record(Event{Type: EvTxnState, Member: Broker, State: state, PID: t.pid, Epoch: t.epoch, Detail: t.id})
}

func (tc *txnCoordinator) newPID() int64 {
	tc.w.nextPID++
	return tc.w.nextPID
}

func (tc *txnCoordinator) onInitProducerID(m *message) {
	req := m.body.(*initPIDReq)
	if req.txnID == "" {
		tc.w.respond(m, NONE, 0, &initPIDResp{pid: tc.newPID(), epoch: 0})
		return
	}
	t := tc.txns[req.txnID]
	if t == nil {
		t = &txnMeta{id: req.txnID, pid: tc.newPID(), epoch: 0, log: tc.stateLog(req.txnID)}
		tc.txns[req.txnID] = t
		tc.order = append(tc.order, req.txnID)
		tc.transition(t, TxnEmpty)
		tc.w.respond(m, NONE, 0, &initPIDResp{pid: t.pid, epoch: t.epoch})
		return
	}
	switch t.state {
	case TxnPrepareCommit, TxnPrepareAbort:
		tc.w.respond(m, CONCURRENT_TRANSACTIONS, 0, nil)
	case TxnOngoing:
		// Fence the previous instance: bump the epoch, abort its open
		// transaction with markers at the new epoch; the client retries.
		tc.fenceAndAbort(t, "a new instance called InitProducerId")
		tc.w.respond(m, CONCURRENT_TRANSACTIONS, 0, nil)
	default:
		t.epoch++
		t.partitions = nil
		tc.transition(t, TxnEmpty)
		tc.w.respond(m, NONE, 0, &initPIDResp{pid: t.pid, epoch: t.epoch})
	}
}

func (tc *txnCoordinator) fenceAndAbort(t *txnMeta, why string) {
	t.epoch++
	tc.w.record(Event{Type: EvConfig, Member: Broker, PID: t.pid, Epoch: t.epoch, Detail: fmt.Sprintf("%s: epoch bumped to %d, the open transaction is aborted (%s)", t.id, t.epoch, why)})
	tc.prepare(t, false)
}

// checkProducer is the coordinator-side epoch check (PRODUCER_FENCED).
func (tc *txnCoordinator) checkProducer(txnID string, pid int64, epoch int) ErrorCode {
	t := tc.txns[txnID]
	if t == nil || t.pid != pid || t.epoch != epoch {
		return PRODUCER_FENCED
	}
	return NONE
}

func (tc *txnCoordinator) addToTxn(m *message, parts []string) {
	req := m.body.(*txnReq)
	t := tc.txns[req.txnID]
	if code := tc.checkProducer(req.txnID, req.pid, req.epoch); code != NONE {
		tc.w.respond(m, code, 0, nil)
		return
	}
	if t.state == TxnPrepareCommit || t.state == TxnPrepareAbort {
		tc.w.respond(m, CONCURRENT_TRANSACTIONS, 0, nil)
		return
	}
	if t.state != TxnOngoing {
		t.partitions = nil
		t.started = tc.w.now
	}
	changed := t.state != TxnOngoing
	for _, p := range parts {
		found := false
		for _, q := range t.partitions {
			found = found || q == p
		}
		if !found {
			t.partitions = append(t.partitions, p)
			changed = true
		}
	}
	sort.Strings(t.partitions)
	if changed {
		tc.transition(t, TxnOngoing)
	}
	tc.w.respond(m, NONE, 0, nil)
}

func (tc *txnCoordinator) onAddPartitions(m *message) {
	tc.addToTxn(m, m.body.(*txnReq).partitions)
}

// onAddOffsets adds the group's __consumer_offsets partition to the transaction.
func (tc *txnCoordinator) onAddOffsets(m *message) {
	tc.addToTxn(m, []string{tc.w.coord.offsetsLog.name})
}

func (tc *txnCoordinator) onEndTxn(m *message) {
	req := m.body.(*txnReq)
	t := tc.txns[req.txnID]
	if code := tc.checkProducer(req.txnID, req.pid, req.epoch); code != NONE {
		tc.w.respond(m, code, 0, nil)
		return
	}
	switch t.state {
	case TxnOngoing:
		tc.prepare(t, req.commit)
		tc.w.respond(m, NONE, 0, nil)
	case TxnCompleteCommit:
		tc.w.respond(m, map[bool]ErrorCode{true: NONE, false: INVALID_TXN_STATE}[req.commit], 0, nil)
	case TxnCompleteAbort:
		tc.w.respond(m, map[bool]ErrorCode{true: INVALID_TXN_STATE, false: NONE}[req.commit], 0, nil)
	case TxnPrepareCommit, TxnPrepareAbort:
		tc.w.respond(m, CONCURRENT_TRANSACTIONS, 0, nil)
	default:
		tc.w.respond(m, INVALID_TXN_STATE, 0, nil)
	}
}

// prepare logs PrepareCommit/PrepareAbort (the outcome is decided) and sends
// WriteTxnMarkers to every partition of the transaction.
func (tc *txnCoordinator) prepare(t *txnMeta, commit bool) {
	if commit {
		tc.transition(t, TxnPrepareCommit)
	} else {
		tc.transition(t, TxnPrepareAbort)
	}
	t.pendingMarkers = len(t.partitions)
	for _, p := range t.partitions {
		tc.w.send(&message{api: "WriteTxnMarkers", from: Broker, to: Broker, body: &markerReq{pid: t.pid, epoch: t.epoch, commit: commit, log: p, txnID: t.id}})
	}
	if t.pendingMarkers == 0 {
		tc.complete(t, commit)
	}
}

func (tc *txnCoordinator) complete(t *txnMeta, commit bool) {
	if commit {
		t.committed++
		tc.transition(t, TxnCompleteCommit)
	} else {
		t.aborted++
		tc.transition(t, TxnCompleteAbort)
	}
	t.partitions = nil
}

func (tc *txnCoordinator) onMarkersWritten(m *message) {
	req := m.body.(*markerReq)
	t := tc.txns[req.txnID]
	if t == nil || t.pendingMarkers == 0 {
		return
	}
	t.pendingMarkers--
	if t.pendingMarkers == 0 {
		tc.complete(t, req.commit)
	}
}

// onWriteTxnMarkers is the partition leader writing a control record.
func (w *World) onWriteTxnMarkers(m *message) {
	req := m.body.(*markerReq)
	log := w.invoices
	if req.log == w.coord.offsetsLog.name {
		log = w.coord.offsetsLog
	}
	kind, state := "ABORT", StateAborted
	if req.commit {
		kind, state = "COMMIT", StateCommitted
	}
	e := log.entry(req.pid)
	for _, off := range e.txnOffset {
		log.records[off].State = state
	}
	e.txnOffset, e.txnFirst = nil, -1
	if req.epoch > e.epoch {
		e.epoch = req.epoch
		e.batches = nil
	}
	off := log.appendRecord(LogRecord{Record: kind, State: StateMarker, PID: req.pid, Epoch: req.epoch, Transactional: true, Tick: w.now})
	w.record(Event{Type: EvMarker, Member: Broker, Partition: log.name, Offset: off, State: kind, PID: req.pid, Epoch: req.epoch, Detail: req.txnID})
	if log == w.coord.offsetsLog {
		w.coord.completeTxnOffsets(req.pid, req.commit, Broker)
	}
	w.respond(m, NONE, 0, req)
}

// tick aborts transactions open longer than transaction.timeout.ms, fencing the producer.
func (tc *txnCoordinator) tick() {
	for _, id := range tc.order {
		t := tc.txns[id]
		if t.state == TxnOngoing && tc.w.now-t.started >= tc.timeout(id) {
			tc.fenceAndAbort(t, fmt.Sprintf("open for %d ticks: transaction.timeout.ms", tc.w.now-t.started))
		}
	}
}

func (tc *txnCoordinator) timeout(txnID string) int {
	name := strings.TrimPrefix(txnID, "tx-")
	if p, ok := tc.w.current[name]; ok {
		return p.cfg.transactionTimeout
	}
	return tc.w.cfg.transactionTimeout
}
