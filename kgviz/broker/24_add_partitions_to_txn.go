package broker

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// AddPartitionsToTxn (API key 24): a transactional producer adds a partition
// to its transaction before its first send there.

// AddPartitionsToTxnRequest adds partitions to a transaction.
type AddPartitionsToTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int
	Partitions      []kafka.TopicPartition
}

// AddPartitionsToTxnResponse answers it.
type AddPartitionsToTxnResponse struct {
	ErrorCode kafka.ErrorCode
}

func (*AddPartitionsToTxnRequest) Key() kafka.APIKey             { return kafka.AddPartitionsToTxn }
func (*AddPartitionsToTxnResponse) Key() kafka.APIKey            { return kafka.AddPartitionsToTxn }
func (*AddPartitionsToTxnRequest) IsResponse() bool              { return false }
func (*AddPartitionsToTxnResponse) IsResponse() bool             { return true }
func (*AddPartitionsToTxnResponse) String() string               { return "" }
func (r *AddPartitionsToTxnResponse) setError(c kafka.ErrorCode) { r.ErrorCode = c }

func (r *AddPartitionsToTxnRequest) String() string {
	return fmt.Sprintf("%s pid=%d epoch=%d %s", r.TransactionalID, r.ProducerID, r.ProducerEpoch, tpsString(r.Partitions))
}

func (tc *TxnCoordinator) handleAddPartitionsToTxn(env *Envelope, req *AddPartitionsToTxnRequest) {
	tc.addToTxn(env, req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Partitions, &AddPartitionsToTxnResponse{})
}

func (r *AddPartitionsToTxnRequest) Encode(e *event.Encoder) {
	e.String(r.TransactionalID)
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
	e.Partitions(r.Partitions)
}

func (r *AddPartitionsToTxnResponse) Encode(e *event.Encoder) { e.Int(int(r.ErrorCode)) }

func init() {
	event.RegisterDecoder(kafka.AddPartitionsToTxn, false, func(d *event.Decoder) kafka.Message {
		return &AddPartitionsToTxnRequest{TransactionalID: d.String(), ProducerID: d.Int64(), ProducerEpoch: d.Int(), Partitions: d.Partitions()}
	})
	event.RegisterDecoder(kafka.AddPartitionsToTxn, true, func(d *event.Decoder) kafka.Message {
		return &AddPartitionsToTxnResponse{ErrorCode: kafka.ErrorCode(d.Int())}
	})
}
