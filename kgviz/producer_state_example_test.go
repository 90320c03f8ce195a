package kgviz_test

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz"
)

// What a partition leader answers to an idempotent producer's batches: a
// retry it already wrote, a gap, a zombie's old epoch.
func ExamplePartitionLog() {
	l := kgviz.NewPartitionLog("invoices", 0)
	for _, b := range []kgviz.RecordBatch{
		{ProducerID: 1000, ProducerEpoch: 0, BaseSequence: 0, Record: "inv(p2.3)"},
		{ProducerID: 1000, ProducerEpoch: 0, BaseSequence: 0, Record: "inv(p2.3)"}, // the answer was lost: a retry
		{ProducerID: 1000, ProducerEpoch: 0, BaseSequence: 2, Record: "inv(p2.5)"}, // sequence 1 never arrived
		{ProducerID: 1000, ProducerEpoch: 1, BaseSequence: 0, Record: "inv(p2.4)"}, // a new epoch
		{ProducerID: 1000, ProducerEpoch: 0, BaseSequence: 1, Record: "inv(p2.4)"}, // the old epoch: a zombie
	} {
		code, off := l.Produce(b)
		fmt.Println(b.Record, "epoch", b.ProducerEpoch, "seq", b.BaseSequence, "→", code, off)
	}
	fmt.Printf("%+v\n", l.ProducerState(1000))
	// Output:
	// inv(p2.3) epoch 0 seq 0 → NONE 0
	// inv(p2.3) epoch 0 seq 0 → NONE 0
	// inv(p2.5) epoch 0 seq 2 → OUT_OF_ORDER_SEQUENCE_NUMBER -1
	// inv(p2.4) epoch 1 seq 0 → NONE 1
	// inv(p2.4) epoch 0 seq 1 → INVALID_PRODUCER_EPOCH -1
	// {ProducerID:1000 ProducerEpoch:1 Batches:[{Sequence:0 Offset:1}]}
}
