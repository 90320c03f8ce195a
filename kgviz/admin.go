package kgviz

import (
	"fmt"
	"sort"
)

// ActiveProducer is one producer a partition leader knows, as Kafka's
// Admin.describeProducers returns it (KIP-664, DescribeProducers API;
// `kafka-transactions.sh describe-producers --topic T --partition P`
// prints these columns).
type ActiveProducer struct {
	ProducerID    int64
	ProducerEpoch int
	LastSequence  int // the sequence number of its last batch
	LastTick      int // when its last batch was appended (Kafka: LastTimestamp)
	// CurrentTransactionStartOffset is the offset of the first record of
	// its open transaction on this partition, -1 if none: a read_committed
	// reader's LSO is the smallest of these.
	CurrentTransactionStartOffset int
}

// DescribeProducers lists the producers that wrote to a partition
// ("invoices" 0, or an input topic's), by producer id: what an operator
// looks at first when read_committed readers are stuck, to see which
// producer's open transaction holds the LSO back and since when. An unknown
// partition is an error that names it (the world is unchanged).
func (w *World) DescribeProducers(topic string, partition int) ([]ActiveProducer, error) {
	tp := TopicPartition{Topic: topic, Partition: partition}
	if !w.producedTo(tp) {
		return nil, fmt.Errorf("DescribeProducers(%q, %d): no such partition (partitions: invoices 0, %s)", topic, partition, w.inputList())
	}
	records, _ := w.Log(topic, partition) // folded from the events (World.Log)
	byPID := map[int64]*ActiveProducer{}
	for _, r := range records {
		if r.PID <= 0 {
			continue
		}
		p := byPID[r.PID]
		if p == nil {
			p = &ActiveProducer{ProducerID: r.PID, CurrentTransactionStartOffset: -1}
			byPID[r.PID] = p
		}
		p.ProducerEpoch, p.LastTick = r.Epoch, r.Tick
		if r.State == StateMarker {
			continue // a marker ends the transaction; it carries no sequence
		}
		p.LastSequence = r.Sequence
		if r.State == StateOpen && p.CurrentTransactionStartOffset < 0 {
			p.CurrentTransactionStartOffset = r.Offset
		}
	}
	out := make([]ActiveProducer, 0, len(byPID))
	for _, p := range byPID {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ProducerID < out[j].ProducerID })
	return out, nil
}

// inputList names the input partitions, for error messages.
func (w *World) inputList() string {
	var s string
	for i, n := range w.Partitions() {
		if i > 0 {
			s += " "
		}
		s += n
	}
	return s
}
