package broker

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// EndTxn (API key 26): the producer commits or aborts its transaction.

// EndTxnRequest ends a transaction.
type EndTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int
	Committed       bool // true: commit, false: abort
}

// EndTxnResponse answers it. With transaction.version 2 it carries the
// producer id and the epoch bumped for the next transaction (EndTxn v5,
// KIP-890); 0 otherwise.
type EndTxnResponse struct {
	ErrorCode     kafka.ErrorCode
	ProducerID    int64
	ProducerEpoch int
}

func (*EndTxnRequest) Key() kafka.APIKey  { return kafka.EndTxn }
func (*EndTxnResponse) Key() kafka.APIKey { return kafka.EndTxn }
func (*EndTxnRequest) IsResponse() bool   { return false }
func (*EndTxnResponse) IsResponse() bool  { return true }

func (r *EndTxnResponse) String() string {
	if r.ProducerID == 0 {
		return ""
	}
	return fmt.Sprintf("pid=%d epoch=%d", r.ProducerID, r.ProducerEpoch)
}

func (r *EndTxnRequest) String() string {
	kind := "ABORT"
	if r.Committed {
		kind = "COMMIT"
	}
	return fmt.Sprintf("%s pid=%d epoch=%d %s", r.TransactionalID, r.ProducerID, r.ProducerEpoch, kind)
}

// handleEndTxn is TransactionCoordinator.handleEndTransaction. Version 1
// (endTransactionWithTV1): an Ongoing transaction goes to Prepare*; a retry
// of the same outcome after it completed succeeds; the epoch must be the
// current one (PRODUCER_FENCED); anything else is INVALID_TXN_STATE.
// Version 2 (endTransaction): Prepare* at the epoch + 1, which the answer
// carries and the markers are written with; a retry is the request with the
// epoch before the bump; an abort of a transaction that holds nothing
// (Empty, CompleteCommit, CompleteAbort at the current epoch) bumps the epoch
// too.
func (tc *TxnCoordinator) handleEndTxn(env *Envelope, req *EndTxnRequest) {
	reply := func(code kafka.ErrorCode) { tc.b.reply(env, 0, &EndTxnResponse{ErrorCode: code}) }
	t := tc.txns[req.TransactionalID]
	if t == nil || t.pid != req.ProducerID {
		reply(kafka.INVALID_PRODUCER_ID_MAPPING)
		return
	}
	if tc.version < 2 {
		tc.endTxnV1(t, req, reply)
		return
	}
	retry := req.ProducerEpoch+1 == t.epoch
	valid := req.ProducerEpoch == t.epoch
	switch t.state {
	case kafka.TxnPrepareCommit, kafka.TxnPrepareAbort:
		valid = retry
	case kafka.TxnCompleteCommit, kafka.TxnCompleteAbort:
		valid = valid || retry
	}
	if !valid {
		reply(kafka.PRODUCER_FENCED)
		return
	}
	bumped := func() { tc.b.reply(env, 0, &EndTxnResponse{ProducerID: t.pid, ProducerEpoch: t.epoch}) }
	switch {
	case t.state == kafka.TxnOngoing:
		tc.prepare(t, req.Committed, true)
		bumped()
	case t.state == kafka.TxnCompleteCommit && req.Committed && retry,
		t.state == kafka.TxnCompleteAbort && !req.Committed && retry:
		bumped()
	case !req.Committed && !retry && (t.state == kafka.TxnEmpty || t.state == kafka.TxnCompleteCommit || t.state == kafka.TxnCompleteAbort):
		t.partitions, t.tps = nil, nil
		t.started = tc.b.clock.Now()
		tc.prepare(t, false, true)
		bumped()
	case (t.state == kafka.TxnPrepareCommit && req.Committed) || (t.state == kafka.TxnPrepareAbort && !req.Committed):
		reply(kafka.CONCURRENT_TRANSACTIONS)
	default:
		reply(kafka.INVALID_TXN_STATE)
	}
}

// endTxnV1 is EndTxn under transaction version 1 (no epoch bump at the
// end of a transaction): the producer's epoch must be the current one.
func (tc *TxnCoordinator) endTxnV1(t *txnMeta, req *EndTxnRequest, reply func(kafka.ErrorCode)) {
	if req.ProducerEpoch != t.epoch {
		reply(kafka.PRODUCER_FENCED)
		return
	}
	switch t.state {
	case kafka.TxnOngoing:
		tc.prepare(t, req.Committed, false)
		reply(kafka.NONE)
	case kafka.TxnCompleteCommit:
		if req.Committed {
			reply(kafka.NONE)
		} else {
			reply(kafka.INVALID_TXN_STATE)
		}
	case kafka.TxnCompleteAbort:
		if req.Committed {
			reply(kafka.INVALID_TXN_STATE)
		} else {
			reply(kafka.NONE)
		}
	case kafka.TxnPrepareCommit, kafka.TxnPrepareAbort:
		reply(kafka.CONCURRENT_TRANSACTIONS)
	default:
		reply(kafka.INVALID_TXN_STATE)
	}
}

func (r *EndTxnRequest) Encode(e *event.Encoder) {
	e.String(r.TransactionalID)
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
	e.Bool(r.Committed)
}

func (r *EndTxnResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
}

func init() {
	event.RegisterDecoder(kafka.EndTxn, false, func(d *event.Decoder) kafka.Message {
		return &EndTxnRequest{TransactionalID: d.String(), ProducerID: d.Int64(), ProducerEpoch: d.Int(), Committed: d.Bool()}
	})
	event.RegisterDecoder(kafka.EndTxn, true, func(d *event.Decoder) kafka.Message {
		return &EndTxnResponse{ErrorCode: kafka.ErrorCode(d.Int()), ProducerID: d.Int64(), ProducerEpoch: d.Int()}
	})
}
