package broker

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// ShareFetch (API key 78, KIP-932): a share consumer's fetch from the
// partition leader. It carries the acknowledgements of the records the
// member processed since its last fetch (piggybacked), and acquires at most
// MaxRecords new records for the member (max.poll.records) from the
// share-partitions of the group, starting with the partition after the one
// the last fetch ended on, as kgviz's Fetch does. kgviz's share consumer
// sends every partition it is assigned in every request: share sessions
// (ShareSessionEpoch, KIP-932's incremental requests) are only modelled
// for their end (epoch -1 closes the session and releases what the
// member still holds; see ShareAcknowledge).

// FinalShareSessionEpoch closes a share session (ShareRequestMetadata.FINAL_EPOCH).
const FinalShareSessionEpoch = -1

// AcknowledgementBatch acknowledges the records FirstOffset to LastOffset
// with one type each (or one type for all): Kafka's AcknowledgementBatch.
type AcknowledgementBatch struct {
	FirstOffset      int
	LastOffset       int
	AcknowledgeTypes []kafka.AcknowledgeType
}

func (b AcknowledgementBatch) String() string {
	t := make([]string, len(b.AcknowledgeTypes))
	for i, x := range b.AcknowledgeTypes {
		t[i] = x.String()
	}
	if b.FirstOffset == b.LastOffset {
		return fmt.Sprintf("%d:%s", b.FirstOffset, strings.Join(t, ","))
	}
	return fmt.Sprintf("%d-%d:%s", b.FirstOffset, b.LastOffset, strings.Join(t, ","))
}

// ShareFetchPartition is one partition of a ShareFetch with the
// acknowledgements for it.
type ShareFetchPartition struct {
	Partition              kafka.TopicPartition
	AcknowledgementBatches []AcknowledgementBatch
}

// ShareFetchRequest is Kafka's request (topic names for topic ids).
type ShareFetchRequest struct {
	GroupID           string
	MemberID          string
	ShareSessionEpoch int
	MaxRecords        int // max.poll.records
	Start             int // index in Topics to start with
	Topics            []ShareFetchPartition
}

// AcquiredRecords is a range of records acquired for the member with their
// delivery count (Kafka's AcquiredRecords); kgviz acquires one record a
// range and names it (Record).
type AcquiredRecords struct {
	FirstOffset   int
	LastOffset    int
	DeliveryCount int
	Record        string
}

// ShareFetchPartitionData is one partition of the answer: its errors, the
// acknowledgements' outcome and the records acquired.
type ShareFetchPartitionData struct {
	Partition            kafka.TopicPartition
	ErrorCode            kafka.ErrorCode
	AcknowledgeErrorCode kafka.ErrorCode
	AcquiredRecords      []AcquiredRecords
}

// ShareFetchResponse is Kafka's response.
type ShareFetchResponse struct {
	ErrorCode kafka.ErrorCode
	Responses []ShareFetchPartitionData
	Next      int // where the next fetch starts
}

func (*ShareFetchRequest) Key() kafka.APIKey  { return kafka.ShareFetch }
func (*ShareFetchResponse) Key() kafka.APIKey { return kafka.ShareFetch }
func (*ShareFetchRequest) IsResponse() bool   { return false }
func (*ShareFetchResponse) IsResponse() bool  { return true }

func acksString(parts []ShareFetchPartition) string {
	var s []string
	for _, p := range parts {
		for _, b := range p.AcknowledgementBatches {
			s = append(s, p.Partition.String()+"@"+b.String())
		}
	}
	return strings.Join(s, " ")
}

func (r *ShareFetchRequest) String() string {
	tps := make([]kafka.TopicPartition, len(r.Topics))
	for i, p := range r.Topics {
		tps[i] = p.Partition
	}
	s := fmt.Sprintf("group=%s member=%s session=%d max=%d [%s]", r.GroupID, r.MemberID, r.ShareSessionEpoch, r.MaxRecords, partitionsString(tps))
	if a := acksString(r.Topics); a != "" {
		s += " acks=[" + a + "]"
	}
	return s
}

func (r *ShareFetchResponse) String() string {
	var acq, errs []string
	for _, p := range r.Responses {
		for _, a := range p.AcquiredRecords {
			acq = append(acq, fmt.Sprintf("%s(%d)", a.Record, a.DeliveryCount))
		}
		if p.AcknowledgeErrorCode != kafka.NONE {
			errs = append(errs, p.Partition.String()+" acknowledge "+p.AcknowledgeErrorCode.String())
		}
		if p.ErrorCode != kafka.NONE {
			errs = append(errs, p.Partition.String()+" "+p.ErrorCode.String())
		}
	}
	s := "acquired=[" + strings.Join(acq, " ") + "]"
	if len(errs) > 0 {
		s += " " + strings.Join(errs, ", ")
	}
	return s
}

// handleShareFetch is KafkaApis.handleShareFetchRequest with
// SharePartitionManager: the acknowledgements first, then the acquisition.
func (b *Broker) handleShareFetch(env *Envelope, req *ShareFetchRequest) {
	resp := &ShareFetchResponse{Next: req.Start}
	if req.GroupID == "" || req.MemberID == "" {
		resp.ErrorCode = kafka.INVALID_REQUEST
		b.reply(env, 0, resp)
		return
	}
	n := len(req.Topics)
	data := make([]ShareFetchPartitionData, n)
	for i, p := range req.Topics {
		data[i].Partition = p.Partition
		sp := b.sharePartition(req.GroupID, p.Partition)
		if sp == nil {
			data[i].ErrorCode = kafka.UNKNOWN_TOPIC_OR_PARTITION
			continue
		}
		if len(p.AcknowledgementBatches) > 0 {
			data[i].AcknowledgeErrorCode = sp.acknowledge(req.MemberID, p.AcknowledgementBatches)
		}
	}
	if req.ShareSessionEpoch != FinalShareSessionEpoch {
		b.openShareSession(env.Conn, req.GroupID, req.MemberID)
		acquired := 0
		for k := 0; k < n && acquired < req.MaxRecords; k++ {
			i := (req.Start + k) % n
			sp := b.sharePartition(req.GroupID, req.Topics[i].Partition)
			if sp == nil {
				continue
			}
			recs := sp.acquire(req.MemberID, env.From, req.MaxRecords-acquired)
			if len(recs) > 0 {
				data[i].AcquiredRecords = recs
				acquired += len(recs)
				resp.Next = (i + 1) % n
			}
		}
	} else {
		b.releaseShareSession(req.GroupID, req.MemberID, event.ReasonShareSessionClosed)
	}
	resp.Responses = data
	b.reply(env, 0, resp)
}
