package kgviz

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// What a partition leader remembers of the producers that write to it, and
// its decision on every batch of an idempotent or transactional producer
// (Kafka's ProducerStateManager, ProducerStateEntry, ProducerAppendInfo).

type (
	// ProducerStateEntry is what a partition leader keeps per producer id:
	// its epoch and its last batches (at most NumBatchesToRetain).
	ProducerStateEntry = broker.ProducerStateEntry
	// BatchMetadata is one batch a ProducerStateEntry remembers.
	BatchMetadata = broker.BatchMetadata
)

// NumBatchesToRetain is how many batches a partition leader remembers per
// producer id (Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN = 5), which
// is why an idempotent producer allows at most 5 requests in flight per
// connection (max.in.flight.requests.per.connection).
const NumBatchesToRetain = broker.NumBatchesToRetain

// NoProducerEpoch is the ProducerEpoch of an entry for a producer the
// leader has seen nothing of (RecordBatch.NO_PRODUCER_EPOCH = -1).
const NoProducerEpoch = broker.NoProducerEpoch

// ProducerState returns what the leader of a partition (topic "invoices",
// or an input topic) keeps for producer id pid, rebuilt from the recorded
// appends and markers (fold.Fold.ProducerState). An unknown partition is an
// error that names it.
func (w *World) ProducerState(topic string, partition int, pid int64) (ProducerStateEntry, error) {
	tp := kafka.TopicPartition{Topic: topic, Partition: partition}
	if !w.producedTo(tp) {
		return ProducerStateEntry{}, fmt.Errorf("ProducerState(%q, %d): no such partition", topic, partition)
	}
	return w.Fold().ProducerState(tp.String(), pid), nil
}

// producedTo says whether tp is a partition members produce to or read
// from: an input partition, invoices-0, the dead-letter partition.
func (w *World) producedTo(tp TopicPartition) bool {
	return w.topology.index(tp) >= 0 || tp == w.invoices || w.deadLetter.Topic != "" && tp == w.deadLetter
}

// PartitionLog is one partition led by the simulated broker, on its own: a
// log and the producer state of every producer id, to which produce batches
// are appended one at a time, exactly as the world's broker appends them
// (the same code decides), without a world around it.
type PartitionLog struct {
	l    *broker.Log
	tick int
}

// NewPartitionLog returns an empty partition log.
func NewPartitionLog(topic string, partition int) *PartitionLog {
	return &PartitionLog{l: broker.NewLog(kafka.TopicPartition{Topic: topic, Partition: partition})}
}

// Produce is the leader's handling of one Produce request carrying b: it
// returns the answer's error code and base offset: where b was written, the
// offset of the first copy for a duplicate (NONE: the producer cannot tell),
// or -1 with OUT_OF_ORDER_SEQUENCE_NUMBER or INVALID_PRODUCER_EPOCH.
func (pl *PartitionLog) Produce(b RecordBatch) (ErrorCode, int) {
	pl.tick++
	return pl.l.AppendAsLeader(b, pl.tick)
}

// ProducerState returns what the leader keeps for producer id pid.
func (pl *PartitionLog) ProducerState(pid int64) ProducerStateEntry { return pl.l.ProducerState(pid) }

// Records returns the log.
func (pl *PartitionLog) Records() []LogRecord { return pl.l.Records() }

// HighWatermark is the log end offset (replication factor 1).
func (pl *PartitionLog) HighWatermark() int { return pl.l.HighWatermark() }
