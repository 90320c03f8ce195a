package broker

import (
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// OffsetFetch (API key 9): a member reads the group's committed offsets.
// The consumer always asks with RequireStable (KIP-447).

// OffsetFetchRequest asks for the committed offsets of partitions. A
// consumer group member (KIP-848) names itself with its member id and epoch
// (OffsetFetch version 9); others send "" and -1.
type OffsetFetchRequest struct {
	GroupID       string
	MemberID      string
	MemberEpoch   int
	Partitions    []kafka.TopicPartition
	RequireStable bool
}

// OffsetFetchResponse carries the committed offsets; -1 (Kafka's
// INVALID_OFFSET) for a partition without one.
type OffsetFetchResponse struct {
	ErrorCode kafka.ErrorCode
	Offsets   []PartitionOffset
}

func (*OffsetFetchRequest) Key() kafka.APIKey  { return kafka.OffsetFetch }
func (*OffsetFetchResponse) Key() kafka.APIKey { return kafka.OffsetFetch }
func (*OffsetFetchRequest) IsResponse() bool   { return false }
func (*OffsetFetchResponse) IsResponse() bool  { return true }

func (r *OffsetFetchRequest) String() string {
	s := make([]string, len(r.Partitions))
	for i, tp := range r.Partitions {
		s[i] = tp.String()
	}
	return strings.Join(s, " ")
}

func (r *OffsetFetchResponse) String() string { return offsetsString(r.Offsets) }

// handleOffsetFetch answers committed offsets, or UNSTABLE_OFFSET_COMMIT
// while a transactional offset is pending for a requested partition.
func (gc *GroupCoordinator) handleOffsetFetch(env *Envelope, req *OffsetFetchRequest) {
	gen := gc.generationOf(req.GroupID, req.MemberID)
	if g := gc.Consumer(req.GroupID); g != nil {
		if code := g.validateOffsetFetch(req.MemberID, req.MemberEpoch); code != kafka.NONE {
			gc.b.reply(env, gen, &OffsetFetchResponse{ErrorCode: code})
			return
		}
	}
	o := gc.groupOffsets(req.GroupID)
	resp := &OffsetFetchResponse{}
	if len(req.Partitions) > 0 {
		resp.Offsets = make([]PartitionOffset, 0, len(req.Partitions))
	}
	var topic string
	var list []committedOffset
	for _, tp := range req.Partitions {
		if req.RequireStable && len(o.pending) > 0 {
			if _, ok := o.pending[tp]; ok {
				gc.b.reply(env, gen, &OffsetFetchResponse{ErrorCode: kafka.UNSTABLE_OFFSET_COMMIT})
				return
			}
		}
		off, ok := o.committedOf(tp, &topic, &list)
		if !ok {
			off = -1
		}
		resp.Offsets = append(resp.Offsets, PartitionOffset{tp, off})
	}
	gc.b.reply(env, gen, resp)
}

func (r *OffsetFetchRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.String(r.MemberID)
	e.Int(r.MemberEpoch)
	e.Partitions(r.Partitions)
	e.Bool(r.RequireStable)
}

func (r *OffsetFetchResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	encodeOffsets(e, r.Offsets)
}

func init() {
	event.RegisterDecoder(kafka.OffsetFetch, false, func(d *event.Decoder) kafka.Message {
		return &OffsetFetchRequest{GroupID: d.String(), MemberID: d.String(), MemberEpoch: d.Int(), Partitions: d.Partitions(), RequireStable: d.Bool()}
	})
	event.RegisterDecoder(kafka.OffsetFetch, true, func(d *event.Decoder) kafka.Message {
		return &OffsetFetchResponse{ErrorCode: kafka.ErrorCode(d.Int()), Offsets: decodeOffsets(d)}
	})
}
