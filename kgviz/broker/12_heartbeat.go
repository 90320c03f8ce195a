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
// changed once sent, so one value serves them all); the errors a heartbeat
// can meet have one value each too (every member gets REBALANCE_IN_PROGRESS
// from each of its heartbeats while a rebalance waits for its JoinGroup).
var (
	heartbeatOK          = &HeartbeatResponse{}
	heartbeatRebalance   = &HeartbeatResponse{ErrorCode: kafka.REBALANCE_IN_PROGRESS}
	heartbeatUnknown     = &HeartbeatResponse{ErrorCode: kafka.UNKNOWN_MEMBER_ID}
	heartbeatIllegalGen  = &HeartbeatResponse{ErrorCode: kafka.ILLEGAL_GENERATION}
	heartbeatFenced      = &HeartbeatResponse{ErrorCode: kafka.FENCED_INSTANCE_ID}
	heartbeatUnavailable = &HeartbeatResponse{ErrorCode: kafka.COORDINATOR_NOT_AVAILABLE}
)

func heartbeatResponse(code kafka.ErrorCode) *HeartbeatResponse {
	switch code {
	case kafka.NONE:
		return heartbeatOK
	case kafka.REBALANCE_IN_PROGRESS:
		return heartbeatRebalance
	case kafka.UNKNOWN_MEMBER_ID:
		return heartbeatUnknown
	case kafka.ILLEGAL_GENERATION:
		return heartbeatIllegalGen
	case kafka.FENCED_INSTANCE_ID:
		return heartbeatFenced
	case kafka.COORDINATOR_NOT_AVAILABLE:
		return heartbeatUnavailable
	}
	return &HeartbeatResponse{ErrorCode: code}
}

func (gc *GroupCoordinator) handleHeartbeat(env *Envelope, req *HeartbeatRequest) {
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
