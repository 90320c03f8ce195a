package broker

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// InitProducerId (API key 22): a producer gets its producer id and epoch.
// With a transactional.id it also fences older instances (KIP-98) and tells
// the coordinator its transaction.timeout.ms.

// InitProducerIDRequest asks for a producer id.
type InitProducerIDRequest struct {
	TransactionalID    string // "" for an idempotent producer
	TransactionTimeout int    // transaction.timeout.ms
}

// InitProducerIDResponse carries the producer id and epoch.
type InitProducerIDResponse struct {
	ErrorCode     kafka.ErrorCode
	ProducerID    int64
	ProducerEpoch int
}

func (*InitProducerIDRequest) Key() kafka.APIKey  { return kafka.InitProducerID }
func (*InitProducerIDResponse) Key() kafka.APIKey { return kafka.InitProducerID }
func (*InitProducerIDRequest) IsResponse() bool   { return false }
func (*InitProducerIDResponse) IsResponse() bool  { return true }

func (r *InitProducerIDRequest) String() string {
	if r.TransactionalID == "" {
		return "idempotent"
	}
	return "transactional.id=" + r.TransactionalID
}

func (r *InitProducerIDResponse) String() string {
	if r.ErrorCode != kafka.NONE {
		return ""
	}
	return fmt.Sprintf("pid=%d epoch=%d", r.ProducerID, r.ProducerEpoch)
}

// handleInitProducerID is TransactionCoordinator.handleInitProducerId: a
// fresh id without a transactional.id; otherwise a new id for a new
// transactional.id, the epoch bumped for a known one, and an Ongoing
// transaction fenced and aborted (CONCURRENT_TRANSACTIONS; the client
// retries and gets the epoch bumped again).
func (tc *TxnCoordinator) handleInitProducerID(env *Envelope, req *InitProducerIDRequest) {
	if req.TransactionalID == "" {
		tc.b.reply(env, 0, &InitProducerIDResponse{ProducerID: tc.newPID()})
		return
	}
	t := tc.txns[req.TransactionalID]
	if t == nil {
		t = &txnMeta{id: req.TransactionalID, pid: tc.newPID(), log: tc.stateLog(req.TransactionalID), timeout: req.TransactionTimeout}
		tc.txns[t.id] = t
		tc.order = append(tc.order, t.id)
		tc.transition(t, kafka.TxnEmpty)
		tc.b.reply(env, 0, &InitProducerIDResponse{ProducerID: t.pid, ProducerEpoch: t.epoch})
		return
	}
	switch t.state {
	case kafka.TxnPrepareCommit, kafka.TxnPrepareAbort:
		tc.b.reply(env, 0, &InitProducerIDResponse{ErrorCode: kafka.CONCURRENT_TRANSACTIONS})
	case kafka.TxnOngoing:
		tc.fenceAndAbort(t, event.ReasonNewInstance)
		tc.b.reply(env, 0, &InitProducerIDResponse{ErrorCode: kafka.CONCURRENT_TRANSACTIONS})
	default:
		t.epoch++
		t.timeout = req.TransactionTimeout
		t.partitions, t.tps = nil, nil
		tc.transition(t, kafka.TxnEmpty)
		tc.b.reply(env, 0, &InitProducerIDResponse{ProducerID: t.pid, ProducerEpoch: t.epoch})
	}
}

func (r *InitProducerIDRequest) Encode(e *event.Encoder) {
	e.String(r.TransactionalID)
	e.Int(r.TransactionTimeout)
}

func (r *InitProducerIDResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
}

func init() {
	event.RegisterDecoder(kafka.InitProducerID, false, func(d *event.Decoder) kafka.Message {
		return &InitProducerIDRequest{TransactionalID: d.String(), TransactionTimeout: d.Int()}
	})
	event.RegisterDecoder(kafka.InitProducerID, true, func(d *event.Decoder) kafka.Message {
		return &InitProducerIDResponse{ErrorCode: kafka.ErrorCode(d.Int()), ProducerID: d.Int64(), ProducerEpoch: d.Int()}
	})
}
