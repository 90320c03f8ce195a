package kgviz_test

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The partition leader's decision on each batch, step by step, as Kafka 4.1
// makes it: UnifiedLog.analyzeAndValidateProducerState (an exact repeat of a
// retained batch at the current epoch is acknowledged with its original
// offset), ProducerAppendInfo.checkProducerEpoch (KIP-588: an older epoch is
// INVALID_PRODUCER_EPOCH) and checkSequence (a new epoch starts at 0 unless
// the producer is unknown; the current epoch continues at last + 1).
func TestPartitionLogProduce(t *testing.T) {
	l := kgviz.NewPartitionLog("invoices", 0)
	batch := func(pid int64, epoch, seq int) kgviz.RecordBatch {
		return kgviz.RecordBatch{ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq, Record: "r"}
	}
	for i, step := range []struct {
		what   string
		batch  kgviz.RecordBatch
		code   kgviz.ErrorCode
		offset int
		log    int // the log's length after the step
	}{
		{"a new producer's first batch", batch(1000, 0, 0), kgviz.NONE, 0, 1},
		{"the next sequence", batch(1000, 0, 1), kgviz.NONE, 1, 2},
		{"a retry of the last batch: the original offset, nothing written", batch(1000, 0, 1), kgviz.NONE, 1, 2},
		{"a retry of an earlier retained batch", batch(1000, 0, 0), kgviz.NONE, 0, 2},
		{"a gap: sequence 3 after 1", batch(1000, 0, 3), kgviz.OUT_OF_ORDER_SEQUENCE_NUMBER, -1, 2},
		{"the gap filled", batch(1000, 0, 2), kgviz.NONE, 2, 3},
		{"a plain producer: no identity, always written", batch(0, 0, 0), kgviz.NONE, 3, 4},
		{"a bumped epoch starts at 0", batch(1000, 1, 0), kgviz.NONE, 4, 5},
		{"the old epoch is fenced, even for a batch it wrote", batch(1000, 0, 2), kgviz.INVALID_PRODUCER_EPOCH, -1, 5},
		{"a new epoch that does not start at 0", batch(1000, 2, 5), kgviz.OUT_OF_ORDER_SEQUENCE_NUMBER, -1, 5},
		{"epoch 1 goes on", batch(1000, 1, 1), kgviz.NONE, 5, 6},
		{"epoch 1, sequence 2", batch(1000, 1, 2), kgviz.NONE, 6, 7},
		{"epoch 1, sequence 3", batch(1000, 1, 3), kgviz.NONE, 7, 8},
		{"epoch 1, sequence 4", batch(1000, 1, 4), kgviz.NONE, 8, 9},
		{"epoch 1, sequence 5: sequence 0 is no longer retained", batch(1000, 1, 5), kgviz.NONE, 9, 10},
		{"a retry of a batch 6 back: out of order", batch(1000, 1, 0), kgviz.OUT_OF_ORDER_SEQUENCE_NUMBER, -1, 10},
		{"a retry 5 back is still known", batch(1000, 1, 1), kgviz.NONE, 5, 10},
		{"an unknown producer may start anywhere", batch(2000, 3, 7), kgviz.NONE, 10, 11},
	} {
		code, off := l.Produce(step.batch)
		assert.Equal(t, step.code, code, "step %d: %s", i+1, step.what)
		assert.Equal(t, step.offset, off, "step %d: %s", i+1, step.what)
		assert.Equal(t, step.log, l.HighWatermark(), "step %d: %s", i+1, step.what)
	}
	st := l.ProducerState(1000)
	assert.Equal(t, 1, st.ProducerEpoch)
	assert.Equal(t, []kgviz.BatchMetadata{{Sequence: 1, Offset: 5}, {Sequence: 2, Offset: 6}, {Sequence: 3, Offset: 7}, {Sequence: 4, Offset: 8}, {Sequence: 5, Offset: 9}}, st.Batches)
	assert.Equal(t, kgviz.ProducerStateEntry{ProducerID: 7, ProducerEpoch: kgviz.NoProducerEpoch, Batches: []kgviz.BatchMetadata{}}, l.ProducerState(7))
}

// The world's partition leader keeps the same state: after Demo 8's lost
// answer, C2's entry holds the batch the retry repeated, and the retry was
// acknowledged with its offset.
func TestWorldProducerState(t *testing.T) {
	w := kgviz.NewWorld().Join("C1", "C2")
	w.RunUntil(kgviz.Polled("C2", "p2.3")).LoseNextProduceResponse("C2").RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	log, err := w.Log("invoices", 0)
	require.NoError(t, err)
	var first kgviz.LogRecord
	for _, r := range log {
		if r.Record == "inv(p2.3)" {
			first = r
			break
		}
	}
	require.NotZero(t, first.PID)
	st, err := w.ProducerState("invoices", 0, first.PID)
	require.NoError(t, err)
	assert.Equal(t, first.Epoch, st.ProducerEpoch)
	assert.LessOrEqual(t, len(st.Batches), kgviz.NumBatchesToRetain)
	var acks []int
	for _, x := range w.Requests("C2", kgviz.Produce) {
		if x.Request.(*kgviz.ProduceRequest).Batch.Record == "inv(p2.3)" && x.Answered {
			acks = append(acks, x.Response.(*kgviz.ProduceResponse).BaseOffset)
		}
	}
	assert.Equal(t, []int{first.Offset}, acks, "the retry's answer carries the first copy's offset")
	_, err = w.ProducerState("invoices", 3, first.PID)
	assert.EqualError(t, err, `ProducerState("invoices", 3): no such partition`)
}
