package kgviz

// The vocabulary of packages kafka (API keys, error codes, partitions,
// states) and event (the event model), re-exported so that a notebook needs
// only package kgviz: kgviz.JoinGroup, kgviz.ILLEGAL_GENERATION,
// kgviz.Event, kgviz.EvSend, ...

import (
	"iter"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

type (
	// APIKey is a Kafka API key (kafka.APIKey).
	APIKey = kafka.APIKey
	// ErrorCode is a Kafka protocol error code (kafka.ErrorCode).
	ErrorCode = kafka.ErrorCode
	// TopicPartition names one partition of a topic (kafka.TopicPartition).
	TopicPartition = kafka.TopicPartition
	// GroupState is a classic group's state (kafka.GroupState).
	GroupState = kafka.GroupState
	// TxnState is a transaction's state (kafka.TxnState).
	TxnState = kafka.TxnState
	// ControlType is a transaction marker's kind (kafka.ControlType).
	ControlType = kafka.ControlType
	// IsolationLevel is a consumer's isolation.level (kafka.IsolationLevel).
	IsolationLevel = kafka.IsolationLevel
	// Event is one thing that happened at one tick (event.Event).
	Event = event.Event
	// EventType says what an Event records (event.Type).
	EventType = event.Type
	// EventSeq is a sequence of events with their indices, as World.Events returns it.
	EventSeq = iter.Seq2[int, Event]
	// Activity is what a member's application thread is doing (event.Activity).
	Activity = event.Activity
	// Reason says why something happened (event.Reason).
	Reason = event.Reason
	// Exception is the Java exception a Kafka client would raise (event.Exception).
	Exception = event.Exception
	// Setting names a setting an EvConfig changed (event.Setting).
	Setting = event.Setting
	// Plan is what the leader's assignor produced (event.Plan).
	Plan = event.Plan
	// LogRecord is one offset of a partition's log, as World.Log returns it.
	LogRecord = broker.Record
	// RecordState is the state of one offset of a log (broker.RecordState).
	RecordState = broker.RecordState
)

// Event types.
const (
	EvSend                 = event.EvSend
	EvDrop                 = event.EvDrop
	EvGroupState           = event.EvGroupState
	EvMemberAdded          = event.EvMemberAdded
	EvMemberRemoved        = event.EvMemberRemoved
	EvLeader               = event.EvLeader
	EvAssignorRun          = event.EvAssignorRun
	EvAssigned             = event.EvAssigned
	EvRevoked              = event.EvRevoked
	EvPaused               = event.EvPaused
	EvResumed              = event.EvResumed
	EvActivity             = event.EvActivity
	EvFetched              = event.EvFetched
	EvProcessed            = event.EvProcessed
	EvAppend               = event.EvAppend
	EvMarker               = event.EvMarker
	EvOffsetCommitted      = event.EvOffsetCommitted
	EvTxnState             = event.EvTxnState
	EvCommitFailed         = event.EvCommitFailed
	EvCrash                = event.EvCrash
	EvRestart              = event.EvRestart
	EvClose                = event.EvClose
	EvZombie               = event.EvZombie
	EvPollTimeout          = event.EvPollTimeout
	EvSlowStart            = event.EvSlowStart
	EvProcessFailed        = event.EvProcessFailed
	EvDeadLetter           = event.EvDeadLetter
	EvConfig               = event.EvConfig
	EvError                = event.EvError
	EvRebalance            = event.EvRebalance
	EvRetry                = event.EvRetry
	EvDuplicate            = event.EvDuplicate
	EvFence                = event.EvFence
	EvAssignmentIncomplete = event.EvAssignmentIncomplete
	EvExit                 = event.EvExit
	EvWorldStopped         = event.EvWorldStopped
	EvMemberEpoch          = event.EvMemberEpoch
)

// Activities of a member's application thread.
const (
	ActivityStarting    = event.ActivityStarting
	ActivityJoining     = event.ActivityJoining
	ActivitySyncing     = event.ActivitySyncing
	ActivityOffsetFetch = event.ActivityOffsetFetch
	ActivityFetching    = event.ActivityFetching
	ActivityProcessing  = event.ActivityProcessing
	ActivityCommitting  = event.ActivityCommitting
	ActivityRevoking    = event.ActivityRevoking
	ActivityProducing   = event.ActivityProducing
	ActivityIdle        = event.ActivityIdle
	ActivityDead        = event.ActivityDead
)

// Reasons.
const (
	ReasonSessionTimeout    = event.ReasonSessionTimeout
	ReasonLeaveGroup        = event.ReasonLeaveGroup
	ReasonJoinTimeout       = event.ReasonJoinTimeout
	ReasonSyncTimeout       = event.ReasonSyncTimeout
	ReasonRebalanceTimeout  = event.ReasonRebalanceTimeout
	ReasonReconcileRevoke   = event.ReasonReconcileRevoke
	ReasonEagerRevoke       = event.ReasonEagerRevoke
	ReasonCooperativeRevoke = event.ReasonCooperativeRevoke
	ReasonLost              = event.ReasonLost
	ReasonClose             = event.ReasonClose
	ReasonLostInFlight      = event.ReasonLostInFlight
	ReasonNotRunning        = event.ReasonNotRunning
	ReasonPollTimeout       = event.ReasonPollTimeout
	ReasonReplaced          = event.ReasonReplaced
	ReasonMemberJoined      = event.ReasonMemberJoined
	ReasonMemberLeft        = event.ReasonMemberLeft
	ReasonMetadataChanged   = event.ReasonMetadataChanged
	ReasonLeaderRejoined    = event.ReasonLeaderRejoined
	ReasonStaticReplaced    = event.ReasonStaticReplaced
	ReasonNewInstance       = event.ReasonNewInstance
	ReasonTxnTimeout        = event.ReasonTxnTimeout
	ReasonAfterRecords      = event.ReasonAfterRecords
	ReasonAtTick            = event.ReasonAtTick
	ReasonImmediately       = event.ReasonImmediately
	ReasonFatal             = event.ReasonFatal
	ReasonZombieDone        = event.ReasonZombieDone
	ReasonNilPlan           = event.ReasonNilPlan
	ReasonUnassigned        = event.ReasonUnassigned
)

// Client exceptions.
const (
	CommitFailedException              = event.CommitFailedException
	RebalanceInProgressException       = event.RebalanceInProgressException
	ProducerFencedException            = event.ProducerFencedException
	FencedInstanceIDException          = event.FencedInstanceIDException
	InconsistentGroupProtocolException = event.InconsistentGroupProtocolException
	InvalidProducerEpochException      = event.InvalidProducerEpochException
	OutOfOrderSequenceException        = event.OutOfOrderSequenceException
	TransactionAbortableException      = event.TransactionAbortableException
	KafkaException                     = event.KafkaException
	UnreleasedInstanceIDException      = event.UnreleasedInstanceIDException
	GroupIDNotFoundException           = event.GroupIDNotFoundException
	UnsupportedAssignorException       = event.UnsupportedAssignorException
	StaleMemberEpochException          = event.StaleMemberEpochException
)

// Settings.
const (
	SettingAssignor           = event.SettingAssignor
	SettingIsolation          = event.SettingIsolation
	SettingTransactionVersion = event.SettingTransactionVersion
)

// API keys, with Kafka's numbers.
const (
	Produce                = kafka.Produce
	Fetch                  = kafka.Fetch
	OffsetCommit           = kafka.OffsetCommit
	OffsetFetch            = kafka.OffsetFetch
	ListOffsets            = kafka.ListOffsets // sent only with WithListOffsets
	FindCoordinator        = kafka.FindCoordinator
	JoinGroup              = kafka.JoinGroup
	Heartbeat              = kafka.Heartbeat
	LeaveGroup             = kafka.LeaveGroup
	SyncGroup              = kafka.SyncGroup
	InitProducerID         = kafka.InitProducerID
	AddPartitionsToTxn     = kafka.AddPartitionsToTxn
	AddOffsetsToTxn        = kafka.AddOffsetsToTxn
	EndTxn                 = kafka.EndTxn
	WriteTxnMarkers        = kafka.WriteTxnMarkers
	TxnOffsetCommit        = kafka.TxnOffsetCommit
	ConsumerGroupHeartbeat = kafka.ConsumerGroupHeartbeat
)

// Error codes, with Kafka's numbers.
const (
	NONE                         = kafka.NONE
	COORDINATOR_NOT_AVAILABLE    = kafka.COORDINATOR_NOT_AVAILABLE
	ILLEGAL_GENERATION           = kafka.ILLEGAL_GENERATION
	INCONSISTENT_GROUP_PROTOCOL  = kafka.INCONSISTENT_GROUP_PROTOCOL
	UNKNOWN_MEMBER_ID            = kafka.UNKNOWN_MEMBER_ID
	REBALANCE_IN_PROGRESS        = kafka.REBALANCE_IN_PROGRESS
	OUT_OF_ORDER_SEQUENCE_NUMBER = kafka.OUT_OF_ORDER_SEQUENCE_NUMBER
	INVALID_PRODUCER_EPOCH       = kafka.INVALID_PRODUCER_EPOCH
	INVALID_TXN_STATE            = kafka.INVALID_TXN_STATE
	INVALID_PRODUCER_ID_MAPPING  = kafka.INVALID_PRODUCER_ID_MAPPING
	CONCURRENT_TRANSACTIONS      = kafka.CONCURRENT_TRANSACTIONS
	FENCED_INSTANCE_ID           = kafka.FENCED_INSTANCE_ID
	UNSTABLE_OFFSET_COMMIT       = kafka.UNSTABLE_OFFSET_COMMIT
	PRODUCER_FENCED              = kafka.PRODUCER_FENCED
	INVALID_REQUEST              = kafka.INVALID_REQUEST
	GROUP_ID_NOT_FOUND           = kafka.GROUP_ID_NOT_FOUND
	FENCED_MEMBER_EPOCH          = kafka.FENCED_MEMBER_EPOCH
	UNRELEASED_INSTANCE_ID       = kafka.UNRELEASED_INSTANCE_ID
	UNSUPPORTED_ASSIGNOR         = kafka.UNSUPPORTED_ASSIGNOR
	STALE_MEMBER_EPOCH           = kafka.STALE_MEMBER_EPOCH
)

// Group states (ClassicGroupState; a consumer group's ConsumerGroupState
// adds Assigning and Reconciling).
const (
	GroupEmpty               = kafka.GroupEmpty
	GroupPreparingRebalance  = kafka.GroupPreparingRebalance
	GroupCompletingRebalance = kafka.GroupCompletingRebalance
	GroupStable              = kafka.GroupStable
	GroupDead                = kafka.GroupDead
	GroupAssigning           = kafka.GroupAssigning
	GroupReconciling         = kafka.GroupReconciling
)

// Transaction states (TransactionState).
const (
	TxnEmpty          = kafka.TxnEmpty
	TxnOngoing        = kafka.TxnOngoing
	TxnPrepareCommit  = kafka.TxnPrepareCommit
	TxnPrepareAbort   = kafka.TxnPrepareAbort
	TxnCompleteCommit = kafka.TxnCompleteCommit
	TxnCompleteAbort  = kafka.TxnCompleteAbort
)

// Transaction markers.
const (
	ControlCommit = kafka.ControlCommit
	ControlAbort  = kafka.ControlAbort
)

// API families, as the charts filter them.
const (
	FamilyGroup        = kafka.FamilyGroup
	FamilyOffsets      = kafka.FamilyOffsets
	FamilyFetch        = kafka.FamilyFetch
	FamilyProduce      = kafka.FamilyProduce
	FamilyTransactions = kafka.FamilyTransactions
)

// Isolation levels.
const (
	ReadUncommitted = kafka.ReadUncommitted
	ReadCommitted   = kafka.ReadCommitted
)

// The states of a log record.
const (
	StateCommitted = broker.StateCommitted
	StateOpen      = broker.StateOpen
	StateAborted   = broker.StateAborted
	StateMarker    = broker.StateMarker
)

// APIFamily returns the family of an API (FamilyGroup, FamilyOffsets, ...).
func APIFamily(api APIKey) string { return api.Family() }

// ErrorCodes lists every error code the simulation can emit, in numeric order.
func ErrorCodes() []ErrorCode { return kafka.ErrorCodes() }

// SortPartitions sorts partitions by topic, then partition.
func SortPartitions(tps []TopicPartition) { kafka.SortPartitions(tps) }

// ParseAPIKey returns the API key of a name as Kafka spells it ("JoinGroup").
func ParseAPIKey(name string) (APIKey, bool) { return kafka.ParseAPIKey(name) }
