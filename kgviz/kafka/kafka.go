// Package kafka is the vocabulary every other kgviz package shares: Kafka's
// API keys and error codes with their numbers, topic partitions, the group
// and transaction states, isolation levels, and the Message interface that
// every request and response of the simulated protocol implements.
//
// It is a leaf package (it imports nothing of kgviz) so that the broker, the
// clients, the event log and the folds over it can all use the same types
// without import cycles. Package kgviz re-exports these names (kgviz.JoinGroup,
// kgviz.ILLEGAL_GENERATION, kgviz.TopicPartition, ...).
package kafka

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz/internal/javautil"
)

// APIKey is a Kafka API key, with Kafka's numbers (org.apache.kafka.common.protocol.ApiKeys).
type APIKey int16

// The APIs of the simulation. ConsumerGroupHeartbeat is the consumer group
// protocol's one group request (KIP-848).
const (
	Produce                APIKey = 0
	Fetch                  APIKey = 1
	OffsetCommit           APIKey = 8
	OffsetFetch            APIKey = 9
	FindCoordinator        APIKey = 10
	JoinGroup              APIKey = 11
	Heartbeat              APIKey = 12
	LeaveGroup             APIKey = 13
	SyncGroup              APIKey = 14
	InitProducerID         APIKey = 22
	AddPartitionsToTxn     APIKey = 24
	AddOffsetsToTxn        APIKey = 25
	EndTxn                 APIKey = 26
	WriteTxnMarkers        APIKey = 27
	TxnOffsetCommit        APIKey = 28
	ConsumerGroupHeartbeat APIKey = 68
	// The share group protocol's (KIP-932): ShareGroupHeartbeat to the group
	// coordinator, ShareFetch and ShareAcknowledge to the partition leader.
	ShareGroupHeartbeat APIKey = 76
	ShareFetch          APIKey = 78
	ShareAcknowledge    APIKey = 79
	// ListOffsets is sent only by a member with kgviz.WithListOffsets (without
	// it a partition without a committed offset starts at 0 at once); it is
	// not in APIKeys, and has a name for real-broker recordings (realkafka).
	ListOffsets APIKey = 2
)

var apiNames = map[APIKey]string{
	Produce: "Produce", Fetch: "Fetch", OffsetCommit: "OffsetCommit", OffsetFetch: "OffsetFetch",
	FindCoordinator: "FindCoordinator", JoinGroup: "JoinGroup", Heartbeat: "Heartbeat", LeaveGroup: "LeaveGroup",
	SyncGroup: "SyncGroup", InitProducerID: "InitProducerId", AddPartitionsToTxn: "AddPartitionsToTxn",
	AddOffsetsToTxn: "AddOffsetsToTxn", EndTxn: "EndTxn", WriteTxnMarkers: "WriteTxnMarkers",
	TxnOffsetCommit: "TxnOffsetCommit", ConsumerGroupHeartbeat: "ConsumerGroupHeartbeat",
	ShareGroupHeartbeat: "ShareGroupHeartbeat", ShareFetch: "ShareFetch", ShareAcknowledge: "ShareAcknowledge",
}

// APIKeys lists every API key of the simulation in numeric order.
func APIKeys() []APIKey {
	keys := make([]APIKey, 0, len(apiNames))
	for k := range apiNames {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// String returns the API's name as Kafka's request classes spell it
// ("JoinGroup", "InitProducerId").
func (k APIKey) String() string {
	if s, ok := apiNames[k]; ok {
		return s
	}
	if k == ListOffsets {
		return "ListOffsets"
	}
	return "APIKey(" + strconv.Itoa(int(k)) + ")"
}

// ParseAPIKey returns the API key of a name as String spells it.
func ParseAPIKey(name string) (APIKey, bool) {
	for k, s := range apiNames {
		if s == name {
			return k, true
		}
	}
	if name == "ListOffsets" {
		return ListOffsets, true
	}
	return 0, false
}

// API families, as the charts filter them.
const (
	FamilyGroup        = "group"        // FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, ConsumerGroupHeartbeat, ShareGroupHeartbeat
	FamilyOffsets      = "offsets"      // OffsetCommit, OffsetFetch, ShareAcknowledge
	FamilyFetch        = "fetch"        // Fetch, ShareFetch
	FamilyProduce      = "produce"      // Produce
	FamilyTransactions = "transactions" // InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, WriteTxnMarkers, TxnOffsetCommit
)

// Family returns the API's family (FamilyGroup, ...).
func (k APIKey) Family() string {
	switch k {
	case FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, ConsumerGroupHeartbeat, ShareGroupHeartbeat:
		return FamilyGroup
	case OffsetCommit, OffsetFetch, ListOffsets, ShareAcknowledge:
		return FamilyOffsets
	case Fetch, ShareFetch:
		return FamilyFetch
	case Produce:
		return FamilyProduce
	default:
		return FamilyTransactions
	}
}

// Message is one request or response of the simulated protocol. Its concrete
// types (package broker: JoinGroupRequest, JoinGroupResponse, ...) are named
// and fielded as Kafka's.
type Message interface {
	// Key is the API the message belongs to.
	Key() APIKey
	// IsResponse says whether the message is a response.
	IsResponse() bool
	// String renders the message's payload on one line, as the transcripts show it.
	String() string
}

// TopicPartition names one partition of a topic, like Kafka's TopicPartition.
type TopicPartition struct {
	Topic     string
	Partition int
}

// String returns Kafka's spelling, "orders-2".
func (tp TopicPartition) String() string { return tp.Topic + "-" + strconv.Itoa(tp.Partition) }

// Less orders partitions by topic name, then partition number.
func (tp TopicPartition) Less(o TopicPartition) bool {
	if tp.Topic != o.Topic {
		return tp.Topic < o.Topic
	}
	return tp.Partition < o.Partition
}

// SortPartitions sorts partitions by topic, then partition.
func SortPartitions(tps []TopicPartition) {
	slices.SortFunc(tps, func(a, b TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return a.Partition - b.Partition
	})
}

// GroupState is a group's state, as Kafka names it: a classic group's
// (ClassicGroupState) or a consumer group's (ConsumerGroup.ConsumerGroupState,
// KIP-848). Empty, Stable and Dead are both's.
type GroupState string

// The group states.
const (
	GroupEmpty               GroupState = "Empty"
	GroupPreparingRebalance  GroupState = "PreparingRebalance"  // classic
	GroupCompletingRebalance GroupState = "CompletingRebalance" // classic
	GroupStable              GroupState = "Stable"
	GroupDead                GroupState = "Dead"
	// GroupAssigning: a consumer group whose group epoch is ahead of its
	// target assignment epoch (the next heartbeat computes the target).
	GroupAssigning GroupState = "Assigning"
	// GroupReconciling: a consumer group with members not yet at the target
	// assignment epoch, or with partitions still to revoke.
	GroupReconciling GroupState = "Reconciling"
)

// TxnState is a transaction's state, as Kafka's TransactionState names it.
type TxnState string

// The transaction states.
const (
	TxnEmpty          TxnState = "Empty"
	TxnOngoing        TxnState = "Ongoing"
	TxnPrepareCommit  TxnState = "PrepareCommit"
	TxnPrepareAbort   TxnState = "PrepareAbort"
	TxnCompleteCommit TxnState = "CompleteCommit"
	TxnCompleteAbort  TxnState = "CompleteAbort"
)

// Open says whether the transaction is still undecided or its markers are
// not all written (Ongoing, PrepareCommit, PrepareAbort).
func (s TxnState) Open() bool {
	return s == TxnOngoing || s == TxnPrepareCommit || s == TxnPrepareAbort
}

// ControlType is the kind of a transaction marker (a control record).
type ControlType string

// The two transaction markers.
const (
	ControlCommit ControlType = "COMMIT"
	ControlAbort  ControlType = "ABORT"
)

// IsolationLevel is a consumer's isolation.level.
type IsolationLevel int8

const (
	// ReadUncommitted reads to the high watermark, aborted records included (Kafka's default).
	ReadUncommitted IsolationLevel = iota
	// ReadCommitted reads to the last stable offset and skips aborted transactions.
	ReadCommitted
)

// String returns Kafka's spelling: "read_uncommitted" or "read_committed".
func (l IsolationLevel) String() string {
	if l == ReadCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

// Internal topics.
const (
	ConsumerOffsetsTopic  = "__consumer_offsets"
	TransactionStateTopic = "__transaction_state"
	// InternalTopicPartitions is offsets.topic.num.partitions and
	// transaction.state.log.num.partitions (Kafka's default, 50).
	InternalTopicPartitions = 50
)

// PartitionFor places a group id or a transactional.id on a partition of its
// internal topic as Kafka does: Utils.abs(id.hashCode) % 50.
func PartitionFor(id string) int {
	h := javautil.StringHash(id)
	if h == -2147483648 {
		return 0
	}
	if h < 0 {
		h = -h
	}
	return int(h % InternalTopicPartitions)
}

// JavaHashMapOrder returns keys in the order a new java.util.HashMap filled
// with them in order iterates them (each key once), for tie-breaks that Kafka
// leaves to a HashMap.
func JavaHashMapOrder(keys []string) []string { return javautil.StringMapKeys(keys) }
