package broker

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// FindCoordinator (API key 10): which broker coordinates a group or a
// transactional.id. There is one broker, so the answer is B1 once the
// internal topic exists.

// CoordinatorType is FindCoordinator's key type.
type CoordinatorType int8

// The coordinator types.
const (
	CoordinatorGroup       CoordinatorType = 0
	CoordinatorTransaction CoordinatorType = 1
)

// FindCoordinatorRequest asks for the coordinator of a group id or a
// transactional.id (Kafka's Key field).
type FindCoordinatorRequest struct {
	CoordinatorKey string
	KeyType        CoordinatorType
}

// FindCoordinatorResponse names the coordinator.
type FindCoordinatorResponse struct {
	ErrorCode kafka.ErrorCode
	Host      string // the broker's name, "" with an error
}

func (*FindCoordinatorRequest) Key() kafka.APIKey  { return kafka.FindCoordinator }
func (*FindCoordinatorResponse) Key() kafka.APIKey { return kafka.FindCoordinator }
func (*FindCoordinatorRequest) IsResponse() bool   { return false }
func (*FindCoordinatorResponse) IsResponse() bool  { return true }
func (*FindCoordinatorRequest) String() string     { return "" }
func (*FindCoordinatorResponse) String() string    { return "" }

// handleFindCoordinator is KafkaApis.getCoordinator: the internal topic of
// the key's coordinator must exist; the first request on a fresh broker
// creates __consumer_offsets and answers COORDINATOR_NOT_AVAILABLE, and the
// topic exists one tick later.
func (b *Broker) handleFindCoordinator(env *Envelope, req *FindCoordinatorRequest) {
	if req.KeyType == CoordinatorGroup && !b.internal {
		if !b.creatingOffsets {
			b.creatingOffsets = true
			b.clock.After(1, "create "+kafka.ConsumerOffsetsTopic, func() { b.internal = true })
		}
		b.reply(env, 0, &FindCoordinatorResponse{ErrorCode: kafka.COORDINATOR_NOT_AVAILABLE})
		return
	}
	b.reply(env, 0, &FindCoordinatorResponse{Host: b.name})
}

func (r *FindCoordinatorRequest) Encode(e *event.Encoder) {
	e.String(r.CoordinatorKey)
	e.Int(int(r.KeyType))
}

func (r *FindCoordinatorResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.String(r.Host)
}

func init() {
	event.RegisterDecoder(kafka.FindCoordinator, false, func(d *event.Decoder) kafka.Message {
		return &FindCoordinatorRequest{CoordinatorKey: d.String(), KeyType: CoordinatorType(d.Int())}
	})
	event.RegisterDecoder(kafka.FindCoordinator, true, func(d *event.Decoder) kafka.Message {
		return &FindCoordinatorResponse{ErrorCode: kafka.ErrorCode(d.Int()), Host: d.String()}
	})
}
