package broker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// txnMeta is one transactional.id's metadata (Kafka's TransactionMetadata).
type txnMeta struct {
	id             string
	pid            int64
	epoch          int
	state          kafka.TxnState
	timeout        int      // transaction.timeout.ms, from InitProducerId
	partitions     []string // logs in the transaction, by name
	tps            []kafka.TopicPartition
	started        int
	pendingMarkers int
	log            *Log // its partition of __transaction_state
	timer          *clock.Timer
	committed      int
	aborted        int
}

// TxnCoordinator is the transaction coordinator on the broker (Kafka's
// TransactionCoordinator and TransactionStateManager), for the cluster's
// transaction.version: 1, or 2 (KIP-890: the epoch is bumped at every
// transaction end, partitions are added by their leaders).
type TxnCoordinator struct {
	b       *Broker
	version int
	txns    map[string]*txnMeta
	logs    map[int]*Log
	order   []string
	nextPID int64
}

func newTxnCoordinator(b *Broker, version int) *TxnCoordinator {
	if version < 1 {
		version = 1
	}
	return &TxnCoordinator{b: b, version: version, txns: map[string]*txnMeta{}, logs: map[int]*Log{}, nextPID: 1000}
}

// Version returns the transaction.version the coordinator runs (1 or 2).
func (tc *TxnCoordinator) Version() int { return tc.version }

// TxnSummary is what an observer can read of one transactional.id.
type TxnSummary struct {
	TransactionalID string
	ProducerID      int64
	Epoch           int
	State           kafka.TxnState
	Committed       int // transactions committed
	Aborted         int // transactions aborted
}

// Summaries lists every transactional.id in the order they were first seen.
func (tc *TxnCoordinator) Summaries() []TxnSummary {
	out := make([]TxnSummary, 0, len(tc.order))
	for _, id := range tc.order {
		t := tc.txns[id]
		out = append(out, TxnSummary{id, t.pid, t.epoch, t.state, t.committed, t.aborted})
	}
	return out
}

func (tc *TxnCoordinator) stateLog(id string) *Log {
	n := kafka.PartitionFor(id)
	l := tc.logs[n]
	if l == nil {
		l = newLog(kafka.TopicPartition{Topic: kafka.TransactionStateTopic, Partition: n})
		tc.logs[n] = l
	}
	return l
}

func (tc *TxnCoordinator) newPID() int64 {
	tc.nextPID++
	return tc.nextPID
}

// transition writes the new state to __transaction_state and records it.
func (tc *TxnCoordinator) transition(t *txnMeta, state kafka.TxnState) {
	t.state = state
	rec := fmt.Sprintf("%s pid=%d epoch=%d %s", t.id, t.pid, t.epoch, state)
	if len(t.partitions) > 0 && state != kafka.TxnEmpty {
		rec += " [" + strings.Join(t.partitions, " ") + "]"
	}
	tc.b.appendRecord(tc.b.name, t.log, Record{Record: rec, State: StateCommitted})
	tc.b.record(event.Event{Type: event.EvTxnState, Member: tc.b.name, TxnState: state, PID: t.pid, Epoch: t.epoch,
		TransactionalID: t.id}.WithPartitions(append([]string(nil), t.partitions...)))
}

// checkProducer is the coordinator-side epoch check (PRODUCER_FENCED).
func (tc *TxnCoordinator) checkProducer(txnID string, pid int64, epoch int) kafka.ErrorCode {
	t := tc.txns[txnID]
	if t == nil || t.pid != pid || t.epoch != epoch {
		return kafka.PRODUCER_FENCED
	}
	return kafka.NONE
}

// fenceAndAbort bumps the producer's epoch and aborts its open transaction
// with markers at the new epoch (the PrepareEpochFence path: one bump with
// either transaction version).
func (tc *TxnCoordinator) fenceAndAbort(t *txnMeta, reason event.Reason) {
	open := tc.b.clock.Now() - t.started
	t.epoch++
	tc.b.record(event.Event{Type: event.EvFence, Member: tc.b.name, PID: t.pid, Epoch: t.epoch, TransactionalID: t.id, Reason: reason, Ticks: open})
	tc.prepare(t, false, false)
}

// addToTxn adds logs to the transaction (AddPartitionsToTxn, AddOffsetsToTxn).
func (tc *TxnCoordinator) addToTxn(env *Envelope, txnID string, pid int64, epoch int, tps []kafka.TopicPartition, resp interface{ setError(kafka.ErrorCode) }) {
	if code := tc.checkProducer(txnID, pid, epoch); code != kafka.NONE {
		resp.setError(code)
		tc.b.reply(env, 0, resp.(kafka.Message))
		return
	}
	t := tc.txns[txnID]
	if t.state == kafka.TxnPrepareCommit || t.state == kafka.TxnPrepareAbort {
		resp.setError(kafka.CONCURRENT_TRANSACTIONS)
		tc.b.reply(env, 0, resp.(kafka.Message))
		return
	}
	tc.addPartitions(t, tps)
	tc.b.reply(env, 0, resp.(kafka.Message))
}

// addPartitions adds logs to t's transaction, starting it (and its
// transaction.timeout.ms) if it was not Ongoing (TransactionMetadata.prepareAddPartitions).
func (tc *TxnCoordinator) addPartitions(t *txnMeta, tps []kafka.TopicPartition) {
	if t.state != kafka.TxnOngoing {
		t.partitions, t.tps = nil, nil
		t.started = tc.b.clock.Now()
		at := t.started + t.timeout
		if t.timer == nil {
			id := t.id
			t.timer = tc.b.clock.Schedule(at, "transaction.timeout.ms "+id, func() { tc.timedOut(id) })
		} else {
			t.timer.Reset(at)
		}
	}
	changed := t.state != kafka.TxnOngoing
	for _, tp := range tps {
		name := tp.String()
		found := false
		for _, q := range t.partitions {
			found = found || q == name
		}
		if !found {
			t.partitions = append(t.partitions, name)
			t.tps = append(t.tps, tp)
			changed = true
		}
	}
	sort.Strings(t.partitions)
	sort.Slice(t.tps, func(i, j int) bool { return t.tps[i].String() < t.tps[j].String() })
	if changed {
		tc.transition(t, kafka.TxnOngoing)
	}
}

// verifyPartition is the transaction verification a partition leader (a
// transactional Produce) or the group coordinator (a TxnOffsetCommit) asks
// for before it writes the first transactional record of a producer epoch
// there (KIP-890; ReplicaManager.appendRecordsWithTransactionVerification,
// AddPartitionsToTxnManager). Version 1 only verifies that the client added
// the partition (TransactionCoordinator.handleVerifyPartitionsInTransaction;
// a partition not in the transaction is INVALID_TXN_STATE for a version-1
// client); version 2 adds it (handleAddPartitionsToTransaction), which starts
// the transaction. A stale epoch is PRODUCER_FENCED, a transaction whose
// markers are being written CONCURRENT_TRANSACTIONS.
func (tc *TxnCoordinator) verifyPartition(txnID string, pid int64, epoch int, tp kafka.TopicPartition) kafka.ErrorCode {
	t := tc.txns[txnID]
	switch {
	case t == nil || t.pid != pid:
		return kafka.INVALID_PRODUCER_ID_MAPPING
	case t.epoch != epoch:
		return kafka.PRODUCER_FENCED
	case t.state == kafka.TxnPrepareCommit || t.state == kafka.TxnPrepareAbort:
		return kafka.CONCURRENT_TRANSACTIONS
	}
	if tc.version < 2 {
		if t.state == kafka.TxnOngoing {
			for _, q := range t.tps {
				if q == tp {
					return kafka.NONE
				}
			}
		}
		return kafka.INVALID_TXN_STATE
	}
	tc.addPartitions(t, []kafka.TopicPartition{tp})
	return kafka.NONE
}

// timedOut aborts a transaction open longer than its transaction.timeout.ms,
// fencing the producer.
func (tc *TxnCoordinator) timedOut(id string) {
	if t := tc.txns[id]; t != nil && t.state == kafka.TxnOngoing {
		tc.fenceAndAbort(t, event.ReasonTxnTimeout)
	}
}

// prepare logs PrepareCommit/PrepareAbort (the outcome is decided) and sends
// WriteTxnMarkers to the leader of every partition of the transaction. With
// bump (transaction.version 2, an EndTxn) the epoch goes up by one first
// (TransactionMetadata.prepareAbortOrCommit): the markers and the answer
// carry the new epoch.
func (tc *TxnCoordinator) prepare(t *txnMeta, commit, bump bool) {
	if t.timer != nil {
		t.timer.Stop()
	}
	if bump {
		t.epoch++
	}
	if commit {
		tc.transition(t, kafka.TxnPrepareCommit)
	} else {
		tc.transition(t, kafka.TxnPrepareAbort)
	}
	t.pendingMarkers = len(t.tps)
	result := kafka.ControlAbort
	if commit {
		result = kafka.ControlCommit
	}
	for _, tp := range t.tps {
		o := &tc.b.out
		*o = Envelope{From: tc.b.name, To: tc.b.name, Msg: &WriteTxnMarkersRequest{TransactionalID: t.id,
			ProducerID: t.pid, ProducerEpoch: t.epoch, Result: result, Partition: tp}}
		tc.b.net.Send(o)
	}
	if t.pendingMarkers == 0 {
		tc.complete(t, commit)
	}
}

func (tc *TxnCoordinator) complete(t *txnMeta, commit bool) {
	if commit {
		t.committed++
		tc.transition(t, kafka.TxnCompleteCommit)
	} else {
		t.aborted++
		tc.transition(t, kafka.TxnCompleteAbort)
	}
	t.partitions, t.tps = nil, nil
}

func (tc *TxnCoordinator) markersWritten(resp *WriteTxnMarkersResponse) {
	t := tc.txns[resp.TransactionalID]
	if t == nil || t.pendingMarkers == 0 {
		return
	}
	t.pendingMarkers--
	if t.pendingMarkers == 0 {
		tc.complete(t, resp.Result == kafka.ControlCommit)
	}
}
