package broker

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// The event log's encoding of the share group protocol's messages
// (KIP-932: API keys 76, 78 and 79) and their decoders.

func encodeTPs(e *event.Encoder, tps []kafka.TopicPartition) {
	e.Bool(tps != nil)
	e.Int(len(tps))
	for _, tp := range tps {
		e.Partition(tp)
	}
}

func decodeTPs(d *event.Decoder) []kafka.TopicPartition {
	set := d.Bool()
	n := d.Int()
	if !set {
		return nil
	}
	out := make([]kafka.TopicPartition, n)
	for i := range out {
		out[i] = d.Partition()
	}
	return out
}

func encodeShareParts(e *event.Encoder, parts []ShareFetchPartition) {
	e.Bool(parts != nil)
	e.Int(len(parts))
	for _, p := range parts {
		e.Partition(p.Partition)
		e.Bool(p.AcknowledgementBatches != nil)
		e.Int(len(p.AcknowledgementBatches))
		for _, b := range p.AcknowledgementBatches {
			e.Int(b.FirstOffset)
			e.Int(b.LastOffset)
			e.Bool(b.AcknowledgeTypes != nil)
			e.Int(len(b.AcknowledgeTypes))
			for _, t := range b.AcknowledgeTypes {
				e.Int(int(t))
			}
		}
	}
}

func decodeShareParts(d *event.Decoder) []ShareFetchPartition {
	set := d.Bool()
	n := d.Int()
	var out []ShareFetchPartition
	if set {
		out = make([]ShareFetchPartition, n)
	}
	for i := 0; i < n; i++ {
		var p ShareFetchPartition
		p.Partition = d.Partition()
		bset := d.Bool()
		nb := d.Int()
		if bset {
			p.AcknowledgementBatches = make([]AcknowledgementBatch, nb)
		}
		for j := 0; j < nb; j++ {
			b := AcknowledgementBatch{FirstOffset: d.Int(), LastOffset: d.Int()}
			tset := d.Bool()
			nt := d.Int()
			if tset {
				b.AcknowledgeTypes = make([]kafka.AcknowledgeType, nt)
			}
			for k := 0; k < nt; k++ {
				t := kafka.AcknowledgeType(d.Int())
				if tset {
					b.AcknowledgeTypes[k] = t
				}
			}
			if bset {
				p.AcknowledgementBatches[j] = b
			}
		}
		if set {
			out[i] = p
		}
	}
	return out
}

func (r *ShareGroupHeartbeatRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.String(r.MemberID)
	e.Int(r.MemberEpoch)
	e.Bool(r.SubscribedTopicNames != nil)
	e.Strings(r.SubscribedTopicNames)
}

func (r *ShareGroupHeartbeatResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.String(r.ErrorMessage)
	e.String(r.MemberID)
	e.Int(r.MemberEpoch)
	e.Int(r.HeartbeatIntervalMs)
	e.Bool(r.Assignment != nil)
	if r.Assignment != nil {
		encodeTPs(e, r.Assignment.TopicPartitions)
	}
}

func (r *ShareFetchRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.String(r.MemberID)
	e.Int(r.ShareSessionEpoch)
	e.Int(r.MaxRecords)
	e.Int(r.Start)
	encodeShareParts(e, r.Topics)
}

func (r *ShareFetchResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.Int(r.Next)
	e.Bool(r.Responses != nil)
	e.Int(len(r.Responses))
	for _, p := range r.Responses {
		e.Partition(p.Partition)
		e.Int(int(p.ErrorCode))
		e.Int(int(p.AcknowledgeErrorCode))
		e.Bool(p.AcquiredRecords != nil)
		e.Int(len(p.AcquiredRecords))
		for _, a := range p.AcquiredRecords {
			e.Int(a.FirstOffset)
			e.Int(a.LastOffset)
			e.Int(a.DeliveryCount)
			e.String(a.Record)
		}
	}
}

func (r *ShareAcknowledgeRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.String(r.MemberID)
	e.Int(r.ShareSessionEpoch)
	encodeShareParts(e, r.Topics)
}

func (r *ShareAcknowledgeResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.Bool(r.Responses != nil)
	e.Int(len(r.Responses))
	for _, p := range r.Responses {
		e.Partition(p.Partition)
		e.Int(int(p.ErrorCode))
	}
}

func init() {
	event.RegisterDecoder(kafka.ShareGroupHeartbeat, false, func(d *event.Decoder) kafka.Message {
		r := &ShareGroupHeartbeatRequest{GroupID: d.String(), MemberID: d.String(), MemberEpoch: d.Int()}
		set := d.Bool()
		names := d.Strings()
		if set {
			r.SubscribedTopicNames = names
			if names == nil {
				r.SubscribedTopicNames = []string{}
			}
		}
		return r
	})
	event.RegisterDecoder(kafka.ShareGroupHeartbeat, true, func(d *event.Decoder) kafka.Message {
		r := &ShareGroupHeartbeatResponse{ErrorCode: kafka.ErrorCode(d.Int()), ErrorMessage: d.String(), MemberID: d.String(),
			MemberEpoch: d.Int(), HeartbeatIntervalMs: d.Int()}
		if d.Bool() {
			r.Assignment = &ShareGroupHeartbeatAssignment{TopicPartitions: decodeTPs(d)}
		}
		return r
	})
	event.RegisterDecoder(kafka.ShareFetch, false, func(d *event.Decoder) kafka.Message {
		r := &ShareFetchRequest{GroupID: d.String(), MemberID: d.String(), ShareSessionEpoch: d.Int(), MaxRecords: d.Int(), Start: d.Int()}
		r.Topics = decodeShareParts(d)
		return r
	})
	event.RegisterDecoder(kafka.ShareFetch, true, func(d *event.Decoder) kafka.Message {
		r := &ShareFetchResponse{ErrorCode: kafka.ErrorCode(d.Int()), Next: d.Int()}
		set := d.Bool()
		n := d.Int()
		if set {
			r.Responses = make([]ShareFetchPartitionData, n)
		}
		for i := 0; i < n; i++ {
			p := ShareFetchPartitionData{Partition: d.Partition(), ErrorCode: kafka.ErrorCode(d.Int()), AcknowledgeErrorCode: kafka.ErrorCode(d.Int())}
			aset := d.Bool()
			na := d.Int()
			if aset {
				p.AcquiredRecords = make([]AcquiredRecords, na)
			}
			for j := 0; j < na; j++ {
				a := AcquiredRecords{FirstOffset: d.Int(), LastOffset: d.Int(), DeliveryCount: d.Int(), Record: d.String()}
				if aset {
					p.AcquiredRecords[j] = a
				}
			}
			if set {
				r.Responses[i] = p
			}
		}
		return r
	})
	event.RegisterDecoder(kafka.ShareAcknowledge, false, func(d *event.Decoder) kafka.Message {
		r := &ShareAcknowledgeRequest{GroupID: d.String(), MemberID: d.String(), ShareSessionEpoch: d.Int()}
		r.Topics = decodeShareParts(d)
		return r
	})
	event.RegisterDecoder(kafka.ShareAcknowledge, true, func(d *event.Decoder) kafka.Message {
		r := &ShareAcknowledgeResponse{ErrorCode: kafka.ErrorCode(d.Int())}
		set := d.Bool()
		n := d.Int()
		if set {
			r.Responses = make([]ShareAcknowledgePartitionData, n)
		}
		for i := 0; i < n; i++ {
			p := ShareAcknowledgePartitionData{Partition: d.Partition(), ErrorCode: kafka.ErrorCode(d.Int())}
			if set {
				r.Responses[i] = p
			}
		}
		return r
	})
}
