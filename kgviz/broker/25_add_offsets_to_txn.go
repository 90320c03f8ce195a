package broker

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// AddOffsetsToTxn (API key 25): a transactional producer adds the group's
// partition of __consumer_offsets to its transaction before TxnOffsetCommit.

// AddOffsetsToTxnRequest adds a group's offsets partition to a transaction.
type AddOffsetsToTxnRequest struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int
	GroupID         string
}

// AddOffsetsToTxnResponse answers it.
type AddOffsetsToTxnResponse struct {
	ErrorCode kafka.ErrorCode
}

func (*AddOffsetsToTxnRequest) Key() kafka.APIKey             { return kafka.AddOffsetsToTxn }
func (*AddOffsetsToTxnResponse) Key() kafka.APIKey            { return kafka.AddOffsetsToTxn }
func (*AddOffsetsToTxnRequest) IsResponse() bool              { return false }
func (*AddOffsetsToTxnResponse) IsResponse() bool             { return true }
func (*AddOffsetsToTxnResponse) String() string               { return "" }
func (r *AddOffsetsToTxnResponse) setError(c kafka.ErrorCode) { r.ErrorCode = c }

func (r *AddOffsetsToTxnRequest) String() string {
	return fmt.Sprintf("%s pid=%d epoch=%d group=%s", r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.GroupID)
}

func (tc *TxnCoordinator) handleAddOffsetsToTxn(env *Envelope, req *AddOffsetsToTxnRequest) {
	tp := tc.b.groups.OffsetsLog(req.GroupID).TopicPartition()
	tc.addToTxn(env, req.TransactionalID, req.ProducerID, req.ProducerEpoch, []kafka.TopicPartition{tp}, &AddOffsetsToTxnResponse{})
}

func (r *AddOffsetsToTxnRequest) Encode(e *event.Encoder) {
	e.String(r.TransactionalID)
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
	e.String(r.GroupID)
}

func (r *AddOffsetsToTxnResponse) Encode(e *event.Encoder) { e.Int(int(r.ErrorCode)) }

func init() {
	event.RegisterDecoder(kafka.AddOffsetsToTxn, false, func(d *event.Decoder) kafka.Message {
		return &AddOffsetsToTxnRequest{TransactionalID: d.String(), ProducerID: d.Int64(), ProducerEpoch: d.Int(), GroupID: d.String()}
	})
	event.RegisterDecoder(kafka.AddOffsetsToTxn, true, func(d *event.Decoder) kafka.Message {
		return &AddOffsetsToTxnResponse{ErrorCode: kafka.ErrorCode(d.Int())}
	})
}
