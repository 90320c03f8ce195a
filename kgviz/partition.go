package kgviz

import "strconv"

// RecordState is the state of one offset of a log as a reader would classify it.
type RecordState string

// The states of a log record.
const (
	StateCommitted RecordState = "committed" // visible to read_committed
	StateOpen      RecordState = "open"      // in a transaction that has no marker yet
	StateAborted   RecordState = "aborted"   // in an aborted transaction: read_committed skips it
	StateMarker    RecordState = "marker"    // a COMMIT or ABORT control record
)

// LogRecord is one offset of a partition's log, as returned by World.Log.
type LogRecord struct {
	Offset        int
	Record        string // "inv(o2.3)", "o2.3", "billing/orders-2=6", or "COMMIT"/"ABORT" for markers
	State         RecordState
	PID           int64 // -1 for records without a producer id
	Epoch         int
	Sequence      int
	Transactional bool
	Tick          int // when it was appended
}

// batchMeta remembers one batch for sequence-number deduplication.
type batchMeta struct {
	epoch, seq, offset int
}

// producerEntry is a partition leader's state for one PID
// (Kafka's ProducerStateEntry): epoch, last batches, open transaction.
type producerEntry struct {
	epoch     int
	batches   []batchMeta // the last 5
	txnFirst  int         // first offset of the open transaction, -1 if none
	txnOffset []int       // offsets of the open transaction's records
}

// partitionLog is one partition of one topic on B1.
type partitionLog struct {
	topic     string
	partition int
	name      string // "invoices-0"
	records   []LogRecord
	producers map[int64]*producerEntry
}

func newPartitionLog(topic string, partition int) *partitionLog {
	return &partitionLog{topic: topic, partition: partition, name: topic + "-" + strconv.Itoa(partition), producers: map[int64]*producerEntry{}}
}

// hw is the high watermark (replication factor 1: the log end offset).
func (p *partitionLog) hw() int { return len(p.records) }

// lso is the last stable offset: the first offset of the oldest open transaction, or the HW.
func (p *partitionLog) lso() int {
	lso := p.hw()
	for _, e := range p.producers {
		if e.txnFirst >= 0 && e.txnFirst < lso {
			lso = e.txnFirst
		}
	}
	return lso
}

func (p *partitionLog) entry(pid int64) *producerEntry {
	e := p.producers[pid]
	if e == nil {
		e = &producerEntry{epoch: -1, txnFirst: -1}
		p.producers[pid] = e
	}
	return e
}

func (p *partitionLog) appendRecord(r LogRecord) int {
	r.Offset = len(p.records)
	p.records = append(p.records, r)
	return r.Offset
}

// javaStringHash is java.lang.String.hashCode, used to place a group or a
// transactional.id on a partition of its internal topic, as Kafka does.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		h = 31*h + int32(r)
	}
	return h
}

// internalPartition is Utils.abs(id.hashCode) % 50 (offsets.topic.num.partitions
// and transaction.state.log.num.partitions default to 50).
func internalPartition(id string) int {
	h := javaStringHash(id)
	if h == -2147483648 {
		return 0
	}
	if h < 0 {
		h = -h
	}
	return int(h % 50)
}
