package broker

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Produce (API key 0). The simulation sends one batch of one record per
// request, to one partition.

// RecordBatch is a produce batch (one record here) with the producer's
// identity for idempotence and transactions (KIP-98).
type RecordBatch struct {
	ProducerID    int64 // 0: a producer without idempotence
	ProducerEpoch int
	BaseSequence  int
	Transactional bool
	Record        string
}

// ProduceRequest writes a batch to a partition.
type ProduceRequest struct {
	TransactionalID string
	Partition       kafka.TopicPartition
	Batch           RecordBatch
}

// ProduceResponse is the partition leader's answer.
type ProduceResponse struct {
	Partition  kafka.TopicPartition
	ErrorCode  kafka.ErrorCode
	BaseOffset int // the batch's offset (the original one for a duplicate)
}

func (*ProduceRequest) Key() kafka.APIKey  { return kafka.Produce }
func (*ProduceResponse) Key() kafka.APIKey { return kafka.Produce }
func (*ProduceRequest) IsResponse() bool   { return false }
func (*ProduceResponse) IsResponse() bool  { return true }

func (r *ProduceRequest) String() string {
	s := r.Batch.Record
	if r.Batch.ProducerID != 0 {
		s += fmt.Sprintf(" pid=%d epoch=%d seq=%d", r.Batch.ProducerID, r.Batch.ProducerEpoch, r.Batch.BaseSequence)
	}
	if r.Batch.Transactional {
		s += " transactional"
	}
	return s
}

func (r *ProduceResponse) String() string {
	if r.ErrorCode != kafka.NONE {
		return ""
	}
	return fmt.Sprintf("offset=%d", r.BaseOffset)
}

// handleProduce is the partition leader: the transaction verification of
// the first transactional record of a producer epoch (ReplicaManager), then
// UnifiedLog with its ProducerStateManager (epoch fencing, sequence checks,
// the last 5 batches).
func (b *Broker) handleProduce(env *Envelope, req *ProduceRequest) {
	resp := &ProduceResponse{Partition: req.Partition}
	l := b.logs[req.Partition]
	bt := req.Batch
	if bt.ProducerID == 0 {
		resp.BaseOffset = b.appendRecord(env.From, l, Record{Record: bt.Record, State: StateCommitted})
		b.reply(env, 0, resp)
		return
	}
	e := l.entryOrNew(bt.ProducerID)
	if bt.Transactional && (e.txnFirst < 0 || e.epoch != bt.ProducerEpoch) {
		// The first record of this producer epoch's transaction here: the
		// leader asks the transaction coordinator first (KIP-890). Its
		// PRODUCER_FENCED reaches the producer as INVALID_PRODUCER_EPOCH
		// (AddPartitionsToTxnManager).
		if code := b.txns.verifyPartition(req.TransactionalID, bt.ProducerID, bt.ProducerEpoch, req.Partition); code != kafka.NONE {
			if code == kafka.PRODUCER_FENCED {
				code = kafka.INVALID_PRODUCER_EPOCH
			}
			resp.ErrorCode = code
			b.reply(env, 0, resp)
			return
		}
	}
	dup, code := e.checkProduce(bt)
	switch {
	case dup >= 0:
		b.record(event.Event{Type: event.EvDuplicate, Member: b.name, Partition: l.Name(), Offset: dup,
			Record: bt.Record, PID: bt.ProducerID, Epoch: bt.ProducerEpoch, Sequence: bt.BaseSequence})
		resp.BaseOffset = dup
	case code != kafka.NONE:
		resp.ErrorCode, resp.BaseOffset = code, -1
	default:
		resp.BaseOffset = b.appendRecord(env.From, l, l.batchRecord(bt))
		l.appended(bt, resp.BaseOffset)
	}
	b.reply(env, 0, resp)
}

// checkProduce is the leader's decision on a batch of a producer with an id
// (UnifiedLog.analyzeAndValidateProducerState, then ProducerAppendInfo's
// checkProducerEpoch and checkSequence, Kafka 4.1): an exact repeat of one of
// the batches the entry retains, at the producer's current epoch, is a
// duplicate, acknowledged with the original offset (dup >= 0) and not
// written; an older epoch is INVALID_PRODUCER_EPOCH (KIP-588); a newer epoch
// must start at sequence 0 unless the leader knows no epoch of the producer
// yet; the current epoch must continue at the last retained sequence + 1.
// Anything else is OUT_OF_ORDER_SEQUENCE_NUMBER. dup < 0 and NONE: append.
func (e *producerEntry) checkProduce(bt RecordBatch) (dup int, code kafka.ErrorCode) {
	if bt.ProducerEpoch == e.epoch {
		for _, m := range e.batches {
			if m.seq == bt.BaseSequence {
				return m.offset, kafka.NONE
			}
		}
	}
	if bt.ProducerEpoch < e.epoch {
		return -1, kafka.INVALID_PRODUCER_EPOCH
	}
	if bt.ProducerEpoch != e.epoch {
		if bt.BaseSequence != 0 && e.epoch != NoProducerEpoch {
			return -1, kafka.OUT_OF_ORDER_SEQUENCE_NUMBER // a new epoch starts at 0
		}
		return -1, kafka.NONE
	}
	last := -1 // RecordBatch.NO_SEQUENCE
	if n := len(e.batches); n > 0 {
		last = e.batches[n-1].seq
	}
	if bt.BaseSequence != last+1 {
		return -1, kafka.OUT_OF_ORDER_SEQUENCE_NUMBER
	}
	return -1, kafka.NONE
}

// batchRecord is the log record a batch that passed checkProduce becomes.
func (l *Log) batchRecord(bt RecordBatch) Record {
	state := StateCommitted
	if bt.Transactional {
		state = StateOpen
	}
	return Record{Record: bt.Record, State: state, PID: bt.ProducerID, Epoch: bt.ProducerEpoch,
		Sequence: bt.BaseSequence, Transactional: bt.Transactional}
}

// appended updates the producer's entry after its batch was written at off:
// the epoch (a new one forgets the old batches), the last 5 batches, and the
// open transaction.
func (l *Log) appended(bt RecordBatch, off int) {
	e := l.entryOrNew(bt.ProducerID)
	e.updateEpoch(bt.ProducerEpoch)
	e.batches = append(e.batches, batchMeta{epoch: bt.ProducerEpoch, seq: bt.BaseSequence, offset: off})
	if len(e.batches) > NumBatchesToRetain {
		e.batches = e.batches[len(e.batches)-NumBatchesToRetain:]
	}
	if bt.Transactional {
		if e.txnFirst < 0 {
			e.txnFirst = off
		}
		e.txnOffset = append(e.txnOffset, off)
	}
}

// AppendAsLeader is what the leader does with a produce batch when no broker
// runs around the log (a log built with NewLog): the same decision and the
// same state as handleProduce, without events. It returns the answer's error
// code and base offset (the original one for a duplicate, -1 for an error).
func (l *Log) AppendAsLeader(bt RecordBatch, tick int) (kafka.ErrorCode, int) {
	if bt.ProducerID == 0 {
		r := l.batchRecord(bt)
		r.Tick = tick
		return kafka.NONE, l.append(r)
	}
	dup, code := l.entryOrNew(bt.ProducerID).checkProduce(bt)
	switch {
	case dup >= 0:
		return kafka.NONE, dup
	case code != kafka.NONE:
		return code, -1
	}
	r := l.batchRecord(bt)
	r.Tick = tick
	off := l.append(r)
	l.appended(bt, off)
	return kafka.NONE, off
}

func (r *ProduceRequest) Encode(e *event.Encoder) {
	e.String(r.TransactionalID)
	e.Partition(r.Partition)
	e.Int64(r.Batch.ProducerID)
	e.Int(r.Batch.ProducerEpoch)
	e.Int(r.Batch.BaseSequence)
	e.Bool(r.Batch.Transactional)
	e.String(r.Batch.Record)
}

func (r *ProduceResponse) Encode(e *event.Encoder) {
	e.Partition(r.Partition)
	e.Int(int(r.ErrorCode))
	e.Int(r.BaseOffset)
}

func init() {
	event.RegisterDecoder(kafka.Produce, false, func(d *event.Decoder) kafka.Message {
		r := &ProduceRequest{TransactionalID: d.String(), Partition: d.Partition()}
		r.Batch = RecordBatch{ProducerID: d.Int64(), ProducerEpoch: d.Int(), BaseSequence: d.Int(), Transactional: d.Bool(), Record: d.String()}
		return r
	})
	event.RegisterDecoder(kafka.Produce, true, func(d *event.Decoder) kafka.Message {
		return &ProduceResponse{Partition: d.Partition(), ErrorCode: kafka.ErrorCode(d.Int()), BaseOffset: d.Int()}
	})
}
