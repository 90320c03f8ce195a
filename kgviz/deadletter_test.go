package kgviz_test

import (
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeadLetterTopic(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       []kgviz.Option
		isolation  kgviz.IsolationLevel
		wantDLQ    []string // what a reader of invoices-dlq-0 sees
		wantLetter []kgviz.DeadLetter
	}{
		{"at-least-once: o1.2 fails 3 times, goes to the DLQ, o1 moves on",
			[]kgviz.Option{kgviz.WithDeadLetterTopic("invoices-dlq"), kgviz.WithFailingRecords("o1", 2)},
			kgviz.ReadUncommitted, []string{"dlq(o1.2)"},
			[]kgviz.DeadLetter{{Member: "C1", Partition: "o1", Offset: 2, Record: "o1.2", Attempts: kgviz.DeadLetterAttempts}}},
		{"transactional: the dead letter commits with the invoices",
			[]kgviz.Option{kgviz.WithDeadLetterTopic("invoices-dlq"), kgviz.WithFailingRecords("o1", 2, 4),
				kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)},
			kgviz.ReadCommitted, []string{"dlq(o1.2)", "dlq(o1.4)"},
			[]kgviz.DeadLetter{{Member: "C1", Partition: "o1", Offset: 2, Record: "o1.2", Attempts: 3},
				{Member: "C1", Partition: "o1", Offset: 4, Record: "o1.4", Attempts: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := kgviz.NewWorld(tc.opts...).AddMember("C1").RunUntil(kgviz.Quiet())
			require.NoError(t, w.Err())
			got := w.DeadLetters()
			for i := range got {
				got[i].Tick = 0
			}
			assert.Equal(t, tc.wantLetter, got)
			assert.Equal(t, tc.wantDLQ, w.Fold().Log("invoices-dlq-0", tc.isolation).ReaderView())
			assert.NotContains(t, w.Invoices(), "inv(o1.2)", "a dead letter is no invoice")
			committed, err := w.Committed("o1")
			require.NoError(t, err)
			assert.Equal(t, 8, committed, "o1's offsets are committed past the dead letters")
		})
	}
}

// Without a dead-letter topic the poison record blocks its partition: the
// member tries it again and again, and o1's committed offset stays at 2.
func TestFailingRecordWithoutDeadLetterTopicBlocksThePartition(t *testing.T) {
	w := kgviz.NewWorld(kgviz.WithFailingRecords("o1", 2)).AddMember("C1").RunFor(60)
	require.NoError(t, w.Err())
	committed, err := w.Committed("o1")
	require.NoError(t, err)
	assert.LessOrEqual(t, committed, 2)
	assert.Empty(t, w.DeadLetters())
	failed := 0
	for _, e := range w.Events() {
		if e.Type == kgviz.EvProcessFailed && e.Record == "o1.2" {
			failed++
		}
	}
	assert.Greater(t, failed, kgviz.DeadLetterAttempts)
}

func TestDeadLetterBadInput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		world   []kgviz.Option
		member  []kgviz.Option
		wantErr string
	}{
		{"empty name", []kgviz.Option{kgviz.WithDeadLetterTopic("")}, nil, `WithDeadLetterTopic(""): the name must be non-empty`},
		{"spaces", []kgviz.Option{kgviz.WithDeadLetterTopic("my dlq")}, nil, `WithDeadLetterTopic("my dlq")`},
		{"invoices", []kgviz.Option{kgviz.WithDeadLetterTopic("invoices")}, nil, `WithDeadLetterTopic("invoices"): the name is reserved`},
		{"internal", []kgviz.Option{kgviz.WithDeadLetterTopic("__consumer_offsets")}, nil, `WithDeadLetterTopic("__consumer_offsets"): the name is reserved`},
		{"an input topic", []kgviz.Option{kgviz.WithDeadLetterTopic("orders")}, nil, `WithDeadLetterTopic("orders"): the name is an input topic's`},
		{"unknown partition", []kgviz.Option{kgviz.WithFailingRecords("x9", 1)}, nil, `WithFailingRecords("x9"): no such partition (partitions: o0, o1, o2, p0, p1, p2)`},
		{"partition past the topic's", []kgviz.Option{kgviz.WithFailingRecords("o3", 1)}, nil, `WithFailingRecords("o3"): no such partition`},
		{"partition number not canonical", []kgviz.Option{kgviz.WithFailingRecords("o01", 1)}, nil, `WithFailingRecords("o01"): no such partition`},
		{"prefix only", []kgviz.Option{kgviz.WithFailingRecords("o", 1)}, nil, `WithFailingRecords("o"): no such partition`},
		{"negative offset", []kgviz.Option{kgviz.WithFailingRecords("o1", -1)}, nil, `WithFailingRecords("o1", -1): the offset is negative`},
		{"no offset", []kgviz.Option{kgviz.WithFailingRecords("o1")}, nil, `WithFailingRecords("o1"): no offset given`},
		{"member: unknown partition", nil, []kgviz.Option{kgviz.WithFailingRecords("q0", 1)}, `AddMember("C2"): WithFailingRecords("q0"): no such partition`},
		{"member: world option", nil, []kgviz.Option{kgviz.WithDeadLetterTopic("dlq")}, `WithDeadLetterTopic is a world option`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := kgviz.NewWorld(tc.world...)
			if tc.member != nil {
				require.NoError(t, w.Err())
				w.AddMember("C1")
				before := w.EventCount()
				w.AddMember("C2", tc.member...)
				assert.Equal(t, before+1, w.EventCount(), "the world is unchanged but for its stop")
				assert.Equal(t, kgviz.EvWorldStopped, w.Event(before).Type)
				assert.NotContains(t, w.Members(), "C2")
			}
			require.Error(t, w.Err())
			assert.Contains(t, w.Err().Error(), tc.wantErr)
		})
	}
}

// A transactional member that crashes after its dead-letter write, before
// the commit: the transaction aborts, a read_committed reader of the
// dead-letter topic never sees the aborted copy, and the member that takes
// the partition over writes the record there again, committed once.
func TestDeadLetterAbortsWithTheTransaction(t *testing.T) {
	opts := []kgviz.Option{kgviz.WithDeadLetterTopic("invoices-dlq"), kgviz.WithFailingRecords("o1", 2),
		kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted)}
	first := kgviz.NewWorld(opts...).AddMember("C1").RunUntil(kgviz.Quiet())
	require.NoError(t, first.Err())
	letters := first.DeadLetters()
	require.Len(t, letters, 1)

	w := kgviz.NewWorld(opts...).AddMember("C1").RunFor(letters[0].Tick).Crash("C1", kgviz.Immediately()).
		AddMember("C2").RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	raw := w.Fold().Log("invoices-dlq-0", kgviz.ReadUncommitted).ReaderView()
	assert.Equal(t, []string{"dlq(o1.2)", "dlq(o1.2)"}, raw, "the aborted copy stays in the log")
	assert.Equal(t, []string{"dlq(o1.2)"}, w.Fold().Log("invoices-dlq-0", kgviz.ReadCommitted).ReaderView())
	require.Len(t, w.DeadLetters(), 2)
	assert.Equal(t, "C2", w.DeadLetters()[1].Member)
}
