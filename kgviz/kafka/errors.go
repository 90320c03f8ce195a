package kafka

import "strconv"

// ErrorCode is a Kafka protocol error code (org.apache.kafka.common.protocol.Errors).
// The zero value is NONE.
type ErrorCode int16

// The error codes the simulation can answer with, with Kafka's numbers.
const (
	NONE                         ErrorCode = 0
	UNKNOWN_TOPIC_OR_PARTITION   ErrorCode = 3
	COORDINATOR_NOT_AVAILABLE    ErrorCode = 15
	ILLEGAL_GENERATION           ErrorCode = 22
	INCONSISTENT_GROUP_PROTOCOL  ErrorCode = 23
	UNKNOWN_MEMBER_ID            ErrorCode = 25
	REBALANCE_IN_PROGRESS        ErrorCode = 27
	INVALID_REQUEST              ErrorCode = 42
	OUT_OF_ORDER_SEQUENCE_NUMBER ErrorCode = 45
	INVALID_PRODUCER_EPOCH       ErrorCode = 47
	INVALID_TXN_STATE            ErrorCode = 48
	INVALID_PRODUCER_ID_MAPPING  ErrorCode = 49
	CONCURRENT_TRANSACTIONS      ErrorCode = 51
	GROUP_ID_NOT_FOUND           ErrorCode = 69
	FENCED_INSTANCE_ID           ErrorCode = 82
	UNSTABLE_OFFSET_COMMIT       ErrorCode = 88
	PRODUCER_FENCED              ErrorCode = 90
	// The consumer group protocol's (KIP-848).
	FENCED_MEMBER_EPOCH    ErrorCode = 110
	UNRELEASED_INSTANCE_ID ErrorCode = 111
	UNSUPPORTED_ASSIGNOR   ErrorCode = 112
	STALE_MEMBER_EPOCH     ErrorCode = 113
	// The share group protocol's (KIP-932): an acknowledgement of a record
	// the member does not hold (SharePartition: "Member is not the owner of
	// offset", or the record is no longer ACQUIRED).
	INVALID_RECORD_STATE ErrorCode = 121
)

var errorNames = map[ErrorCode]string{
	NONE:                         "NONE",
	UNKNOWN_TOPIC_OR_PARTITION:   "UNKNOWN_TOPIC_OR_PARTITION",
	COORDINATOR_NOT_AVAILABLE:    "COORDINATOR_NOT_AVAILABLE",
	ILLEGAL_GENERATION:           "ILLEGAL_GENERATION",
	INCONSISTENT_GROUP_PROTOCOL:  "INCONSISTENT_GROUP_PROTOCOL",
	UNKNOWN_MEMBER_ID:            "UNKNOWN_MEMBER_ID",
	REBALANCE_IN_PROGRESS:        "REBALANCE_IN_PROGRESS",
	INVALID_REQUEST:              "INVALID_REQUEST",
	OUT_OF_ORDER_SEQUENCE_NUMBER: "OUT_OF_ORDER_SEQUENCE_NUMBER",
	INVALID_PRODUCER_EPOCH:       "INVALID_PRODUCER_EPOCH",
	INVALID_TXN_STATE:            "INVALID_TXN_STATE",
	INVALID_PRODUCER_ID_MAPPING:  "INVALID_PRODUCER_ID_MAPPING",
	CONCURRENT_TRANSACTIONS:      "CONCURRENT_TRANSACTIONS",
	FENCED_INSTANCE_ID:           "FENCED_INSTANCE_ID",
	UNSTABLE_OFFSET_COMMIT:       "UNSTABLE_OFFSET_COMMIT",
	PRODUCER_FENCED:              "PRODUCER_FENCED",
	GROUP_ID_NOT_FOUND:           "GROUP_ID_NOT_FOUND",
	FENCED_MEMBER_EPOCH:          "FENCED_MEMBER_EPOCH",
	UNRELEASED_INSTANCE_ID:       "UNRELEASED_INSTANCE_ID",
	UNSUPPORTED_ASSIGNOR:         "UNSUPPORTED_ASSIGNOR",
	STALE_MEMBER_EPOCH:           "STALE_MEMBER_EPOCH",
	INVALID_RECORD_STATE:         "INVALID_RECORD_STATE",
}

// Error codes the simulation never answers with, named for real-broker
// recordings (realkafka): a new member's first JoinGroup (KIP-394), a
// coordinator that is loading or moved.
const (
	COORDINATOR_LOAD_IN_PROGRESS ErrorCode = 14
	NOT_COORDINATOR              ErrorCode = 16
	MEMBER_ID_REQUIRED           ErrorCode = 79
)

var realOnlyErrorNames = map[ErrorCode]string{
	COORDINATOR_LOAD_IN_PROGRESS: "COORDINATOR_LOAD_IN_PROGRESS",
	NOT_COORDINATOR:              "NOT_COORDINATOR",
	MEMBER_ID_REQUIRED:           "MEMBER_ID_REQUIRED",
}

// ParseErrorCode returns the code of an error name as String spells it.
func ParseErrorCode(name string) (ErrorCode, bool) {
	for c, s := range errorNames {
		if s == name {
			return c, true
		}
	}
	for c, s := range realOnlyErrorNames {
		if s == name {
			return c, true
		}
	}
	return 0, false
}

// String returns Kafka's name of the error, e.g. "ILLEGAL_GENERATION".
func (e ErrorCode) String() string {
	if s, ok := errorNames[e]; ok {
		return s
	}
	if s, ok := realOnlyErrorNames[e]; ok {
		return s
	}
	return "ErrorCode(" + strconv.Itoa(int(e)) + ")"
}

// ErrorCodes lists every error code the simulation can emit, in numeric order.
func ErrorCodes() []ErrorCode {
	return []ErrorCode{NONE, UNKNOWN_TOPIC_OR_PARTITION, COORDINATOR_NOT_AVAILABLE, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL,
		UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, INVALID_REQUEST, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH,
		INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING, CONCURRENT_TRANSACTIONS, GROUP_ID_NOT_FOUND, FENCED_INSTANCE_ID, UNSTABLE_OFFSET_COMMIT, PRODUCER_FENCED,
		FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, UNSUPPORTED_ASSIGNOR, STALE_MEMBER_EPOCH, INVALID_RECORD_STATE}
}
