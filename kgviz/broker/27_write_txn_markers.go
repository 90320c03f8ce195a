package broker

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// WriteTxnMarkers (API key 27): the transaction coordinator asks the leader
// of each partition of a transaction to write its COMMIT or ABORT marker.
// One partition per request here; the request also names the
// transactional.id (Kafka's does not) so that the marker can be told apart
// in the charts.

// WriteTxnMarkersRequest asks a partition leader to write a marker.
type WriteTxnMarkersRequest struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int
	Result          kafka.ControlType
	Partition       kafka.TopicPartition
}

// WriteTxnMarkersResponse answers it (it echoes the marker).
type WriteTxnMarkersResponse struct {
	ErrorCode       kafka.ErrorCode
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int
	Result          kafka.ControlType
	Partition       kafka.TopicPartition
}

func (*WriteTxnMarkersRequest) Key() kafka.APIKey  { return kafka.WriteTxnMarkers }
func (*WriteTxnMarkersResponse) Key() kafka.APIKey { return kafka.WriteTxnMarkers }
func (*WriteTxnMarkersRequest) IsResponse() bool   { return false }
func (*WriteTxnMarkersResponse) IsResponse() bool  { return true }

func (r *WriteTxnMarkersRequest) String() string {
	return fmt.Sprintf("%s %s pid=%d epoch=%d", r.Result, r.Partition, r.ProducerID, r.ProducerEpoch)
}

func (r *WriteTxnMarkersResponse) String() string {
	return fmt.Sprintf("%s %s pid=%d epoch=%d", r.Result, r.Partition, r.ProducerID, r.ProducerEpoch)
}

// handleWriteTxnMarkers is the partition leader writing a control record:
// the producer's open records become committed or aborted, and a marker
// appended to __consumer_offsets completes the transactional offsets.
func (b *Broker) handleWriteTxnMarkers(env *Envelope, req *WriteTxnMarkersRequest) {
	l := b.logs[req.Partition]
	if l == nil && req.Partition.Topic == kafka.ConsumerOffsetsTopic {
		l = b.groups.logs[req.Partition.Partition]
	}
	state := StateAborted
	if req.Result == kafka.ControlCommit {
		state = StateCommitted
	}
	e := l.entryOrNew(req.ProducerID)
	for _, off := range e.txnOffset {
		l.records[off].State = state
	}
	e.txnOffset, e.txnFirst = nil, -1
	if req.ProducerEpoch > e.epoch {
		e.updateEpoch(req.ProducerEpoch)
	}
	off := l.append(Record{Record: string(req.Result), State: StateMarker, PID: req.ProducerID, Epoch: req.ProducerEpoch,
		Transactional: true, Tick: b.clock.Now()})
	b.record(event.Event{Type: event.EvMarker, Member: b.name, Partition: l.Name(), Offset: off, Control: req.Result,
		PID: req.ProducerID, Epoch: req.ProducerEpoch, TransactionalID: req.TransactionalID})
	if req.Partition.Topic == kafka.ConsumerOffsetsTopic {
		b.groups.completeTxnOffsets(l, req.ProducerID, req.Result == kafka.ControlCommit)
	}
	b.reply(env, 0, &WriteTxnMarkersResponse{TransactionalID: req.TransactionalID, ProducerID: req.ProducerID,
		ProducerEpoch: req.ProducerEpoch, Result: req.Result, Partition: req.Partition})
}

func (r *WriteTxnMarkersRequest) Encode(e *event.Encoder) {
	e.String(r.TransactionalID)
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
	e.String(string(r.Result))
	e.Partition(r.Partition)
}

func (r *WriteTxnMarkersResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.String(r.TransactionalID)
	e.Int64(r.ProducerID)
	e.Int(r.ProducerEpoch)
	e.String(string(r.Result))
	e.Partition(r.Partition)
}

func init() {
	event.RegisterDecoder(kafka.WriteTxnMarkers, false, func(d *event.Decoder) kafka.Message {
		return &WriteTxnMarkersRequest{TransactionalID: d.String(), ProducerID: d.Int64(), ProducerEpoch: d.Int(),
			Result: kafka.ControlType(d.String()), Partition: d.Partition()}
	})
	event.RegisterDecoder(kafka.WriteTxnMarkers, true, func(d *event.Decoder) kafka.Message {
		return &WriteTxnMarkersResponse{ErrorCode: kafka.ErrorCode(d.Int()), TransactionalID: d.String(), ProducerID: d.Int64(),
			ProducerEpoch: d.Int(), Result: kafka.ControlType(d.String()), Partition: d.Partition()}
	})
}
