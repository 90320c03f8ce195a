package kafka

import "strconv"

// ShareRecordState is the state of one in-flight record of a share-partition
// (KIP-932; Kafka's SharePartition.RecordState, with its ids): a record is
// AVAILABLE to be acquired, ACQUIRED by one member under a time-limited lock,
// ACKNOWLEDGED (processed) or ARCHIVED (rejected, or released once too
// often). ACKNOWLEDGED and ARCHIVED are final.
type ShareRecordState int8

// The record states, with Kafka's ids (there is no 3).
const (
	RecordAvailable    ShareRecordState = 0
	RecordAcquired     ShareRecordState = 1
	RecordAcknowledged ShareRecordState = 2
	RecordArchived     ShareRecordState = 4
)

// String returns Kafka's name: "AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ARCHIVED".
func (s ShareRecordState) String() string {
	switch s {
	case RecordAvailable:
		return "AVAILABLE"
	case RecordAcquired:
		return "ACQUIRED"
	case RecordAcknowledged:
		return "ACKNOWLEDGED"
	case RecordArchived:
		return "ARCHIVED"
	}
	return "ShareRecordState(" + strconv.Itoa(int(s)) + ")"
}

// Final says whether the state is final (SharePartition: ACKNOWLEDGED or
// ARCHIVED; the share-partition start offset moves past such records).
func (s ShareRecordState) Final() bool { return s == RecordAcknowledged || s == RecordArchived }

// AcknowledgeType is how a share consumer acknowledges a record it acquired
// (org.apache.kafka.clients.consumer.AcknowledgeType, with its ids): ACCEPT
// (processed), RELEASE (give it back for another delivery) or REJECT (never
// deliver it again).
type AcknowledgeType int8

// The acknowledge types, with Kafka's ids.
const (
	Accept  AcknowledgeType = 1
	Release AcknowledgeType = 2
	Reject  AcknowledgeType = 3
)

// String returns Kafka's name: "ACCEPT", "RELEASE", "REJECT".
func (t AcknowledgeType) String() string {
	switch t {
	case Accept:
		return "ACCEPT"
	case Release:
		return "RELEASE"
	case Reject:
		return "REJECT"
	}
	return "AcknowledgeType(" + strconv.Itoa(int(t)) + ")"
}
