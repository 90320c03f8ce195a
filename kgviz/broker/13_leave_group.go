package broker

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// LeaveGroup (API key 13): a dynamic member says goodbye (close(), or its
// heartbeat thread after max.poll.interval.ms), so the group rebalances at
// once instead of after session.timeout.ms.

// MemberIdentity names a member that leaves (KIP-345 batch form).
type MemberIdentity struct {
	MemberID        string
	GroupInstanceID string
	Reason          string // KIP-800
}

// LeaveGroupRequest removes members from a group.
type LeaveGroupRequest struct {
	GroupID string
	Members []MemberIdentity
}

// LeaveGroupMemberResponse is the answer for one member.
type LeaveGroupMemberResponse struct {
	MemberID        string
	GroupInstanceID string
	ErrorCode       kafka.ErrorCode
}

// LeaveGroupResponse answers a LeaveGroup.
type LeaveGroupResponse struct {
	ErrorCode kafka.ErrorCode
	Members   []LeaveGroupMemberResponse
}

func (*LeaveGroupRequest) Key() kafka.APIKey  { return kafka.LeaveGroup }
func (*LeaveGroupResponse) Key() kafka.APIKey { return kafka.LeaveGroup }
func (*LeaveGroupRequest) IsResponse() bool   { return false }
func (*LeaveGroupResponse) IsResponse() bool  { return true }
func (*LeaveGroupResponse) String() string    { return "" }

func (r *LeaveGroupRequest) String() string {
	s := ""
	for i, m := range r.Members {
		if i > 0 {
			s += "; "
		}
		s += "member=" + m.MemberID + " (" + m.Reason + ")"
	}
	return s
}

func (gc *GroupCoordinator) handleLeaveGroup(env *Envelope, req *LeaveGroupRequest) {
	g := gc.Classic(req.GroupID)
	if g == nil {
		gc.b.reply(env, 0, &LeaveGroupResponse{ErrorCode: kafka.UNKNOWN_MEMBER_ID})
		return
	}
	g.handleLeave(env, req)
}

func (r *LeaveGroupRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.Int(len(r.Members))
	for _, m := range r.Members {
		e.String(m.MemberID)
		e.String(m.GroupInstanceID)
		e.String(m.Reason)
	}
}

func (r *LeaveGroupResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.Int(len(r.Members))
	for _, m := range r.Members {
		e.String(m.MemberID)
		e.String(m.GroupInstanceID)
		e.Int(int(m.ErrorCode))
	}
}

func init() {
	event.RegisterDecoder(kafka.LeaveGroup, false, func(d *event.Decoder) kafka.Message {
		r := &LeaveGroupRequest{GroupID: d.String()}
		if n := d.Int(); n > 0 {
			r.Members = make([]MemberIdentity, n)
			for i := range r.Members {
				r.Members[i] = MemberIdentity{MemberID: d.String(), GroupInstanceID: d.String(), Reason: d.String()}
			}
		}
		return r
	})
	event.RegisterDecoder(kafka.LeaveGroup, true, func(d *event.Decoder) kafka.Message {
		r := &LeaveGroupResponse{ErrorCode: kafka.ErrorCode(d.Int())}
		if n := d.Int(); n > 0 {
			r.Members = make([]LeaveGroupMemberResponse, n)
			for i := range r.Members {
				r.Members[i] = LeaveGroupMemberResponse{MemberID: d.String(), GroupInstanceID: d.String(), ErrorCode: kafka.ErrorCode(d.Int())}
			}
		}
		return r
	})
}
