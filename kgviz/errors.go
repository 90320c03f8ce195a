package kgviz

// ErrorCode is a Kafka protocol error code (org.apache.kafka.common.protocol.Errors).
// The zero value is NONE.
type ErrorCode int16

// The error codes the simulation can answer with, with Kafka's numbers.
const (
	NONE                         ErrorCode = 0
	COORDINATOR_NOT_AVAILABLE    ErrorCode = 15
	ILLEGAL_GENERATION           ErrorCode = 22
	UNKNOWN_MEMBER_ID            ErrorCode = 25
	REBALANCE_IN_PROGRESS        ErrorCode = 27
	INVALID_PRODUCER_EPOCH       ErrorCode = 47
	OUT_OF_ORDER_SEQUENCE_NUMBER ErrorCode = 45
	INVALID_TXN_STATE            ErrorCode = 48
	CONCURRENT_TRANSACTIONS      ErrorCode = 51
	FENCED_INSTANCE_ID           ErrorCode = 82
	UNSTABLE_OFFSET_COMMIT       ErrorCode = 88
	PRODUCER_FENCED              ErrorCode = 90
)

var errorNames = map[ErrorCode]string{
	NONE:                         "NONE",
	COORDINATOR_NOT_AVAILABLE:    "COORDINATOR_NOT_AVAILABLE",
	ILLEGAL_GENERATION:           "ILLEGAL_GENERATION",
	UNKNOWN_MEMBER_ID:            "UNKNOWN_MEMBER_ID",
	REBALANCE_IN_PROGRESS:        "REBALANCE_IN_PROGRESS",
	INVALID_PRODUCER_EPOCH:       "INVALID_PRODUCER_EPOCH",
	OUT_OF_ORDER_SEQUENCE_NUMBER: "OUT_OF_ORDER_SEQUENCE_NUMBER",
	INVALID_TXN_STATE:            "INVALID_TXN_STATE",
	CONCURRENT_TRANSACTIONS:      "CONCURRENT_TRANSACTIONS",
	FENCED_INSTANCE_ID:           "FENCED_INSTANCE_ID",
	UNSTABLE_OFFSET_COMMIT:       "UNSTABLE_OFFSET_COMMIT",
	PRODUCER_FENCED:              "PRODUCER_FENCED",
}

// String returns Kafka's name of the error, e.g. "ILLEGAL_GENERATION".
func (e ErrorCode) String() string {
	if s, ok := errorNames[e]; ok {
		return s
	}
	return "UNKNOWN_SERVER_ERROR"
}

// ErrorCodes lists every error code the simulation can emit, in numeric order.
func ErrorCodes() []ErrorCode {
	return []ErrorCode{NONE, COORDINATOR_NOT_AVAILABLE, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
		REBALANCE_IN_PROGRESS, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE,
		CONCURRENT_TRANSACTIONS, FENCED_INSTANCE_ID, UNSTABLE_OFFSET_COMMIT, PRODUCER_FENCED}
}
