package broker

import (
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// ShareGroupHeartbeat (API key 76, KIP-932): a share group member's only
// group request. A member joins with epoch 0 and its subscription,
// heartbeats at the interval the coordinator gives it
// (group.share.heartbeat.interval.ms) and leaves with epoch -1; the answer
// carries its member epoch and, when it changed, its assignment, which it
// takes at once (a share group has no revocation: several members may read
// one partition). Kafka's ShareGroupHeartbeatRequest and
// ShareGroupHeartbeatResponse, version 1 (the member id is the client's),
// with topic names where Kafka sends topic ids.

// ShareGroupHeartbeatRequest is Kafka's request (but RackId, which kgviz's
// members never send). SubscribedTopicNames is sent when joining or when it
// changed, nil otherwise.
type ShareGroupHeartbeatRequest struct {
	GroupID              string
	MemberID             string
	MemberEpoch          int // 0 to join, -1 to leave
	SubscribedTopicNames []string
}

// ShareGroupHeartbeatAssignment is the response's assignment.
type ShareGroupHeartbeatAssignment struct {
	TopicPartitions []kafka.TopicPartition
}

// ShareGroupHeartbeatResponse is Kafka's response.
type ShareGroupHeartbeatResponse struct {
	ErrorCode           kafka.ErrorCode
	ErrorMessage        string
	MemberID            string
	MemberEpoch         int
	HeartbeatIntervalMs int // group.share.heartbeat.interval.ms, in ticks
	// Assignment is the member's assignment, sent when it changed; nil otherwise.
	Assignment *ShareGroupHeartbeatAssignment
}

func (*ShareGroupHeartbeatRequest) Key() kafka.APIKey  { return kafka.ShareGroupHeartbeat }
func (*ShareGroupHeartbeatResponse) Key() kafka.APIKey { return kafka.ShareGroupHeartbeat }
func (*ShareGroupHeartbeatRequest) IsResponse() bool   { return false }
func (*ShareGroupHeartbeatResponse) IsResponse() bool  { return true }

func partitionsString(tps []kafka.TopicPartition) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	return strings.Join(s, " ")
}

func (r *ShareGroupHeartbeatRequest) String() string {
	s := "group=" + r.GroupID + " member=" + orNone(r.MemberID) + " epoch=" + strconv.Itoa(r.MemberEpoch)
	if r.SubscribedTopicNames != nil {
		s += " topics=[" + strings.Join(r.SubscribedTopicNames, " ") + "]"
	}
	return s
}

func (r *ShareGroupHeartbeatResponse) String() string {
	if r.ErrorCode != kafka.NONE {
		return r.ErrorMessage
	}
	s := "member=" + r.MemberID + " epoch=" + strconv.Itoa(r.MemberEpoch)
	if r.Assignment != nil {
		s += " assignment=[" + partitionsString(r.Assignment.TopicPartitions) + "]"
	}
	return s
}

// handleShareGroupHeartbeat is GroupCoordinatorService.shareGroupHeartbeat
// (the request's validation, throwIfShareGroupHeartbeatRequestIsInvalid)
// and GroupMetadataManager.shareGroupHeartbeat.
func (gc *GroupCoordinator) handleShareGroupHeartbeat(env *Envelope, req *ShareGroupHeartbeatRequest) {
	fail := func(code kafka.ErrorCode, msg string) {
		gc.b.reply(env, req.MemberEpoch, &ShareGroupHeartbeatResponse{ErrorCode: code, ErrorMessage: msg})
	}
	switch {
	case req.GroupID == "":
		fail(kafka.INVALID_REQUEST, "GroupId can't be empty.")
		return
	case req.MemberEpoch < LeaveGroupMemberEpoch:
		fail(kafka.INVALID_REQUEST, "MemberEpoch is invalid.")
		return
	case req.MemberEpoch == JoinGroupMemberEpoch && len(req.SubscribedTopicNames) == 0:
		fail(kafka.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.")
		return
	case req.MemberID == "":
		// Kafka checks it for epochs other than 0; kgviz's members always
		// name themselves (version 1: the member id is the client's)
		fail(kafka.INVALID_REQUEST, "MemberId can't be empty.")
		return
	}
	if req.MemberEpoch == LeaveGroupMemberEpoch {
		g := gc.Share(req.GroupID)
		if g == nil {
			fail(kafka.GROUP_ID_NOT_FOUND, "Group "+req.GroupID+" not found.")
			return
		}
		if m := g.member(req.MemberID); m != nil {
			g.remove(m, event.ReasonLeaveGroup)
		}
		gc.b.reply(env, LeaveGroupMemberEpoch, &ShareGroupHeartbeatResponse{MemberID: req.MemberID, MemberEpoch: LeaveGroupMemberEpoch})
		return
	}
	g, code, msg := gc.shareGroupFor(req.GroupID, req.MemberEpoch == JoinGroupMemberEpoch)
	if code != kafka.NONE {
		fail(code, msg)
		return
	}
	g.heartbeat(env, req)
}
