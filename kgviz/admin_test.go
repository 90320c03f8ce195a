package kgviz_test

import (
	"fmt"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// DescribeProducers (KIP-664): the producer whose transaction is open holds
// the LSO at its CurrentTransactionStartOffset; once the coordinator aborted
// it (transaction.timeout.ms), no transaction is open.
func TestDescribeProducers(t *testing.T) {
	tests := []struct {
		name     string
		ticks    int // after C2's crash inside its transaction
		wantOpen int // producers with an open transaction
	}{
		{"just after the crash (C1 is inside a transaction too)", 1, 2},
		{"20 ticks later, still before transaction.timeout.ms", 20, 1},
		{"after the timeout's abort", 60, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := scenarios.LSO(tc.ticks)
			require.NoError(t, w.Err())
			ps, err := w.DescribeProducers("invoices", 0)
			require.NoError(t, err)
			require.NotEmpty(t, ps)
			open, lso := 0, w.HighWatermark()
			for _, p := range ps {
				assert.Greater(t, p.ProducerID, int64(0))
				if p.CurrentTransactionStartOffset >= 0 {
					open++
					lso = min(lso, p.CurrentTransactionStartOffset)
				}
			}
			assert.Equal(t, tc.wantOpen, open)
			assert.Equal(t, w.LSO(), lso, "the LSO is the earliest CurrentTransactionStartOffset")
		})
	}
}

func TestDescribeProducersBadInput(t *testing.T) {
	w := kgviz.NewWorld().Join("C1")
	n, now := w.EventCount(), w.Now()
	for _, tc := range []struct {
		topic     string
		partition int
	}{{"invoices", 1}, {"refunds", 0}, {"orders", -1}} {
		_, err := w.DescribeProducers(tc.topic, tc.partition)
		require.Error(t, err)
		assert.Contains(t, err.Error(), fmt.Sprintf("DescribeProducers(%q, %d): no such partition", tc.topic, tc.partition))
	}
	assert.NoError(t, w.Err(), "a query does not stop the world")
	assert.Equal(t, n, w.EventCount())
	assert.Equal(t, now, w.Now())
}

// C2 crashed inside its transaction 20 ticks ago: its producer (1002) is
// the one with an open transaction, and the LSO is stuck where it starts.
func ExampleWorld_DescribeProducers() {
	w := scenarios.LSO(20)
	ps, _ := w.DescribeProducers("invoices", 0)
	for _, p := range ps {
		fmt.Printf("pid=%d epoch=%d currentTransactionStartOffset=%d\n", p.ProducerID, p.ProducerEpoch, p.CurrentTransactionStartOffset)
	}
	fmt.Println("LSO", w.LSO(), "HW", w.HighWatermark())
	// Output:
	// pid=1001 epoch=0 currentTransactionStartOffset=-1
	// pid=1002 epoch=0 currentTransactionStartOffset=22
	// LSO 22 HW 31
}
