package kgviz_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// shareBroker is a broker with topic t of 1 partition holding 3 records,
// stepped by messages.
func shareBroker() (*broker.Broker, *outbox, func(ticks int)) {
	b, clk, out := freshBroker()
	b.CreateTopic("t", 1)
	b.Preload(kafka.TopicPartition{Topic: "t", Partition: 0}, "t0.0", "t0.1", "t0.2")
	advance := func(ticks int) {
		for range ticks {
			clk.Advance()
			clk.FireDue()
		}
	}
	return b, out, advance
}

var t0 = kafka.TopicPartition{Topic: "t", Partition: 0}

func shareFetch(t *testing.T, b *broker.Broker, out *outbox, member string, max int, acks ...broker.AcknowledgementBatch) broker.ShareFetchPartitionData {
	t.Helper()
	n := len(out.sent)
	b.Receive(&broker.Envelope{ID: 100 + n, From: member, To: "B1", Conn: 1, Msg: &broker.ShareFetchRequest{GroupID: "workers",
		MemberID: member + "-1", MaxRecords: max, Topics: []broker.ShareFetchPartition{{Partition: t0, AcknowledgementBatches: acks}}}})
	require.Len(t, out.sent, n+1, "one answer")
	r := out.sent[n].Msg.(*broker.ShareFetchResponse)
	require.Len(t, r.Responses, 1)
	return r.Responses[0]
}

func ack(off int, typ kgviz.AcknowledgeType) broker.AcknowledgementBatch {
	return broker.AcknowledgementBatch{FirstOffset: off, LastOffset: off, AcknowledgeTypes: []kgviz.AcknowledgeType{typ}}
}

// INVALID_RECORD_STATE: an acknowledgement of a record the member does not
// hold. Kafka: SharePartition.acknowledge ("Member is not the owner of
// offset"; "The batch cannot be acknowledged. The batch is not in the
// acquired state."), and the partition's acknowledgements of the request
// are rolled back together (rollbackOrProcessStateUpdates); the share
// consumer's acknowledgement commit callback gets InvalidRecordStateException.
// An acknowledgement below the share-partition start offset is no error and
// changes nothing (SharePartition.acknowledge: "All offsets in the
// acknowledgement batch are already archived", Kafka 4.1.1 and 4.4.0).
func TestFidelityInvalidRecordState(t *testing.T) {
	b, out, advance := shareBroker()
	got := shareFetch(t, b, out, "S1", 2)
	require.Len(t, got.AcquiredRecords, 2, "S1 acquires t0.0 and t0.1")
	got = shareFetch(t, b, out, "S2", 1)
	require.Len(t, got.AcquiredRecords, 1, "S2 acquires t0.2")
	sp := b.SharePartitions().Get("workers", t0)

	// S2 acknowledges S1's record: not the owner.
	got = shareFetch(t, b, out, "S2", 0, ack(0, kgviz.Accept))
	assert.Equal(t, kgviz.INVALID_RECORD_STATE, got.AcknowledgeErrorCode)
	assert.Equal(t, kgviz.RecordAcquired, sp.InFlight()[0].State, "nothing changed")

	// S1's own ACCEPT is taken and SPSO moves past t0.0; the same ACCEPT
	// again is below SPSO: skipped, no error.
	got = shareFetch(t, b, out, "S1", 0, ack(0, kgviz.Accept))
	assert.Equal(t, kgviz.NONE, got.AcknowledgeErrorCode)
	assert.Equal(t, 1, sp.StartOffset(), "SPSO moves past the ACKNOWLEDGED record")
	got = shareFetch(t, b, out, "S1", 0, ack(0, kgviz.Reject))
	assert.Equal(t, kgviz.NONE, got.AcknowledgeErrorCode, "below SPSO: already archived")
	assert.Equal(t, 1, sp.StartOffset())

	// S1 accepts its t0.1 and S2's t0.2 in one request: refused, and t0.1's
	// ACCEPT is rolled back with it.
	got = shareFetch(t, b, out, "S1", 0, ack(1, kgviz.Accept), ack(2, kgviz.Accept))
	assert.Equal(t, kgviz.INVALID_RECORD_STATE, got.AcknowledgeErrorCode)
	assert.Equal(t, kgviz.RecordAcquired, sp.InFlight()[0].State, "t0.1's ACCEPT is rolled back with the refused one")

	// The lock (10 ticks) expires: t0.1 is AVAILABLE again, and S1's late ACCEPT is refused.
	advance(10)
	assert.Equal(t, kgviz.RecordAvailable, sp.InFlight()[0].State)
	got = shareFetch(t, b, out, "S1", 0, ack(1, kgviz.Accept))
	assert.Equal(t, kgviz.INVALID_RECORD_STATE, got.AcknowledgeErrorCode)
}

// UNKNOWN_TOPIC_OR_PARTITION: a ShareFetch of a partition the broker does
// not host (Kafka: KafkaApis.handleShareFetchRequest answers the partition
// with Errors.UNKNOWN_TOPIC_OR_PARTITION). kgviz's share consumers only
// fetch what they are assigned; the broker is stepped by messages.
func TestFidelityUnknownTopicOrPartition(t *testing.T) {
	b, out, _ := shareBroker()
	b.Receive(&broker.Envelope{ID: 1, From: "S1", To: "B1", Conn: 1, Msg: &broker.ShareFetchRequest{GroupID: "workers", MemberID: "S1-1",
		MaxRecords: 3, Topics: []broker.ShareFetchPartition{{Partition: kafka.TopicPartition{Topic: "nosuch", Partition: 0}}, {Partition: t0}}}})
	require.Len(t, out.sent, 1)
	r := out.sent[0].Msg.(*broker.ShareFetchResponse)
	require.Len(t, r.Responses, 2)
	assert.Equal(t, kgviz.UNKNOWN_TOPIC_OR_PARTITION, r.Responses[0].ErrorCode)
	assert.Equal(t, kgviz.NONE, r.Responses[1].ErrorCode)
	assert.Len(t, r.Responses[1].AcquiredRecords, 3, "the known partition is read")
}
