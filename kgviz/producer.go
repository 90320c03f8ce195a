package kgviz

import (
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// txnState is the transactional producer's state (Kafka's TransactionManager.State).
type txnState uint8

const (
	txnUninitialized  txnState = iota // no producer id yet
	txnInitializing                   // InitProducerId in flight
	txnReady                          // a producer id, no transaction
	txnInTransaction                  // beginTransaction() called
	txnCommitting                     // EndTxn(COMMIT) in flight
	txnAborting                       // EndTxn(ABORT) in flight
	txnAbortableError                 // the transaction must abort
	txnFatalError                     // ProducerFencedException: the producer is unusable
)

// addState is where the output partition stands in the current transaction.
type addState uint8

const (
	partitionNotAdded addState = iota
	partitionAdding            // AddPartitionsToTxn in flight
	partitionAdded
)

// batch is one produce batch (one invoice) until it is acknowledged.
type batch struct {
	record string
	dlq    bool // for the dead-letter topic (WithDeadLetterTopic), not invoices
	seq    int
	sentAt int
	acked  bool
	sent   bool
	timer  *clock.Timer // request.timeout.ms
}

// producer is the member's KafkaProducer: plain, idempotent or transactional.
type producer struct {
	p     *member
	mode  ProducerMode
	tv    int // transaction.version: 1 (AddPartitionsToTxn, AddOffsetsToTxn) or 2 (KIP-890)
	txnID string
	pid   int64 // 0: none yet
	epoch int
	seq   int
	// dlqSeq: the next sequence number for the dead-letter partition (Kafka
	// numbers each partition's records apart: TransactionManager's
	// TxnPartitionMap, one sequence per TopicPartition)
	dlqSeq int
	// batches waiting for an answer, and by the id of the Produce request that carries them
	batches []*batch
	byMsg   map[int]*batch
	state   txnState
	// the current transaction (TransactionManager's transactionStarted:
	// with version 1 a partition or the offsets were added; with version 2
	// a record was sent or the offsets were sent)
	partition      addState
	offsetsAdded   bool
	offsetsWaiting bool // the batch ended while AddPartitionsToTxn was in flight
	// offsetsAfterFlush: WithFlushBeforeOffsets held the offsets until every
	// record is acknowledged (afterFlush sends them)
	offsetsAfterFlush bool
}

func (pr *producer) init(p *member) {
	pr.p = p
	pr.mode = p.cfg.producer
	pr.byMsg = map[int]*batch{}
	pr.tv = p.cfg.transactionVersion
	if pr.mode == producerTransactional {
		pr.txnID = p.cfg.transactionalIDOf(p.name)
	}
}

// stop cancels the producer's timers when its process ends.
func (pr *producer) stop() {
	for _, b := range pr.batches {
		b.timer.Stop()
	}
}

// initTransactions sends InitProducerId with the transactional.id.
func (pr *producer) initTransactions() {
	pr.sendInitProducerID()
}

func (pr *producer) sendInitProducerID() {
	pr.state = txnInitializing
	pr.p.request(&broker.InitProducerIDRequest{TransactionalID: pr.txnID, TransactionTimeout: pr.p.cfg.transactionTimeout}, 0)
}

func (pr *producer) onInitProducerIDResponse(m *broker.InitProducerIDResponse) {
	p := pr.p
	switch m.ErrorCode {
	case kafka.NONE:
		pr.pid, pr.epoch, pr.seq, pr.dlqSeq = m.ProducerID, m.ProducerEpoch, 0, 0
		pr.state = txnReady
		for _, b := range pr.batches { // number the batches that waited for the producer id
			if !b.sent {
				b.seq = pr.nextSeq(b.dlq)
			}
		}
		if p.phase == PhaseInitProducerID {
			p.findCoordinator()
		}
		for _, b := range pr.batches { // the idempotent producer's first batches waited for the id
			if !b.sent {
				pr.transmit(b)
			}
		}
	case kafka.CONCURRENT_TRANSACTIONS:
		// the client retries after retry.backoff.ms
		if p.phase == PhaseInitProducerID {
			p.backoff(PhaseInitProducerID)
			return
		}
		p.clk.After(1, "retry InitProducerId "+p.name, func() {
			if p.alive() {
				pr.sendInitProducerID()
			}
		})
	default:
		p.fail(kafka.InitProducerID, m.ErrorCode, event.KafkaException)
	}
}

// send hands an invoice to the producer; it goes out at once, or once it has
// a producer id (idempotent) or invoices-0 is part of the transaction.
//
// A transaction that must abort takes no more records: KafkaProducer.send
// fails at once (TransactionManager.maybeFailWithError), nothing goes out.
func (pr *producer) send(record string) { pr.sendTo(false, record) }

// nextSeq hands out the next sequence number of invoices-0 or of the
// dead-letter partition.
func (pr *producer) nextSeq(dlq bool) int {
	if dlq {
		pr.dlqSeq++
		return pr.dlqSeq - 1
	}
	pr.seq++
	return pr.seq - 1
}

// sendTo sends a record to invoices-0 or (dlq) to the dead-letter
// partition, in the same transaction when the producer is transactional.
func (pr *producer) sendTo(dlq bool, record string) {
	if pr.mode == producerTransactional && (pr.state == txnAbortableError || pr.state == txnFatalError) {
		return
	}
	b := &batch{record: record, dlq: dlq}
	if pr.mode != Plain {
		b.seq = pr.nextSeq(dlq)
	}
	pr.batches = append(pr.batches, b)
	if pr.mode == Idempotent && pr.pid == 0 {
		if pr.state != txnInitializing { // the Sender asks for a producer id before the first batch
			pr.sendInitProducerID()
		}
		return
	}
	if pr.mode == producerTransactional && pr.tv >= 2 {
		// KIP-890: no AddPartitionsToTxn; the partition leader adds the
		// partition to the transaction when the first record arrives.
		pr.partition = partitionAdded
	}
	if pr.mode == producerTransactional && pr.partition != partitionAdded {
		if pr.partition == partitionNotAdded {
			pr.addPartition()
		}
		return
	}
	pr.transmit(b)
}

func (pr *producer) addPartition() {
	pr.partition = partitionAdding
	pr.p.request(&broker.AddPartitionsToTxnRequest{TransactionalID: pr.txnID, ProducerID: pr.pid, ProducerEpoch: pr.epoch,
		Partitions: pr.p.t.outputTPs()}, 0)
}

func (pr *producer) transmit(b *batch) {
	p := pr.p
	b.sent, b.sentAt = true, p.now()
	tp := p.t.invoices
	if b.dlq {
		tp = p.t.deadLetter
	}
	id := p.request(&broker.ProduceRequest{TransactionalID: pr.txnID, Partition: tp, Batch: broker.RecordBatch{
		ProducerID: pr.pid, ProducerEpoch: pr.epoch, BaseSequence: b.seq, Transactional: pr.mode == producerTransactional, Record: b.record}}, 0)
	pr.byMsg[id] = b
	at := b.sentAt + p.cfg.requestTimeout
	if b.timer == nil {
		b.timer = p.clk.Schedule(at, "request.timeout.ms "+p.name, func() { pr.requestTimedOut(b) })
	} else {
		b.timer.Reset(at)
	}
}

// requestTimedOut sends a batch again after request.timeout.ms without an answer.
func (pr *producer) requestTimedOut(b *batch) {
	p := pr.p
	if b.acked || !p.alive() {
		return
	}
	p.event(event.Event{Type: event.EvRetry, PID: pr.pid, Epoch: pr.epoch, Record: b.record, Sequence: b.seq, Ticks: p.now() - b.sentAt})
	pr.transmit(b)
}

func (pr *producer) flushed() bool {
	for _, b := range pr.batches {
		if !b.acked {
			return false
		}
	}
	return true
}

func (pr *producer) onProduceResponse(env *broker.Envelope, m *broker.ProduceResponse) {
	b := pr.byMsg[env.ReplyTo]
	if b == nil || b.acked {
		return
	}
	delete(pr.byMsg, env.ReplyTo)
	if m.ErrorCode == kafka.CONCURRENT_TRANSACTIONS {
		// transaction.version 2: the previous transaction's markers are being
		// written; a retriable error, the batch goes again after retry.backoff.ms.
		b.timer.Stop()
		p := pr.p
		p.clk.After(1, "retry Produce "+p.name, func() {
			if p.alive() && !b.acked {
				pr.transmit(b)
			}
		})
		return
	}
	b.acked = true
	b.timer.Stop()
	pr.dropAcked()
	switch m.ErrorCode {
	case kafka.NONE:
	case kafka.INVALID_PRODUCER_EPOCH, kafka.OUT_OF_ORDER_SEQUENCE_NUMBER, kafka.INVALID_TXN_STATE:
		ex := event.InvalidProducerEpochException
		switch m.ErrorCode {
		case kafka.OUT_OF_ORDER_SEQUENCE_NUMBER:
			ex = event.OutOfOrderSequenceException
		case kafka.INVALID_TXN_STATE:
			ex = event.KafkaException
		}
		pr.p.event(event.Event{Type: event.EvError, API: kafka.Produce, PID: pr.pid, Epoch: pr.epoch, Error: m.ErrorCode, Record: b.record, Exception: ex})
		if pr.mode == producerTransactional {
			pr.state = txnAbortableError
		}
	}
	if pr.p.phase == PhaseFlush && pr.flushed() && !pr.p.flushThenClose {
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

func (pr *producer) onAddPartitionsResponse(m *broker.AddPartitionsToTxnResponse) {
	p := pr.p
	switch m.ErrorCode {
	case kafka.NONE:
		pr.partition = partitionAdded
		for _, b := range pr.batches {
			if !b.sent {
				pr.transmit(b)
			}
		}
		if pr.offsetsWaiting {
			pr.addOffsets()
		}
	case kafka.CONCURRENT_TRANSACTIONS:
		p.clk.After(1, "retry AddPartitionsToTxn "+p.name, func() {
			if p.alive() {
				pr.addPartition()
			}
		})
	default:
		pr.partition = partitionNotAdded
		pr.fatalOrAbortable(kafka.AddPartitionsToTxn, m.ErrorCode)
		// unsent batches can never be sent in this transaction
		for _, b := range pr.batches {
			if !b.sent {
				b.acked = true
			}
		}
		pr.dropAcked()
		if p.alive() && (p.phase == PhaseFlush || pr.offsetsWaiting) && !p.flushThenClose {
			pr.offsetsWaiting = false
			pr.endTxn()
		}
	}
}

// fatalOrAbortable handles a transactional error the way TransactionManager
// does: PRODUCER_FENCED is fatal (the application closes), the others abort
// the transaction.
//
// On the coordinators' APIs (AddPartitionsToTxn, AddOffsetsToTxn,
// TxnOffsetCommit, EndTxn) INVALID_PRODUCER_EPOCH is fencing too: the
// handlers raise ProducerFencedException for it.
func (pr *producer) fatalOrAbortable(api kafka.APIKey, code ErrorCode) {
	if code == kafka.PRODUCER_FENCED || (code == kafka.INVALID_PRODUCER_EPOCH && api != kafka.Produce) {
		pr.state = txnFatalError
		pr.p.fail(api, code, event.ProducerFencedException)
		return
	}
	pr.state = txnAbortableError
	pr.p.event(event.Event{Type: event.EvError, API: api, PID: pr.pid, Epoch: pr.epoch, Error: code, Exception: event.TransactionAbortableException})
}

func (pr *producer) beginTransaction() {
	pr.state = txnInTransaction
	pr.partition, pr.offsetsAdded, pr.offsetsWaiting, pr.offsetsAfterFlush = partitionNotAdded, false, false, false
}

// commitTransaction runs at the end of a batch: sendOffsetsToTransaction,
// then commitTransaction. As in Kafka's TransactionManager, the offsets go
// out while the last records may still be in flight, one transactional
// request at a time (AddOffsetsToTxn waits for AddPartitionsToTxn's answer),
// and only EndTxn waits for every record's acknowledgement. A transaction
// that already met an abortable error sends no offsets: it aborts.
//
// The application's call into the consumer for its ConsumerGroupMetadata
// here is where kgviz lets a waiting JoinGroup answer be handled (see
// groupClient.deferredJoin). Kafka's groupMetadata() does not poll the
// network, but a transaction's commit takes milliseconds there, while here
// its round trips take ticks: waiting for the next poll() would hold the
// answer longer than session.timeout.ms (docs/simplifications.md).
func (pr *producer) commitTransaction() {
	p := pr.p
	p.pollNetwork()
	if p.cfg.flushBeforeOffsets && !pr.flushed() {
		// WithFlushBeforeOffsets: producer.flush() first; afterFlush goes on
		pr.offsetsAfterFlush = true
		p.setPhase(PhaseFlush)
		p.setActivity(event.ActivityProducing, "")
		return
	}
	pr.sendOffsets()
}

// sendOffsets is sendOffsetsToTransaction then commitTransaction, or the
// abort of a transaction that met an abortable error.
func (pr *producer) sendOffsets() {
	p := pr.p
	pr.offsetsAfterFlush = false
	p.setActivity(event.ActivityCommitting, "")
	if pr.state == txnAbortableError {
		pr.endTxn()
		return
	}
	if pr.tv >= 2 {
		// KIP-890: no AddOffsetsToTxn; the group coordinator adds its
		// __consumer_offsets partition to the transaction itself.
		pr.offsetsAdded = true
		pr.sendTxnOffsetCommit()
		return
	}
	p.setPhase(PhaseTxnAddOffsets)
	if pr.partition == partitionAdding {
		pr.offsetsWaiting = true // sent once AddPartitionsToTxn is answered
		return
	}
	pr.addOffsets()
}

func (pr *producer) addOffsets() {
	pr.offsetsWaiting = false
	pr.p.request(&broker.AddOffsetsToTxnRequest{TransactionalID: pr.txnID, ProducerID: pr.pid, ProducerEpoch: pr.epoch, GroupID: GroupID}, 0)
}

func (pr *producer) onAddOffsetsResponse(m *broker.AddOffsetsToTxnResponse) {
	p := pr.p
	if p.phase != PhaseTxnAddOffsets {
		return
	}
	switch m.ErrorCode {
	case kafka.NONE:
		pr.offsetsAdded = true
		if pr.state == txnAbortableError {
			// a record failed meanwhile: the TxnOffsetCommit is not sent
			// (TransactionManager.maybeTerminateRequestWithError)
			pr.endTxn()
			return
		}
		pr.sendTxnOffsetCommit()
	case kafka.CONCURRENT_TRANSACTIONS:
		p.backoff(PhaseTxnAddOffsets)
	default:
		pr.fatalOrAbortable(kafka.AddOffsetsToTxn, m.ErrorCode)
		if p.alive() {
			pr.endTxn()
		}
	}
}

// sendTxnOffsetCommit sends the batch's offsets to the group coordinator.
// They carry the application's ConsumerGroupMetadata: the member id and
// generation of its last completed rebalance (KIP-447).
func (pr *producer) sendTxnOffsetCommit() {
	p := pr.p
	g := &p.group
	p.request(&broker.TxnOffsetCommitRequest{TransactionalID: pr.txnID, GroupID: GroupID, ProducerID: pr.pid, ProducerEpoch: pr.epoch,
		GenerationID: g.appGeneration, MemberID: g.appMemberID, GroupInstanceID: p.cfg.instanceID,
		Offsets: append([]broker.PartitionOffset(nil), p.batchOffsets...)}, g.appGeneration)
	p.setPhase(PhaseTxnOffsetCommit)
}

func (pr *producer) onTxnOffsetCommitResponse(m *broker.TxnOffsetCommitResponse) {
	p := pr.p
	if p.phase != PhaseTxnOffsetCommit {
		return
	}
	switch m.ErrorCode {
	case kafka.NONE:
	case kafka.ILLEGAL_GENERATION, kafka.UNKNOWN_MEMBER_ID, kafka.FENCED_INSTANCE_ID:
		// Fenced by the group (KIP-447): an abortable error, the
		// transaction must abort (TransactionManager.TxnOffsetCommitHandler:
		// FencedInstanceIdException for FENCED_INSTANCE_ID,
		// CommitFailedException for the other two). The consumer's own
		// membership is not touched: its heartbeats and its next poll say
		// where it stands.
		ex := event.CommitFailedException
		if m.ErrorCode == kafka.FENCED_INSTANCE_ID {
			ex = event.FencedInstanceIDException
		}
		p.event(event.Event{Type: event.EvCommitFailed, Generation: p.group.appGeneration, API: kafka.TxnOffsetCommit, Error: m.ErrorCode,
			Exception: ex, PID: pr.pid, Epoch: pr.epoch})
		pr.state = txnAbortableError
	case kafka.CONCURRENT_TRANSACTIONS:
		p.backoff(PhaseTxnOffsetCommit)
		return
	default:
		pr.fatalOrAbortable(kafka.TxnOffsetCommit, m.ErrorCode)
		if !p.alive() {
			return
		}
	}
	pr.endTxn()
}

// endTxn sends EndTxn(COMMIT), or EndTxn(ABORT) after an abortable error.
// A transaction nothing was added to (version 1) or nothing was sent in
// (version 2) ends without a request.
//
// Like the Sender, it waits for every record's acknowledgement first
// (TransactionManager.nextRequest holds EndTxn while batches are incomplete).
func (pr *producer) endTxn() {
	p := pr.p
	if !pr.flushed() {
		p.setPhase(PhaseFlush) // afterFlush calls endTxn again
		p.setActivity(event.ActivityProducing, "")
		return
	}
	commit := pr.state != txnAbortableError
	if pr.partition == partitionNotAdded && !pr.offsetsAdded {
		pr.state = txnReady
		if !commit {
			pr.resetPositions()
		}
		p.finishBatch()
		return
	}
	if commit {
		pr.state = txnCommitting
	} else {
		pr.state = txnAborting
	}
	p.request(&broker.EndTxnRequest{TransactionalID: pr.txnID, ProducerID: pr.pid, ProducerEpoch: pr.epoch, Committed: commit}, 0)
	p.setPhase(PhaseTxnEnd)
	p.setActivity(event.ActivityCommitting, "")
}

// resetPositions makes the consumer read its committed offsets again after an
// aborted transaction, instead of going on from its positions.
func (pr *producer) resetPositions() {
	pr.p.positions.reset()
	pr.p.touch()
}

func (pr *producer) onEndTxnResponse(m *broker.EndTxnResponse) {
	p := pr.p
	if p.phase != PhaseTxnEnd {
		return
	}
	aborting := pr.state == txnAborting
	switch m.ErrorCode {
	case kafka.NONE:
		pr.state = txnReady
		if m.ProducerID != 0 {
			// transaction.version 2: the epoch was bumped at the end of the
			// transaction; the next one starts its sequences at 0.
			pr.pid, pr.epoch, pr.seq, pr.dlqSeq = m.ProducerID, m.ProducerEpoch, 0, 0
		}
		if aborting {
			pr.resetPositions()
		}
		p.finishBatch()
	case kafka.CONCURRENT_TRANSACTIONS:
		if aborting {
			pr.state = txnAbortableError
		} else {
			pr.state = txnInTransaction
		}
		p.backoff(PhaseTxnEnd)
	default:
		pr.fatalOrAbortable(kafka.EndTxn, m.ErrorCode)
		if p.alive() {
			pr.state = txnAbortableError
			pr.endTxn()
		}
	}
}
