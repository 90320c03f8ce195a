package broker

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// ShareAcknowledge (API key 79, KIP-932): acknowledgements sent without a
// fetch (commitSync, commitAsync, close). With ShareSessionEpoch -1 it
// closes the member's share session: what the member still holds is
// released (SharePartitionManager.releaseSession).

// ShareAcknowledgeRequest is Kafka's request (topic names for topic ids).
type ShareAcknowledgeRequest struct {
	GroupID           string
	MemberID          string
	ShareSessionEpoch int
	Topics            []ShareFetchPartition
}

// ShareAcknowledgePartitionData is one partition's outcome.
type ShareAcknowledgePartitionData struct {
	Partition kafka.TopicPartition
	ErrorCode kafka.ErrorCode
}

// ShareAcknowledgeResponse is Kafka's response.
type ShareAcknowledgeResponse struct {
	ErrorCode kafka.ErrorCode
	Responses []ShareAcknowledgePartitionData
}

func (*ShareAcknowledgeRequest) Key() kafka.APIKey  { return kafka.ShareAcknowledge }
func (*ShareAcknowledgeResponse) Key() kafka.APIKey { return kafka.ShareAcknowledge }
func (*ShareAcknowledgeRequest) IsResponse() bool   { return false }
func (*ShareAcknowledgeResponse) IsResponse() bool  { return true }

func (r *ShareAcknowledgeRequest) String() string {
	return fmt.Sprintf("group=%s member=%s session=%d acks=[%s]", r.GroupID, r.MemberID, r.ShareSessionEpoch, acksString(r.Topics))
}

func (r *ShareAcknowledgeResponse) String() string {
	var errs []string
	for _, p := range r.Responses {
		if p.ErrorCode != kafka.NONE {
			errs = append(errs, p.Partition.String()+" "+p.ErrorCode.String())
		}
	}
	return strings.Join(errs, ", ")
}

// handleShareAcknowledge is KafkaApis.handleShareAcknowledgeRequest.
func (b *Broker) handleShareAcknowledge(env *Envelope, req *ShareAcknowledgeRequest) {
	resp := &ShareAcknowledgeResponse{}
	if req.GroupID == "" || req.MemberID == "" {
		resp.ErrorCode = kafka.INVALID_REQUEST
		b.reply(env, 0, resp)
		return
	}
	for _, p := range req.Topics {
		d := ShareAcknowledgePartitionData{Partition: p.Partition}
		if sp := b.sharePartition(req.GroupID, p.Partition); sp == nil {
			d.ErrorCode = kafka.UNKNOWN_TOPIC_OR_PARTITION
		} else if len(p.AcknowledgementBatches) > 0 {
			d.ErrorCode = sp.acknowledge(req.MemberID, p.AcknowledgementBatches)
		}
		resp.Responses = append(resp.Responses, d)
	}
	if req.ShareSessionEpoch == FinalShareSessionEpoch {
		b.releaseShareSession(req.GroupID, req.MemberID, event.ReasonShareSessionClosed)
	}
	b.reply(env, 0, resp)
}
