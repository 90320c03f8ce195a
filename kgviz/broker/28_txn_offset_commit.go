package broker

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// TxnOffsetCommit (API key 28): the transactional producer commits the
// consumer's offsets inside its transaction (sendOffsetsToTransaction). The
// offsets stay pending until the transaction's marker reaches
// __consumer_offsets; the group fences them by member and generation (KIP-447).

// TxnOffsetCommitRequest commits offsets in a transaction.
type TxnOffsetCommitRequest struct {
	TransactionalID string
	GroupID         string
	ProducerID      int64
	ProducerEpoch   int
	GenerationID    int
	MemberID        string
	GroupInstanceID string
	Offsets         []PartitionOffset
}

// TxnOffsetCommitResponse answers a TxnOffsetCommit.
type TxnOffsetCommitResponse struct {
	ErrorCode kafka.ErrorCode
}

func (*TxnOffsetCommitRequest) Key() kafka.APIKey  { return kafka.TxnOffsetCommit }
func (*TxnOffsetCommitResponse) Key() kafka.APIKey { return kafka.TxnOffsetCommit }
func (*TxnOffsetCommitRequest) IsResponse() bool   { return false }
func (*TxnOffsetCommitResponse) IsResponse() bool  { return true }
func (*TxnOffsetCommitResponse) String() string    { return "" }

func (r *TxnOffsetCommitRequest) String() string {
	return "member=" + orNone(r.MemberID) + " " + offsetsString(r.Offsets) +
		fmt.Sprintf(" %s pid=%d epoch=%d", r.TransactionalID, r.ProducerID, r.ProducerEpoch)
}

// handleTxnOffsetCommit verifies the transaction (see verifyPartition), then
// fences by member and generation (KIP-447, OffsetMetadataManager), then
// stores the offsets as pending, one open transactional record per partition
// in __consumer_offsets.
func (gc *GroupCoordinator) handleTxnOffsetCommit(env *Envelope, req *TxnOffsetCommitRequest) {
	gen := gc.generationOf(req.GroupID, req.MemberID)
	l := gc.OffsetsLog(req.GroupID)
	e := l.entryOrNew(req.ProducerID)
	code := kafka.NONE
	if e.txnFirst < 0 || e.epoch != req.ProducerEpoch {
		// The transaction verification of the group's __consumer_offsets
		// partition comes first (CoordinatorRuntime.scheduleTransactionalWriteOperation):
		// with transaction.version 2 it adds the partition to the transaction.
		// Its PRODUCER_FENCED reaches the producer as INVALID_PRODUCER_EPOCH
		// (AddPartitionsToTxnManager), which TxnOffsetCommit's handler
		// treats as fencing.
		code = gc.b.txns.verifyPartition(req.TransactionalID, req.ProducerID, req.ProducerEpoch, l.TopicPartition())
		if code == kafka.PRODUCER_FENCED {
			code = kafka.INVALID_PRODUCER_EPOCH
		}
	} else if req.ProducerEpoch < e.epoch {
		code = kafka.INVALID_PRODUCER_EPOCH // the log's producer state (ProducerAppendInfo.checkProducerEpoch)
	}
	if code == kafka.NONE {
		code = gc.validateOffsetCommit(req.GroupID, req.MemberID, req.GroupInstanceID, req.GenerationID, true)
	}
	if code == kafka.NONE {
		o := gc.groupOffsets(req.GroupID)
		for _, po := range req.Offsets {
			off := gc.b.appendRecord(env.From, l, Record{Record: offsetRecordName(req.GroupID, po.Partition, po.Offset), State: StateOpen,
				PID: req.ProducerID, Epoch: req.ProducerEpoch, Transactional: true})
			if e.txnFirst < 0 {
				e.txnFirst = off
			}
			e.txnOffset = append(e.txnOffset, off)
			e.updateEpoch(req.ProducerEpoch)
			o.pending[po.Partition] = pendingOffset{offset: po.Offset, pid: req.ProducerID}
		}
	}
	gc.b.reply(env, gen, &TxnOffsetCommitResponse{ErrorCode: code})
}

func (r *TxnOffsetCommitRequest) Encode(e *event.Encoder) {
	e.String(r.TransactionalID)
	e.String(r.GroupID)
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
	e.Int(r.GenerationID)
	e.String(r.MemberID)
	e.String(r.GroupInstanceID)
	encodeOffsets(e, r.Offsets)
}

func (r *TxnOffsetCommitResponse) Encode(e *event.Encoder) { e.Int(int(r.ErrorCode)) }

func init() {
	event.RegisterDecoder(kafka.TxnOffsetCommit, false, func(d *event.Decoder) kafka.Message {
		return &TxnOffsetCommitRequest{TransactionalID: d.String(), GroupID: d.String(), ProducerID: d.Int64(), ProducerEpoch: d.Int(),
			GenerationID: d.Int(), MemberID: d.String(), GroupInstanceID: d.String(), Offsets: decodeOffsets(d)}
	})
	event.RegisterDecoder(kafka.TxnOffsetCommit, true, func(d *event.Decoder) kafka.Message {
		return &TxnOffsetCommitResponse{ErrorCode: kafka.ErrorCode(d.Int())}
	})
}
