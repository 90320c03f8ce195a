package kgviz

import (
	"fmt"
	"strconv"
)

type produceReq struct {
	record string
	pid    int64
	epoch  int
	seq    int
	txn    bool
}

type produceResp struct{ offset int }

type initPIDReq struct{ txnID string }

type initPIDResp struct {
	pid   int64
	epoch int
}

type txnReq struct {
	txnID      string
	pid        int64
	epoch      int
	partitions []string // AddPartitionsToTxn
	group      string   // AddOffsetsToTxn
	commit     bool     // EndTxn
}

// batch is one produce batch (one invoice) until it is acknowledged.
type batch struct {
	record string
	seq    int
	sentAt int
	acked  bool
	sent   bool
	msgs   []int
}

// producer is the member's KafkaProducer: plain, idempotent or transactional.
type producer struct {
	p       *process
	mode    ProducerMode
	txnID   string
	pid     int64
	epoch   int
	seq     int
	batches []*batch
	byMsg   map[int]*batch
	inTxn   bool
	added   bool // invoices-0 added to the transaction
	adding  bool
	offsets bool // AddOffsetsToTxn succeeded
	// offsetsWaiting: the batch ended while AddPartitionsToTxn was in flight
	offsetsWaiting bool
	abortable      bool
	aborting       bool
	initing        bool
}

func (pr *producer) init(p *process) {
	pr.p = p
	pr.mode = p.cfg.producer
	pr.pid = -1
	pr.byMsg = map[int]*batch{}
	if pr.mode == TransactionalProducer {
		pr.txnID = "tx-" + p.name
	}
}

func (pr *producer) initProducerID() {
	pr.p.w.request(pr.p, "InitProducerId", 0, &initPIDReq{txnID: pr.txnID})
}

func (pr *producer) onInitProducerIDResponse(m *message) {
	p := pr.p
	switch m.err {
	case NONE:
		r := m.body.(*initPIDResp)
		pr.pid, pr.epoch, pr.seq = r.pid, r.epoch, 0
		pr.initing = false
		for _, b := range pr.batches { // number the batches that waited for the PID
			if !b.sent {
				b.seq = pr.seq
				pr.seq++
			}
		}
		if p.phase == phInitPID {
			p.findCoordinator()
		}
		for _, b := range pr.batches { // the idempotent producer's first batches waited for the PID
			if !b.sent {
				pr.transmit(b)
			}
		}
	case CONCURRENT_TRANSACTIONS:
		// the client retries (retry.backoff.ms)
		if p.phase != phInitPID {
			p.w.schedule(p.w.now+1, "retry InitProducerId", func() {
				if p.alive {
					pr.initProducerID()
				}
			})
			return
		}
		p.phase = phRetry
		p.retryAt = p.w.now + 1
		p.retry = func() { pr.initProducerID(); p.phase = phInitPID }
	default:
		p.exit("InitProducerId failed: " + m.err.String())
	}
}

// send hands an invoice to the producer; it is sent at once, or once
// invoices-0 is part of the transaction.
func (pr *producer) send(record string) {
	b := &batch{record: record, seq: -1}
	if pr.mode != Plain {
		b.seq = pr.seq
		pr.seq++
	}
	pr.batches = append(pr.batches, b)
	if pr.mode == Idempotent && pr.pid < 0 {
		if !pr.initing { // the Sender asks for a PID before the first batch
			pr.initing = true
			pr.initProducerID()
		}
		return
	}
	if pr.mode == TransactionalProducer && !pr.added {
		if !pr.adding {
			pr.adding = true
			pr.p.w.request(pr.p, "AddPartitionsToTxn", 0, &txnReq{txnID: pr.txnID, pid: pr.pid, epoch: pr.epoch, partitions: []string{pr.p.w.invoices.name}})
		}
		return
	}
	pr.transmit(b)
}

func (pr *producer) transmit(b *batch) {
	b.sent, b.sentAt = true, pr.p.w.now
	m := pr.p.w.request(pr.p, "Produce", 0, &produceReq{record: b.record, pid: pr.pid, epoch: pr.epoch, seq: b.seq, txn: pr.mode == TransactionalProducer})
	b.msgs = append(b.msgs, m.id)
	pr.byMsg[m.id] = b
}

// retryDue resends batches that got no answer within request.timeout.ms.
func (pr *producer) retryDue() {
	for _, b := range pr.batches {
		if b.sent && !b.acked && pr.p.w.now-b.sentAt >= pr.p.cfg.requestTimeout {
			pr.p.w.record(Event{Type: EvConfig, Member: pr.p.name, PID: pr.pid, Epoch: pr.epoch, Record: b.record,
				Detail: fmt.Sprintf("retry: no answer for %d ticks, the same batch again (seq %d)", pr.p.w.now-b.sentAt, b.seq)})
			pr.transmit(b)
		}
	}
}

func (pr *producer) flushed() bool {
	for _, b := range pr.batches {
		if !b.acked {
			return false
		}
	}
	return true
}

func (pr *producer) onProduceResponse(m *message) {
	b := pr.byMsg[m.replyTo]
	if b == nil || b.acked {
		return
	}
	b.acked = true
	pr.dropAcked()
	switch m.err {
	case NONE:
	case INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER:
		pr.p.w.record(Event{Type: EvError, Member: pr.p.name, MemberID: pr.p.memberID, PID: pr.pid, Epoch: pr.epoch, Error: m.err, Record: b.record,
			Detail: "abortable error: the transaction must abort"})
		if pr.mode == TransactionalProducer {
			pr.abortable = true
		}
	}
	if pr.p.phase == phFlush && pr.flushed() {
		pr.p.afterFlush()
	}
}

func (pr *producer) dropAcked() {
	kept := pr.batches[:0]
	for _, b := range pr.batches {
		if !b.acked {
			kept = append(kept, b)
		}
	}
	pr.batches = kept
}

func (pr *producer) onAddPartitionsResponse(m *message) {
	p := pr.p
	pr.adding = false
	switch m.err {
	case NONE:
		pr.added = true
		for _, b := range pr.batches {
			if !b.sent {
				pr.transmit(b)
			}
		}
		if pr.offsetsWaiting {
			pr.addOffsets()
		}
		if p.phase == phFlush && pr.flushed() {
			p.afterFlush()
		}
	case CONCURRENT_TRANSACTIONS:
		pr.adding = true
		p.w.schedule(p.w.now+1, "retry AddPartitionsToTxn", func() {
			if p.alive {
				p.w.request(p, "AddPartitionsToTxn", 0, &txnReq{txnID: pr.txnID, pid: pr.pid, epoch: pr.epoch, partitions: []string{p.w.invoices.name}})
			}
		})
	default:
		pr.fatalOrAbortable(m.err, "AddPartitionsToTxn")
		// unsent batches can never be sent in this transaction
		for _, b := range pr.batches {
			if !b.sent {
				b.acked = true
			}
		}
		pr.dropAcked()
		if p.alive && (p.phase == phFlush || pr.offsetsWaiting) {
			pr.offsetsWaiting = false
			pr.endTxn()
		}
	}
}

// fatalOrAbortable handles a transactional error the way TransactionManager does:
// PRODUCER_FENCED is fatal (the application closes), others abort the transaction.
func (pr *producer) fatalOrAbortable(code ErrorCode, api string) {
	if code == PRODUCER_FENCED {
		pr.p.exit(api + ": " + code.String() + " (ProducerFencedException: a newer instance with " + pr.txnID + " exists; the application closes)")
		return
	}
	pr.abortable = true
	pr.p.w.record(Event{Type: EvError, Member: pr.p.name, MemberID: pr.p.memberID, PID: pr.pid, Epoch: pr.epoch, Error: code,
		Detail: api + " failed: abortable error, the transaction must abort"})
}

func (pr *producer) beginTransaction() {
	pr.inTxn, pr.added, pr.adding, pr.offsets, pr.abortable, pr.aborting = true, false, false, false, false, false
	pr.offsetsWaiting = false
}

// commitTransaction runs at the end of a batch: sendOffsetsToTransaction, flush, EndTxn.
func (pr *producer) commitTransaction() {
	p := pr.p
	p.setActivity(ActivityCommitting, "")
	if pr.abortable {
		pr.endTxn()
		return
	}
	p.phase = phTxnAddOffsets
	if pr.adding {
		// One transactional request at a time (TransactionManager): the
		// offsets wait for AddPartitionsToTxn's answer.
		pr.offsetsWaiting = true
		return
	}
	pr.addOffsets()
}

func (pr *producer) addOffsets() {
	pr.offsetsWaiting = false
	pr.p.w.request(pr.p, "AddOffsetsToTxn", 0, &txnReq{txnID: pr.txnID, pid: pr.pid, epoch: pr.epoch, group: GroupID})
}

func (pr *producer) onAddOffsetsResponse(m *message) {
	p := pr.p
	if p.phase != phTxnAddOffsets {
		return
	}
	switch m.err {
	case NONE:
		pr.offsets = true
		p.w.request(p, "TxnOffsetCommit", p.batchGen, &commitReq{memberID: p.batchMember, instanceID: p.cfg.instanceID,
			offsets: append([]partOffset(nil), p.batchOffsets...), txnID: pr.txnID, pid: pr.pid, epoch: pr.epoch})
		p.phase = phTxnOffsetCommit
	case CONCURRENT_TRANSACTIONS:
		p.phase = phRetry
		p.retryAt = p.w.now + 1
		p.retry = pr.commitTransaction
	default:
		pr.fatalOrAbortable(m.err, "AddOffsetsToTxn")
		if p.alive {
			pr.endTxn()
		}
	}
}

func (pr *producer) onTxnOffsetCommitResponse(m *message) {
	p := pr.p
	if p.phase != phTxnOffsetCommit {
		return
	}
	if m.err != NONE {
		if m.err == ILLEGAL_GENERATION || m.err == UNKNOWN_MEMBER_ID || m.err == FENCED_INSTANCE_ID {
			p.w.record(Event{Type: EvCommitFailed, Member: p.name, MemberID: p.memberID, Generation: p.batchGen, Error: m.err, PID: pr.pid, Epoch: pr.epoch,
				Detail: "TxnOffsetCommit fenced by the group (KIP-447): CommitFailedException, the transaction must abort"})
			p.afterCommitError(m.err)
			pr.abortable = true
		} else {
			pr.fatalOrAbortable(m.err, "TxnOffsetCommit")
			if !p.alive {
				return
			}
		}
	}
	if !pr.flushed() {
		p.phase = phFlush
		p.setActivity(ActivityProducing, "")
		return
	}
	pr.endTxn()
}

// endTxn sends EndTxn(COMMIT), or EndTxn(ABORT) after an abortable error.
// A transaction to which nothing was added ends without a request.
func (pr *producer) endTxn() {
	p := pr.p
	commit := !pr.abortable
	if !pr.added && !pr.adding && !pr.offsets {
		pr.inTxn = false
		if !commit {
			pr.resetPositions()
		}
		p.finishBatch()
		return
	}
	pr.aborting = !commit
	p.w.request(p, "EndTxn", 0, &txnReq{txnID: pr.txnID, pid: pr.pid, epoch: pr.epoch, commit: commit})
	p.phase = phTxnEnd
	p.setActivity(ActivityCommitting, "")
}

// resetPositions makes the consumer read its committed offsets again after an
// aborted transaction, instead of going on from its positions.
func (pr *producer) resetPositions() {
	for tp := range pr.p.positions {
		delete(pr.p.positions, tp)
	}
	pr.p.touch()
}

func (pr *producer) onEndTxnResponse(m *message) {
	p := pr.p
	if p.phase != phTxnEnd {
		return
	}
	switch m.err {
	case NONE:
		pr.inTxn = false
		if pr.aborting {
			pr.resetPositions()
		}
		p.finishBatch()
	case CONCURRENT_TRANSACTIONS:
		p.phase = phRetry
		p.retryAt = p.w.now + 1
		p.retry = pr.endTxn
	default:
		pr.fatalOrAbortable(m.err, "EndTxn("+map[bool]string{true: "ABORT", false: "COMMIT"}[pr.aborting]+")")
		if p.alive {
			pr.abortable = true
			pr.endTxn()
		}
	}
}

func (w *World) schedule(tick int, name string, fn func()) {
	i := len(w.actions)
	for i > 0 && w.actions[i-1].tick > tick {
		i--
	}
	w.actions = append(w.actions, scheduled{})
	copy(w.actions[i+1:], w.actions[i:])
	w.actions[i] = scheduled{tick: tick, name: name, fn: fn}
}

// onProduce is the partition leader of invoices-0 (UnifiedLog + ProducerStateManager).
func (w *World) onProduce(m *message) {
	req := m.body.(*produceReq)
	log := w.invoices
	if req.pid >= 0 {
		e := log.entry(req.pid)
		if req.epoch < e.epoch {
			w.respond(m, INVALID_PRODUCER_EPOCH, 0, nil)
			return
		}
		if req.epoch == e.epoch {
			for _, b := range e.batches {
				if b.seq == req.seq && b.epoch == req.epoch {
					w.record(Event{Type: EvConfig, Member: Broker, Partition: log.name, Offset: b.offset, Record: req.record, PID: req.pid, Epoch: req.epoch,
						Detail: "duplicate sequence " + strconv.Itoa(req.seq) + ": acknowledged with the original offset " + strconv.Itoa(b.offset) + ", nothing written"})
					w.respond(m, NONE, 0, &produceResp{offset: b.offset})
					return
				}
			}
			if n := len(e.batches); n > 0 && req.seq != e.batches[n-1].seq+1 {
				w.respond(m, OUT_OF_ORDER_SEQUENCE_NUMBER, 0, nil)
				return
			}
		} else {
			e.batches = nil
		}
		e.epoch = req.epoch
		state := StateCommitted
		if req.txn {
			state = StateOpen
		}
		off := log.appendRecord(LogRecord{Record: req.record, State: state, PID: req.pid, Epoch: req.epoch, Sequence: req.seq, Transactional: req.txn, Tick: w.now})
		e.batches = append(e.batches, batchMeta{epoch: req.epoch, seq: req.seq, offset: off})
		if len(e.batches) > 5 {
			e.batches = e.batches[len(e.batches)-5:]
		}
		if req.txn {
			if e.txnFirst < 0 {
				e.txnFirst = off
			}
			e.txnOffset = append(e.txnOffset, off)
		}
		w.recordAppend(m.from, log, off)
		w.respond(m, NONE, 0, &produceResp{offset: off})
		return
	}
	off := log.appendRecord(LogRecord{Record: req.record, State: StateCommitted, PID: -1, Sequence: -1, Tick: w.now})
	w.recordAppend(m.from, log, off)
	w.respond(m, NONE, 0, &produceResp{offset: off})
}

func (w *World) recordAppend(by string, log *partitionLog, off int) {
	r := log.records[off]
	st := ""
	if r.Transactional {
		st = "transactional"
	}
	w.record(Event{Type: EvAppend, Member: by, Partition: log.name, Offset: off, Record: r.Record, PID: r.PID, Epoch: r.Epoch, State: st})
}
