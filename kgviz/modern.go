package kgviz

// The group coordinator's side of the consumer group protocol (KIP-848),
// package modern, re-exported so that a notebook needs only package kgviz:
// the server-side assignors (group.remote.assignor), the target assignment
// and the reconciliation of one member, exact to Kafka 4.1.1.

import "github.com/kgviz/kgviz/kgviz/modern"

type (
	// TopicID is a topic id, Kafka's Uuid (modern.TopicID).
	TopicID = modern.TopicID
	// TopicImage is one topic of the metadata image (modern.TopicImage).
	TopicImage = modern.TopicImage
	// TopicsImage is the coordinator's view of the topics (modern.TopicsImage).
	TopicsImage = modern.TopicsImage
	// TopicPartitions is one topic of a member's assignment (modern.TopicPartitions).
	TopicPartitions = modern.TopicPartitions
	// Assignment is one member's target assignment (modern.Assignment).
	Assignment = modern.Assignment
	// SubscriptionType is Kafka's SubscriptionType (modern.SubscriptionType).
	SubscriptionType = modern.SubscriptionType
	// MemberSpec is one member as a server-side assignor sees it (modern.MemberSpec).
	MemberSpec = modern.MemberSpec
	// GroupSpec is the input of a server-side assignor (modern.GroupSpec).
	GroupSpec = modern.GroupSpec
	// GroupAssignment is a server-side assignor's answer (modern.GroupAssignment).
	GroupAssignment = modern.GroupAssignment
	// ServerAssignor is a server-side assignor (modern.ServerAssignor).
	ServerAssignor = modern.ServerAssignor
	// GroupMember is a consumer group member as its target assignment sees it (modern.GroupMember).
	GroupMember = modern.GroupMember
	// MemberUpdate is one TargetAssignmentBuilder update (modern.MemberUpdate).
	MemberUpdate = modern.MemberUpdate
	// TargetAssignmentInput is TargetAssignmentBuilder's input (modern.TargetAssignmentInput).
	TargetAssignmentInput = modern.TargetAssignmentInput
	// TargetAssignmentResult is TargetAssignmentBuilder's answer (modern.TargetAssignmentResult).
	TargetAssignmentResult = modern.TargetAssignmentResult
	// GroupMemberOrder is the iteration order of ConsumerGroup.members() (modern.GroupMemberOrder).
	GroupMemberOrder = modern.GroupMemberOrder
	// MemberState is a consumer group member's reconciliation state on the coordinator (modern.MemberState).
	MemberState = modern.MemberState
	// MemberAssignmentState is what reconciliation reads and writes (modern.MemberAssignmentState).
	MemberAssignmentState = modern.MemberAssignmentState
	// Reconciliation is ReconcileMember's input (modern.Reconciliation).
	Reconciliation = modern.Reconciliation
)

// Subscription types.
const (
	Homogeneous   = modern.Homogeneous
	Heterogeneous = modern.Heterogeneous
)

// Reconciliation states of a consumer group member (the coordinator's).
const (
	MemberStable               = modern.MemberStable
	MemberUnrevokedPartitions  = modern.MemberUnrevokedPartitions
	MemberUnreleasedPartitions = modern.MemberUnreleasedPartitions
)

var (
	// UniformAssignor is Kafka's UniformAssignor, "uniform", the broker's default.
	UniformAssignor = modern.UniformAssignor
	// ServerRangeAssignor is Kafka's server-side RangeAssignor, "range".
	ServerRangeAssignor = modern.ServerRangeAssignor
	// ErrPartitionAssignor is wrapped by the errors a server-side assignor returns
	// for input Kafka's assignor would also reject.
	ErrPartitionAssignor = modern.ErrPartitionAssignor
)

// ParseTopicID parses Kafka's spelling of a topic id (modern.ParseTopicID).
func ParseTopicID(s string) (TopicID, error) { return modern.ParseTopicID(s) }

// TopicIDFor returns the deterministic id kgviz gives a topic (modern.TopicIDFor).
func TopicIDFor(name string) TopicID { return modern.TopicIDFor(name) }

// NewTopicsImage describes topics by name and partition count (modern.NewTopicsImage).
func NewTopicsImage(partitions map[string]int) (*TopicsImage, error) {
	return modern.NewTopicsImage(partitions)
}

// NewTopicsImageOf describes topics with ids of the caller's choice (modern.NewTopicsImageOf).
func NewTopicsImageOf(topics ...TopicImage) (*TopicsImage, error) {
	return modern.NewTopicsImageOf(topics...)
}

// AssignmentOf turns named partitions into an Assignment (modern.AssignmentOf).
func AssignmentOf(img *TopicsImage, tps []TopicPartition) (Assignment, error) {
	return modern.AssignmentOf(img, tps)
}

// ServerAssignors returns the server-side assignors, uniform first (modern.ServerAssignors).
func ServerAssignors() []ServerAssignor { return modern.ServerAssignors() }

// ServerAssignorByName returns the server-side assignor "uniform" or "range" (modern.ServerAssignorByName).
func ServerAssignorByName(name string) (ServerAssignor, error) {
	return modern.ServerAssignorByName(name)
}

// PreferredServerAssignor is ConsumerGroup.computePreferredServerAssignor (modern.PreferredServerAssignor).
func PreferredServerAssignor(counts map[string]int) string {
	return modern.PreferredServerAssignor(counts)
}

// SubscriptionTypeOf is ConsumerGroup.subscriptionType (modern.SubscriptionTypeOf).
func SubscriptionTypeOf(members []GroupMember) SubscriptionType {
	return modern.SubscriptionTypeOf(members)
}

// BuildTargetAssignment is TargetAssignmentBuilder.build (modern.BuildTargetAssignment).
func BuildTargetAssignment(assignor ServerAssignor, in TargetAssignmentInput) (*TargetAssignmentResult, error) {
	return modern.BuildTargetAssignment(assignor, in)
}

// ReconcileMember is CurrentAssignmentBuilder.build (modern.ReconcileMember).
func ReconcileMember(m MemberAssignmentState, r Reconciliation) (MemberAssignmentState, error) {
	return modern.ReconcileMember(m, r)
}
