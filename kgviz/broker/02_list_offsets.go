package broker

import (
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// ListOffsets (API key 2): a consumer looks up where a partition starts
// (or ends) when it has no committed offset to start from
// (auto.offset.reset; the Java consumer's OffsetFetcher.resetPositionsIfNeeded
// sends it after the group's OffsetFetch answered INVALID_OFFSET). Only a
// member with kgviz.WithListOffsets sends it; without, kgviz starts such a
// partition at 0 at once.

// The timestamps of ListOffsets' special lookups (ListOffsetsRequest).
const (
	EarliestTimestamp = -2 // the log start offset (auto.offset.reset=earliest)
	LatestTimestamp   = -1 // the high watermark (auto.offset.reset=latest)
)

// ListOffsetsRequest asks for each partition's offset at Timestamp.
type ListOffsetsRequest struct {
	Timestamp  int
	Partitions []kafka.TopicPartition
}

// ListOffsetsResponse carries the offsets; -1 for a timestamp no record
// matches.
type ListOffsetsResponse struct {
	ErrorCode kafka.ErrorCode
	Offsets   []PartitionOffset
}

func (*ListOffsetsRequest) Key() kafka.APIKey  { return kafka.ListOffsets }
func (*ListOffsetsResponse) Key() kafka.APIKey { return kafka.ListOffsets }
func (*ListOffsetsRequest) IsResponse() bool   { return false }
func (*ListOffsetsResponse) IsResponse() bool  { return true }

func (r *ListOffsetsRequest) String() string {
	s := make([]string, len(r.Partitions))
	for i, tp := range r.Partitions {
		s[i] = tp.String()
	}
	ts := "earliest"
	if r.Timestamp == LatestTimestamp {
		ts = "latest"
	}
	return ts + " " + strings.Join(s, " ")
}

func (r *ListOffsetsResponse) String() string { return offsetsString(r.Offsets) }

// handleListOffsets answers the partition leader's log start offset (kgviz's
// logs are never truncated: 0) or high watermark.
func (b *Broker) handleListOffsets(env *Envelope, req *ListOffsetsRequest) {
	resp := &ListOffsetsResponse{Offsets: make([]PartitionOffset, 0, len(req.Partitions))}
	for _, tp := range req.Partitions {
		off := -1
		if l := b.logs[tp]; l != nil {
			switch req.Timestamp {
			case EarliestTimestamp:
				off = 0
			case LatestTimestamp:
				off = l.HighWatermark()
			}
		}
		resp.Offsets = append(resp.Offsets, PartitionOffset{tp, off})
	}
	b.reply(env, 0, resp)
}

func (r *ListOffsetsRequest) Encode(e *event.Encoder) {
	e.Int(r.Timestamp)
	e.Partitions(r.Partitions)
}

func (r *ListOffsetsResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	encodeOffsets(e, r.Offsets)
}

func init() {
	event.RegisterDecoder(kafka.ListOffsets, false, func(d *event.Decoder) kafka.Message {
		return &ListOffsetsRequest{Timestamp: d.Int(), Partitions: d.Partitions()}
	})
	event.RegisterDecoder(kafka.ListOffsets, true, func(d *event.Decoder) kafka.Message {
		return &ListOffsetsResponse{ErrorCode: kafka.ErrorCode(d.Int()), Offsets: decodeOffsets(d)}
	})
}
