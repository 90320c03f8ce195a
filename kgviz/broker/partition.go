package broker

import "github.com/kgviz/kgviz/kgviz/kafka"

// RecordState is the state of one offset of a log as a reader would classify it.
type RecordState string

// The states of a log record.
const (
	StateCommitted RecordState = "committed" // visible to read_committed
	StateOpen      RecordState = "open"      // in a transaction that has no marker yet
	StateAborted   RecordState = "aborted"   // in an aborted transaction: read_committed skips it
	StateMarker    RecordState = "marker"    // a COMMIT or ABORT control record
)

// Record is one offset of a partition's log.
type Record struct {
	Offset        int
	Record        string // "inv(o2.3)", "o2.3", "billing/orders-2=6", or "COMMIT"/"ABORT" for markers
	State         RecordState
	PID           int64 // producer id; 0 for records written without one
	Epoch         int
	Sequence      int // the batch's sequence number (meaningful with a PID)
	Transactional bool
	Tick          int // when it was appended
}

// batchMeta remembers one batch for sequence-number deduplication.
type batchMeta struct {
	epoch, seq, offset int
}

// NumBatchesToRetain is how many batches a partition leader remembers per
// producer id (ProducerStateEntry.NUM_BATCHES_TO_RETAIN): the reason the
// idempotent producer allows at most 5 requests in flight per connection.
const NumBatchesToRetain = 5

// NoProducerEpoch is the epoch of a producer the leader has no state for
// (RecordBatch.NO_PRODUCER_EPOCH).
const NoProducerEpoch = -1

// BatchMetadata is what a partition leader remembers of one batch a producer
// wrote (Kafka's BatchMetadata; a batch holds one record here): its sequence
// number and the offset it was written at.
type BatchMetadata struct {
	Sequence int
	Offset   int
}

// ProducerStateEntry is what a partition leader keeps per producer id
// (Kafka's ProducerStateEntry): the producer's epoch (NoProducerEpoch if it
// knows none) and the last batches written at that epoch, oldest first, at
// most NumBatchesToRetain.
type ProducerStateEntry struct {
	ProducerID    int64
	ProducerEpoch int
	Batches       []BatchMetadata
}

// ProducerState returns the leader's entry for producer id pid (epoch
// NoProducerEpoch and no batches if it has none).
func (l *Log) ProducerState(pid int64) ProducerStateEntry {
	out := ProducerStateEntry{ProducerID: pid, ProducerEpoch: NoProducerEpoch, Batches: []BatchMetadata{}}
	if e := l.producers[pid]; e != nil {
		out.ProducerEpoch = e.epoch
		for _, m := range e.batches {
			out.Batches = append(out.Batches, BatchMetadata{Sequence: m.seq, Offset: m.offset})
		}
	}
	return out
}

// updateEpoch is ProducerStateEntry.maybeUpdateProducerEpoch: a new epoch
// forgets the batches of the old one.
func (e *producerEntry) updateEpoch(epoch int) {
	if e.epoch != epoch {
		e.epoch, e.batches = epoch, nil
	}
}

// producerEntry is a partition leader's state for one producer id (Kafka's
// ProducerStateEntry): epoch, last batches, open transaction.
type producerEntry struct {
	epoch     int
	batches   []batchMeta // the last 5 (ProducerStateEntry.NUM_BATCHES_TO_RETAIN)
	txnFirst  int         // first offset of the open transaction, -1 if none
	txnOffset []int       // offsets of the open transaction's records
}

// Log is one partition of one topic on the broker.
type Log struct {
	tp        kafka.TopicPartition
	name      string
	records   []Record
	producers map[int64]*producerEntry
	pids      []int64 // producers in first-seen order, for a deterministic LSO scan
}

func newLog(tp kafka.TopicPartition) *Log {
	return &Log{tp: tp, name: tp.String(), producers: map[int64]*producerEntry{}}
}

// NewLog returns an empty log of partition tp with no broker around it, to
// step produce batches through AppendAsLeader.
func NewLog(tp kafka.TopicPartition) *Log { return newLog(tp) }

// Name returns Kafka's name of the partition, "invoices-0".
func (l *Log) Name() string { return l.name }

// TopicPartition returns the partition.
func (l *Log) TopicPartition() kafka.TopicPartition { return l.tp }

// HighWatermark is the high watermark (replication factor 1: the log end offset).
func (l *Log) HighWatermark() int { return len(l.records) }

// LastStableOffset is the first offset of the oldest open transaction, or the
// high watermark (ProducerStateManager.firstUnstableOffset).
func (l *Log) LastStableOffset() int {
	lso := l.HighWatermark()
	for _, pid := range l.pids {
		if e := l.producers[pid]; e.txnFirst >= 0 && e.txnFirst < lso {
			lso = e.txnFirst
		}
	}
	return lso
}

// Records returns a copy of the log's records.
func (l *Log) Records() []Record { return append([]Record(nil), l.records...) }

// At returns the record at offset off.
func (l *Log) At(off int) Record { return l.records[off] }

func (l *Log) entryOrNew(pid int64) *producerEntry {
	e := l.producers[pid]
	if e == nil {
		e = &producerEntry{epoch: NoProducerEpoch, txnFirst: -1}
		l.producers[pid] = e
		l.pids = append(l.pids, pid)
	}
	return e
}

func (l *Log) append(r Record) int {
	r.Offset = len(l.records)
	l.records = append(l.records, r)
	return r.Offset
}
