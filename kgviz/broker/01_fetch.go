package broker

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Fetch (API key 1). A poll is one Fetch for all of a member's partitions
// that returns at most MaxRecords records (max.poll.records), starting with
// the partition after the one the last poll ended on (a simplification of
// fetch sessions, KIP-227).

// FetchPartition is one partition to read and the offset to read from.
type FetchPartition struct {
	Partition   kafka.TopicPartition
	FetchOffset int
}

// FetchRequest reads records.
type FetchRequest struct {
	IsolationLevel kafka.IsolationLevel
	MaxRecords     int
	Start          int // index in Partitions to start with
	Partitions     []FetchPartition
}

// FetchedRecord is one record a fetch returned.
type FetchedRecord struct {
	Partition kafka.TopicPartition
	Offset    int
	Record    string
}

// PartitionOffset is a partition with an offset (an OffsetCommit's offset,
// a fetch's high watermark, ...).
type PartitionOffset struct {
	Partition kafka.TopicPartition
	Offset    int
}

// FetchResponse returns the records and each partition's high watermark.
type FetchResponse struct {
	ErrorCode      kafka.ErrorCode
	Records        []FetchedRecord
	HighWatermarks []PartitionOffset
	Next           int // where the next fetch starts
}

func (*FetchRequest) Key() kafka.APIKey  { return kafka.Fetch }
func (*FetchResponse) Key() kafka.APIKey { return kafka.Fetch }
func (*FetchRequest) IsResponse() bool   { return false }
func (*FetchResponse) IsResponse() bool  { return true }

func (r *FetchRequest) String() string {
	s := make([]string, len(r.Partitions))
	for i, p := range r.Partitions {
		s[i] = fmt.Sprintf("%s=%d", p.Partition, p.FetchOffset)
	}
	return strings.Join(s, " ")
}

func (r *FetchResponse) String() string {
	if len(r.Records) == 0 {
		return "no records"
	}
	names := make([]string, len(r.Records))
	for i, rec := range r.Records {
		names[i] = rec.Record
	}
	return strings.Join(names, " ")
}

func offsetsString(pos []PartitionOffset) string {
	s := make([]string, len(pos))
	for i, po := range pos {
		s[i] = fmt.Sprintf("%s=%d", po.Partition, po.Offset)
	}
	return strings.Join(s, " ")
}

// handleFetch is the partition leader answering a Fetch.
func (b *Broker) handleFetch(env *Envelope, req *FetchRequest) {
	resp := &FetchResponse{Next: req.Start}
	n := len(req.Partitions)
	for i := 0; i < n; i++ {
		fp := req.Partitions[(req.Start+i)%n]
		l := b.logs[fp.Partition]
		end := l.HighWatermark()
		if req.IsolationLevel == kafka.ReadCommitted {
			end = l.LastStableOffset()
		}
		resp.HighWatermarks = append(resp.HighWatermarks, PartitionOffset{fp.Partition, l.HighWatermark()})
		off := fp.FetchOffset
		for ; off < end && len(resp.Records) < req.MaxRecords; off++ {
			resp.Records = append(resp.Records, FetchedRecord{Partition: fp.Partition, Offset: off, Record: l.records[off].Record})
			resp.Next = (req.Start + i + 1) % n
		}
		if b.fetchDrain && off > fp.FetchOffset && off < end {
			resp.Next = (req.Start + i) % n // this partition is not drained yet
		}
	}
	b.reply(env, 0, resp)
}

func (r *FetchRequest) Encode(e *event.Encoder) {
	e.Int(int(r.IsolationLevel))
	e.Int(r.MaxRecords)
	e.Int(r.Start)
	e.Int(len(r.Partitions))
	for _, p := range r.Partitions {
		e.Partition(p.Partition)
		e.Int(p.FetchOffset)
	}
}

func (r *FetchResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.Int(len(r.Records))
	for _, rec := range r.Records {
		e.Partition(rec.Partition)
		e.Int(rec.Offset)
		e.String(rec.Record)
	}
	encodeOffsets(e, r.HighWatermarks)
	e.Int(r.Next)
}

func encodeOffsets(e *event.Encoder, pos []PartitionOffset) {
	if pos == nil {
		e.Int(-1)
		return
	}
	e.Int(len(pos))
	for _, po := range pos {
		e.Partition(po.Partition)
		e.Int(po.Offset)
	}
}

func decodeOffsets(d *event.Decoder) []PartitionOffset {
	n := d.Int()
	if n < 0 {
		return nil
	}
	out := make([]PartitionOffset, n)
	for i := range out {
		out[i] = PartitionOffset{Partition: d.Partition(), Offset: d.Int()}
	}
	return out
}

func init() {
	event.RegisterDecoder(kafka.Fetch, false, func(d *event.Decoder) kafka.Message {
		r := &FetchRequest{IsolationLevel: kafka.IsolationLevel(d.Int()), MaxRecords: d.Int(), Start: d.Int()}
		if n := d.Int(); n > 0 {
			r.Partitions = make([]FetchPartition, n)
			for i := range r.Partitions {
				r.Partitions[i] = FetchPartition{Partition: d.Partition(), FetchOffset: d.Int()}
			}
		}
		return r
	})
	event.RegisterDecoder(kafka.Fetch, true, func(d *event.Decoder) kafka.Message {
		r := &FetchResponse{ErrorCode: kafka.ErrorCode(d.Int())}
		if n := d.Int(); n > 0 {
			r.Records = make([]FetchedRecord, n)
			for i := range r.Records {
				r.Records[i] = FetchedRecord{Partition: d.Partition(), Offset: d.Int(), Record: d.String()}
			}
		}
		r.HighWatermarks = decodeOffsets(d)
		r.Next = d.Int()
		return r
	})
}
