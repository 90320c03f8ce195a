package broker

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Heartbeat (API key 12): a member's heartbeat thread tells the coordinator
// it is alive, every tick (heartbeat.interval.ms); the answer tells it when
// a rebalance started (REBALANCE_IN_PROGRESS) or that it is no longer in the
// group (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_INSTANCE_ID).

// HeartbeatRequest keeps a member's session alive.
type HeartbeatRequest struct {
	GroupID         string
	GenerationID    int
	MemberID        string
	GroupInstanceID string
}

// HeartbeatResponse answers a heartbeat.
type HeartbeatResponse struct {
	ErrorCode kafka.ErrorCode
}

func (*HeartbeatRequest) Key() kafka.APIKey  { return kafka.Heartbeat }
func (*HeartbeatResponse) Key() kafka.APIKey { return kafka.Heartbeat }
func (*HeartbeatRequest) IsResponse() bool   { return false }
func (*HeartbeatResponse) IsResponse() bool  { return true }
func (*HeartbeatRequest) String() string     { return "" }
func (*HeartbeatResponse) String() string    { return "" }

// heartbeatOK is the answer to every successful heartbeat (messages are never
// changed once sent, so one value serves them all).
var heartbeatOK = &HeartbeatResponse{}

func heartbeatResponse(code kafka.ErrorCode) *HeartbeatResponse {
	if code == kafka.NONE {
		return heartbeatOK
	}
	return &HeartbeatResponse{ErrorCode: code}
}

func (gc *GroupCoordinator) handleHeartbeat(env Envelope, req *HeartbeatRequest) {
	g := gc.Classic(req.GroupID)
	if g == nil {
		gc.b.reply(env, 0, heartbeatResponse(kafka.UNKNOWN_MEMBER_ID))
		return
	}
	g.handleHeartbeat(env, req)
}

func (r *HeartbeatRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.Int(r.GenerationID)
	e.String(r.MemberID)
	e.String(r.GroupInstanceID)
}

func (r *HeartbeatResponse) Encode(e *event.Encoder) { e.Int(int(r.ErrorCode)) }

func init() {
	event.RegisterDecoder(kafka.Heartbeat, false, func(d *event.Decoder) kafka.Message {
		return &HeartbeatRequest{GroupID: d.String(), GenerationID: d.Int(), MemberID: d.String(), GroupInstanceID: d.String()}
	})
	event.RegisterDecoder(kafka.Heartbeat, true, func(d *event.Decoder) kafka.Message {
		return &HeartbeatResponse{ErrorCode: kafka.ErrorCode(d.Int())}
	})
}
