package broker

import "github.com/kgviz/kgviz/kgviz/kafka"

// ErrorOf returns a response's error code (NONE for requests).
func ErrorOf(m kafka.Message) kafka.ErrorCode {
	switch r := m.(type) {
	case *ProduceResponse:
		return r.ErrorCode
	case *FetchResponse:
		return r.ErrorCode
	case *OffsetCommitResponse:
		return r.ErrorCode
	case *OffsetFetchResponse:
		return r.ErrorCode
	case *FindCoordinatorResponse:
		return r.ErrorCode
	case *JoinGroupResponse:
		return r.ErrorCode
	case *HeartbeatResponse:
		return r.ErrorCode
	case *LeaveGroupResponse:
		// LeaveGroupResponse.error() (Kafka's client): the response's error,
		// else the first member's
		if r.ErrorCode == kafka.NONE {
			for _, m := range r.Members {
				if m.ErrorCode != kafka.NONE {
					return m.ErrorCode
				}
			}
		}
		return r.ErrorCode
	case *SyncGroupResponse:
		return r.ErrorCode
	case *InitProducerIDResponse:
		return r.ErrorCode
	case *AddPartitionsToTxnResponse:
		return r.ErrorCode
	case *AddOffsetsToTxnResponse:
		return r.ErrorCode
	case *EndTxnResponse:
		return r.ErrorCode
	case *WriteTxnMarkersResponse:
		return r.ErrorCode
	case *TxnOffsetCommitResponse:
		return r.ErrorCode
	case *ConsumerGroupHeartbeatResponse:
		return r.ErrorCode
	case *ShareGroupHeartbeatResponse:
		return r.ErrorCode
	case *ShareFetchResponse, *ShareAcknowledgeResponse:
		return shareErrorOf(r)
	}
	return kafka.NONE
}

// shareErrorOf is ErrorOf for the share APIs (KIP-932): the request's
// error, else a partition's, so the first refused acknowledgement shows.
func shareErrorOf(m kafka.Message) kafka.ErrorCode {
	switch r := m.(type) {
	case *ShareFetchResponse:
		// the request's error, else a partition's: the first refused acknowledgement shows
		if r.ErrorCode != kafka.NONE {
			return r.ErrorCode
		}
		for _, p := range r.Responses {
			if p.ErrorCode != kafka.NONE {
				return p.ErrorCode
			}
			if p.AcknowledgeErrorCode != kafka.NONE {
				return p.AcknowledgeErrorCode
			}
		}
	case *ShareAcknowledgeResponse:
		if r.ErrorCode != kafka.NONE {
			return r.ErrorCode
		}
		for _, p := range r.Responses {
			if p.ErrorCode != kafka.NONE {
				return p.ErrorCode
			}
		}
	}
	return kafka.NONE
}

// ProducerOf returns the producer id and epoch a message is about (0 if none).
func ProducerOf(m kafka.Message) (pid int64, epoch int) {
	switch r := m.(type) {
	case *ProduceRequest:
		return r.Batch.ProducerID, r.Batch.ProducerEpoch
	case *AddPartitionsToTxnRequest:
		return r.ProducerID, r.ProducerEpoch
	case *AddOffsetsToTxnRequest:
		return r.ProducerID, r.ProducerEpoch
	case *EndTxnRequest:
		return r.ProducerID, r.ProducerEpoch
	case *TxnOffsetCommitRequest:
		return r.ProducerID, r.ProducerEpoch
	case *WriteTxnMarkersRequest:
		return r.ProducerID, r.ProducerEpoch
	case *WriteTxnMarkersResponse:
		return r.ProducerID, r.ProducerEpoch
	case *InitProducerIDResponse:
		return r.ProducerID, r.ProducerEpoch
	}
	return 0, 0
}
