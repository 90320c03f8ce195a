package kgviz

// The typed messages of the protocol (package broker), re-exported so that a
// notebook can read an event's Body without another import:
//
//	if req, ok := e.Body().(*kgviz.SyncGroupRequest); ok && len(req.Assignments) > 0 { ... }

import "github.com/kgviz/kgviz/kgviz/broker"

type (
	RecordBatch                  = broker.RecordBatch
	ProduceRequest               = broker.ProduceRequest
	ProduceResponse              = broker.ProduceResponse
	FetchPartition               = broker.FetchPartition
	FetchRequest                 = broker.FetchRequest
	FetchedRecord                = broker.FetchedRecord
	PartitionOffset              = broker.PartitionOffset
	FetchResponse                = broker.FetchResponse
	OffsetCommitRequest          = broker.OffsetCommitRequest
	OffsetCommitResponse         = broker.OffsetCommitResponse
	OffsetFetchRequest           = broker.OffsetFetchRequest
	OffsetFetchResponse          = broker.OffsetFetchResponse
	ListOffsetsRequest           = broker.ListOffsetsRequest
	ListOffsetsResponse          = broker.ListOffsetsResponse
	FindCoordinatorRequest       = broker.FindCoordinatorRequest
	FindCoordinatorResponse      = broker.FindCoordinatorResponse
	ConsumerProtocolSubscription = broker.ConsumerProtocolSubscription
	JoinGroupProtocol            = broker.JoinGroupProtocol
	JoinGroupRequest             = broker.JoinGroupRequest
	JoinGroupMember              = broker.JoinGroupMember
	JoinGroupResponse            = broker.JoinGroupResponse
	HeartbeatRequest             = broker.HeartbeatRequest
	HeartbeatResponse            = broker.HeartbeatResponse
	MemberIdentity               = broker.MemberIdentity
	LeaveGroupRequest            = broker.LeaveGroupRequest
	LeaveGroupMemberResponse     = broker.LeaveGroupMemberResponse
	LeaveGroupResponse           = broker.LeaveGroupResponse
	SyncGroupAssignment          = broker.SyncGroupAssignment
	SyncGroupRequest             = broker.SyncGroupRequest
	SyncGroupResponse            = broker.SyncGroupResponse
	InitProducerIDRequest        = broker.InitProducerIDRequest
	InitProducerIDResponse       = broker.InitProducerIDResponse
	AddPartitionsToTxnRequest    = broker.AddPartitionsToTxnRequest
	AddPartitionsToTxnResponse   = broker.AddPartitionsToTxnResponse
	AddOffsetsToTxnRequest       = broker.AddOffsetsToTxnRequest
	AddOffsetsToTxnResponse      = broker.AddOffsetsToTxnResponse
	EndTxnRequest                = broker.EndTxnRequest
	EndTxnResponse               = broker.EndTxnResponse
	WriteTxnMarkersRequest       = broker.WriteTxnMarkersRequest
	WriteTxnMarkersResponse      = broker.WriteTxnMarkersResponse
	TxnOffsetCommitRequest       = broker.TxnOffsetCommitRequest
	TxnOffsetCommitResponse      = broker.TxnOffsetCommitResponse
	// The consumer group protocol (KIP-848).
	ConsumerGroupHeartbeatRequest    = broker.ConsumerGroupHeartbeatRequest
	ConsumerGroupHeartbeatResponse   = broker.ConsumerGroupHeartbeatResponse
	ConsumerGroupHeartbeatAssignment = broker.ConsumerGroupHeartbeatAssignment
)
