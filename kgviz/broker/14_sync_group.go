package broker

import (
	"sort"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// SyncGroup (API key 14): every member asks for its assignment; the
// leader's request carries the plan, which the coordinator stores without
// looking inside.

// SyncGroupAssignment is one member's share of the leader's plan.
type SyncGroupAssignment struct {
	MemberID   string
	Assignment []kafka.TopicPartition
}

// SyncGroupRequest asks for the member's assignment (and, from the leader,
// carries the plan).
type SyncGroupRequest struct {
	GroupID         string
	GenerationID    int
	MemberID        string
	GroupInstanceID string
	ProtocolType    string
	ProtocolName    string
	Assignments     []SyncGroupAssignment // only from the leader
}

// SyncGroupResponse carries the member's assignment.
type SyncGroupResponse struct {
	ErrorCode    kafka.ErrorCode
	ProtocolType string
	ProtocolName string
	Assignment   []kafka.TopicPartition
}

func (*SyncGroupRequest) Key() kafka.APIKey  { return kafka.SyncGroup }
func (*SyncGroupResponse) Key() kafka.APIKey { return kafka.SyncGroup }
func (*SyncGroupRequest) IsResponse() bool   { return false }
func (*SyncGroupResponse) IsResponse() bool  { return true }

// Plan returns the leader's plan by member id (nil for a follower's request).
func (r *SyncGroupRequest) Plan() map[string][]kafka.TopicPartition {
	if r.Assignments == nil {
		return nil
	}
	plan := make(map[string][]kafka.TopicPartition, len(r.Assignments))
	for _, a := range r.Assignments {
		plan[a.MemberID] = a.Assignment
	}
	return plan
}

func (r *SyncGroupRequest) String() string {
	if r.Assignments == nil {
		return "member=" + r.MemberID + " (empty: not the leader)"
	}
	as := append([]SyncGroupAssignment(nil), r.Assignments...)
	sort.Slice(as, func(i, j int) bool { return as[i].MemberID < as[j].MemberID })
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.MemberID + ":[" + tpsString(a.Assignment) + "]"
	}
	return "member=" + r.MemberID + " plan " + strings.Join(parts, " ")
}

func (r *SyncGroupResponse) String() string {
	if r.ErrorCode != kafka.NONE {
		return ""
	}
	return "assignment=[" + tpsString(r.Assignment) + "]"
}

func (gc *GroupCoordinator) handleSyncGroup(env *Envelope, req *SyncGroupRequest) {
	g := gc.Classic(req.GroupID)
	if g == nil {
		gc.b.reply(env, 0, &SyncGroupResponse{ErrorCode: kafka.UNKNOWN_MEMBER_ID})
		return
	}
	g.handleSync(env, req)
}

func (r *SyncGroupRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.Int(r.GenerationID)
	e.String(r.MemberID)
	e.String(r.GroupInstanceID)
	e.String(r.ProtocolType)
	e.String(r.ProtocolName)
	if r.Assignments == nil {
		e.Int(-1)
		return
	}
	e.Int(len(r.Assignments))
	for _, a := range r.Assignments {
		e.String(a.MemberID)
		e.Partitions(a.Assignment)
	}
}

func (r *SyncGroupResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.String(r.ProtocolType)
	e.String(r.ProtocolName)
	e.Partitions(r.Assignment)
}

func init() {
	event.RegisterDecoder(kafka.SyncGroup, false, func(d *event.Decoder) kafka.Message {
		r := &SyncGroupRequest{GroupID: d.String(), GenerationID: d.Int(), MemberID: d.String(), GroupInstanceID: d.String(),
			ProtocolType: d.String(), ProtocolName: d.String()}
		if n := d.Int(); n >= 0 {
			r.Assignments = make([]SyncGroupAssignment, n)
			for i := range r.Assignments {
				r.Assignments[i] = SyncGroupAssignment{MemberID: d.String(), Assignment: d.Partitions()}
			}
		}
		return r
	})
	event.RegisterDecoder(kafka.SyncGroup, true, func(d *event.Decoder) kafka.Message {
		return &SyncGroupResponse{ErrorCode: kafka.ErrorCode(d.Int()), ProtocolType: d.String(), ProtocolName: d.String(), Assignment: d.Partitions()}
	})
}
