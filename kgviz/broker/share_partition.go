package broker

import (
	"github.com/kgviz/kgviz/kgviz/clock"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// SharePartition is one partition as a share group reads it, on the
// partition's leader (KIP-932; Kafka's kafka.server.share.SharePartition):
// the share-partition start offset (SPSO), the in-flight records after it,
// each with its state, delivery count, holder and acquisition lock, and the
// end offset (SPEO) of the records acquired so far.
//
// The rules are SharePartition's:
//   - acquire: AVAILABLE -> ACQUIRED for one member, the delivery count +1,
//     under a lock of share.record.lock.duration.ms; the AVAILABLE in-flight
//     records first (lowest offset first), then records after SPEO, at most
//     group.share.partition.max.record.locks in flight;
//   - acknowledge (the holder only, while ACQUIRED, else INVALID_RECORD_STATE
//     and nothing changes): ACCEPT -> ACKNOWLEDGED, RELEASE -> AVAILABLE,
//     REJECT -> ARCHIVED; offsets below SPSO are skipped without an error
//     ("already archived");
//   - a release (RELEASE, the lock timing out, the member's share session
//     closing) of a record whose delivery count reached
//     share.delivery.count.limit archives it (InFlightState.tryUpdateState);
//   - SPSO moves past the records that are ACKNOWLEDGED or ARCHIVED
//     (maybeUpdateCachedStateAndOffsets).
type SharePartition struct {
	b     *Broker
	group string
	tp    kafka.TopicPartition
	name  string // the partition's short name in events
	cfg   ShareGroupConfig

	startOffset int               // SPSO
	inFlight    []*InFlightRecord // the records from SPSO on, by offset - SPSO
}

// InFlightRecord is one in-flight record of a share-partition (SharePartition.InFlightState).
type InFlightRecord struct {
	Offset        int
	Record        string
	State         kafka.ShareRecordState
	DeliveryCount int
	MemberID      string // the holder's member id while ACQUIRED ("" otherwise)
	Holder        string // the holder's client id ("C1") while ACQUIRED
	LockDeadline  int    // the tick its acquisition lock expires, while ACQUIRED
	lock          *clock.Timer
}

func newSharePartition(b *Broker, group string, tp kafka.TopicPartition, cfg ShareGroupConfig) *SharePartition {
	sp := &SharePartition{b: b, group: group, tp: tp, name: b.pname(tp), cfg: cfg}
	if cfg.AutoOffsetReset == "latest" {
		// share.auto.offset.reset=latest: the share-partition starts at the
		// log's end when it is first initialised (SharePartition.initialize).
		sp.startOffset = b.logs[tp].HighWatermark()
		if sp.startOffset != 0 {
			b.record(event.Event{Type: event.EvShareStartOffset, Member: b.name, Partition: sp.name, Offset: sp.startOffset}.WithText(group))
		}
	}
	return sp
}

// StartOffset is the share-partition start offset (SPSO): every record
// before it is ACKNOWLEDGED or ARCHIVED.
func (sp *SharePartition) StartOffset() int { return sp.startOffset }

// EndOffset is the share-partition end offset (SPEO, SharePartition.endOffset):
// the last offset acquired so far, or SPSO when nothing is in flight.
func (sp *SharePartition) EndOffset() int {
	if len(sp.inFlight) == 0 {
		return sp.startOffset
	}
	return sp.startOffset + len(sp.inFlight) - 1
}

// InFlight returns a copy of the in-flight records, by offset.
func (sp *SharePartition) InFlight() []InFlightRecord {
	out := make([]InFlightRecord, len(sp.inFlight))
	for i, r := range sp.inFlight {
		out[i] = *r
		out[i].lock = nil
	}
	return out
}

// Group is the share group's id; TopicPartition the partition.
func (sp *SharePartition) Group() string                        { return sp.group }
func (sp *SharePartition) TopicPartition() kafka.TopicPartition { return sp.tp }

func (sp *SharePartition) event(typ event.Type, r *InFlightRecord, holder, memberID string, reason event.Reason) {
	e := event.Event{Type: typ, Member: holder, MemberID: memberID, Partition: sp.name, Offset: r.Offset, Record: r.Record,
		Count: r.DeliveryCount, Reason: reason}
	if typ == event.EvShareAcquired {
		e.Ticks = sp.cfg.RecordLockDuration
	}
	sp.b.record(e.WithText(sp.group))
}

// acquire acquires at most max records for the member (SharePartition.acquire).
func (sp *SharePartition) acquire(memberID, holder string, max int) []AcquiredRecords {
	var out []AcquiredRecords
	take := func(r *InFlightRecord) {
		r.State, r.DeliveryCount, r.MemberID, r.Holder = kafka.RecordAcquired, r.DeliveryCount+1, memberID, holder
		r.LockDeadline = sp.b.clock.Now() + sp.cfg.RecordLockDuration
		rec := r
		r.lock = sp.b.clock.Schedule(r.LockDeadline, "share lock "+sp.group+" "+sp.name, func() { sp.lockTimedOut(rec) })
		sp.event(event.EvShareAcquired, r, holder, memberID, "")
		out = append(out, AcquiredRecords{FirstOffset: r.Offset, LastOffset: r.Offset, DeliveryCount: r.DeliveryCount, Record: r.Record})
	}
	for _, r := range sp.inFlight {
		if len(out) >= max {
			return out
		}
		if r.State == kafka.RecordAvailable {
			take(r)
		}
	}
	l := sp.b.logs[sp.tp]
	for off := sp.startOffset + len(sp.inFlight); off < l.HighWatermark() && len(out) < max && len(sp.inFlight) < sp.cfg.PartitionMaxRecordLocks; off++ {
		r := &InFlightRecord{Offset: off, Record: l.records[off].Record, State: kafka.RecordAvailable}
		sp.inFlight = append(sp.inFlight, r)
		take(r)
	}
	return out
}

// record returns the in-flight record at off, or nil.
func (sp *SharePartition) record(off int) *InFlightRecord {
	if i := off - sp.startOffset; i >= 0 && i < len(sp.inFlight) {
		return sp.inFlight[i]
	}
	return nil
}

// acknowledge applies a member's acknowledgements of this partition, all or
// none (SharePartition.acknowledge rolls back on an error): every
// acknowledged record from SPSO on must be ACQUIRED by the member, else
// INVALID_RECORD_STATE. An offset below SPSO is skipped and is no error: its
// record was already ACKNOWLEDGED or ARCHIVED, by this member or another
// (SharePartition.acknowledge: "All offsets in the acknowledgement batch are
// already archived", and acknowledgeBatchRecords / acknowledgePerOffsetBatchRecords
// skip offsets below startOffset; Kafka 4.1.1 and 4.4.0). So a stalled
// member's late ACCEPT of a record another member has since acknowledged
// fails while that record is still in flight (an earlier offset not yet
// final) and succeeds silently once SPSO has moved past it.
func (sp *SharePartition) acknowledge(memberID string, batches []AcknowledgementBatch) kafka.ErrorCode {
	for _, b := range batches {
		if b.FirstOffset > b.LastOffset || len(b.AcknowledgeTypes) == 0 {
			return kafka.INVALID_REQUEST
		}
		for off := max(b.FirstOffset, sp.startOffset); off <= b.LastOffset; off++ {
			r := sp.record(off)
			if r == nil || r.State != kafka.RecordAcquired || r.MemberID != memberID {
				return kafka.INVALID_RECORD_STATE // "Member is not the owner of offset", or not in the acquired state
			}
		}
	}
	for _, b := range batches {
		for off := max(b.FirstOffset, sp.startOffset); off <= b.LastOffset; off++ {
			t := b.AcknowledgeTypes[0]
			if i := off - b.FirstOffset; i < len(b.AcknowledgeTypes) {
				t = b.AcknowledgeTypes[i]
			}
			r := sp.record(off)
			switch t {
			case kafka.Accept:
				sp.finish(r, kafka.RecordAcknowledged, "")
			case kafka.Reject:
				sp.finish(r, kafka.RecordArchived, event.ReasonAcknowledgeReject)
			default:
				sp.release(r, event.ReasonAcknowledgeRelease)
			}
		}
	}
	sp.advance()
	return kafka.NONE
}

// finish moves an acquired record to a final state.
func (sp *SharePartition) finish(r *InFlightRecord, s kafka.ShareRecordState, reason event.Reason) {
	holder, memberID := r.Holder, r.MemberID
	r.lock.Stop()
	r.State, r.MemberID, r.Holder, r.LockDeadline, r.lock = s, "", "", 0, nil
	if s == kafka.RecordAcknowledged {
		sp.event(event.EvShareAcknowledged, r, holder, memberID, "")
	} else {
		sp.event(event.EvShareArchived, r, holder, memberID, reason)
	}
}

// release gives an acquired record back: AVAILABLE, or ARCHIVED once its
// delivery count reached share.delivery.count.limit.
func (sp *SharePartition) release(r *InFlightRecord, reason event.Reason) {
	if r.DeliveryCount >= sp.cfg.DeliveryCountLimit {
		sp.finish(r, kafka.RecordArchived, event.ReasonDeliveryLimit)
		return
	}
	holder, memberID := r.Holder, r.MemberID
	r.lock.Stop()
	r.State, r.MemberID, r.Holder, r.LockDeadline, r.lock = kafka.RecordAvailable, "", "", 0, nil
	sp.event(event.EvShareReleased, r, holder, memberID, reason)
}

// lockTimedOut is the acquisition lock's timer
// (SharePartition.releaseAcquisitionLockOnTimeout).
func (sp *SharePartition) lockTimedOut(r *InFlightRecord) {
	if r.State != kafka.RecordAcquired {
		return
	}
	r.lock = nil
	sp.release(r, event.ReasonLockTimeout)
	sp.advance()
}

// releaseMember releases every record the member holds (its share session
// closed, or its connection: SharePartitionManager.releaseSession).
func (sp *SharePartition) releaseMember(memberID string, reason event.Reason) {
	for _, r := range sp.inFlight {
		if r.State == kafka.RecordAcquired && r.MemberID == memberID {
			sp.release(r, reason)
		}
	}
	sp.advance()
}

// advance moves SPSO past the final records at the start.
func (sp *SharePartition) advance() {
	n := 0
	for n < len(sp.inFlight) && sp.inFlight[n].State.Final() {
		n++
	}
	if n == 0 {
		return
	}
	old := sp.startOffset
	sp.startOffset += n
	clear(sp.inFlight[:n])
	sp.inFlight = sp.inFlight[n:]
	if len(sp.inFlight) == 0 {
		sp.inFlight = nil
	}
	sp.b.record(event.Event{Type: event.EvShareStartOffset, Member: sp.b.name, Partition: sp.name, Offset: sp.startOffset, Count: old}.
		WithText(sp.group))
}
