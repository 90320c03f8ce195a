package fold

import (
	"slices"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// InFlightStates lists the states of an in-flight record (KIP-932, Kafka's
// SharePartition.RecordState) in the order a record goes through them.
var InFlightStates = []kafka.ShareRecordState{kafka.RecordAvailable, kafka.RecordAcquired, kafka.RecordAcknowledged, kafka.RecordArchived}

// InFlightSpan is a stretch of ticks [Start, End) in which an in-flight record
// stayed in one state: acquired by Member (its delivery Delivery), available
// again, or done (acknowledged, archived: the last span, up to Now+1).
type InFlightSpan struct {
	Start, End int
	State      kafka.ShareRecordState
	Member     string // the holder while ACQUIRED; the last holder otherwise
	Delivery   int    // the record's delivery count in this span
}

// InFlightMoment is what ended an acquisition: the holder's acknowledgement
// (ACCEPT, RELEASE, REJECT), its acquisition lock timing out, its share
// session closing, or the delivery count limit archiving the record.
type InFlightMoment struct {
	Tick     int
	Member   string                 // the member that held the record
	Reason   event.Reason           // ReasonLockTimeout, ReasonAcknowledgeRelease, ...; "" for an ACCEPT
	State    kafka.ShareRecordState // the state it led to
	Delivery int
}

// InFlightRecord is one record of a share-partition that was ever in flight:
// its spans, tick by tick, and the moments its acquisitions ended.
type InFlightRecord struct {
	Group     string // the share group
	Partition string // the short name, "o0"
	Offset    int
	Record    string // "o0.3"
	Spans     []InFlightSpan
	Moments   []InFlightMoment
}

// State returns the record's last state.
func (r InFlightRecord) State() kafka.ShareRecordState {
	if len(r.Spans) == 0 {
		return kafka.RecordAvailable
	}
	return r.Spans[len(r.Spans)-1].State
}

// Deliveries returns the record's delivery count at the end.
func (r InFlightRecord) Deliveries() int {
	if len(r.Spans) == 0 {
		return 0
	}
	return r.Spans[len(r.Spans)-1].Delivery
}

// StartOffsetMove is a move of a share-partition's start offset (SPSO),
// past records that are acknowledged or archived.
type StartOffsetMove struct {
	Tick      int
	Partition string
	Offset    int
}

// ShareWindow is the in-flight window of a world's share-partitions: every
// record that was ever acquired, in partition and offset order, and the
// start offset's moves.
type InFlightWindow struct {
	Records      []InFlightRecord
	StartOffsets []StartOffsetMove
}

// InFlight replays the share-partition events (EvShareAcquired,
// EvShareAcknowledged, EvShareReleased, EvShareArchived,
// EvShareStartOffset) into each record's states over time. parts limits it
// to those partitions (nil: every partition that had a record in flight).
// Records of several share groups are kept apart (Group: the events' Text).
func (f *Fold) InFlight(parts []string) InFlightWindow {
	var steps []shareStep
	var win InFlightWindow
	for _, e := range f.src.Events() {
		if parts != nil && !slices.Contains(parts, e.Partition) {
			continue
		}
		if e.Type == event.EvShareStartOffset {
			win.StartOffsets = append(win.StartOffsets, StartOffsetMove{e.Tick, e.Partition, e.Offset})
			continue
		}
		if c, ok := shareChangeOf(e); ok {
			steps = append(steps, shareStep{group: e.Text(), ShareChange: c})
		}
	}
	win.Records = inFlightRecords(steps, f.src.Now()+1)
	if parts != nil {
		slices.SortStableFunc(win.Records, func(a, b InFlightRecord) int {
			return slices.Index(parts, a.Partition) - slices.Index(parts, b.Partition)
		})
	}
	return win
}

// shareStep is one change of an in-flight record's state, of a share group.
type shareStep struct {
	group string
	ShareChange
}

// shareRecords folds the steps (in event order) into records, sorted by
// partition name and offset; the last span of each ends at end.
func inFlightRecords(steps []shareStep, end int) []InFlightRecord {
	type key struct {
		group, part string
		offset      int
	}
	index := map[key]int{}
	var out []InFlightRecord
	for _, s := range steps {
		k := key{s.group, s.Partition, s.Offset}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, InFlightRecord{Group: s.group, Partition: s.Partition, Offset: s.Offset, Record: s.Record})
		}
		r := &out[i]
		member := s.Member
		if n := len(r.Spans); n > 0 {
			last := &r.Spans[n-1]
			last.End = s.Tick
			if last.State == kafka.RecordAcquired && s.State != kafka.RecordAcquired {
				r.Moments = append(r.Moments, InFlightMoment{Tick: s.Tick, Member: last.Member, Reason: s.Reason, State: s.State, Delivery: s.DeliveryCount})
			}
			if member == "" {
				member = last.Member
			}
			if last.Start == s.Tick && last.State != kafka.RecordAcquired {
				// two changes in one tick (a release at the delivery limit
				// archives): keep the last
				r.Spans = r.Spans[:n-1]
			}
		}
		r.Spans = append(r.Spans, InFlightSpan{Start: s.Tick, End: end, State: s.State, Member: member, Delivery: s.DeliveryCount})
	}
	slices.SortStableFunc(out, func(a, b InFlightRecord) int {
		if a.Group != b.Group {
			if a.Group < b.Group {
				return -1
			}
			return 1
		}
		if a.Partition != b.Partition {
			if a.Partition < b.Partition {
				return -1
			}
			return 1
		}
		return a.Offset - b.Offset
	})
	return out
}

// ShareMembers returns the share groups' members (KIP-932): member name ->
// share group id, from the coordinator's EvMemberAdded of a share group
// (Assignor "simple", the group id as Text). A world's other members are in
// its consumer group.
func (f *Fold) ShareMembers() map[string]string {
	out := map[string]string{}
	for _, e := range f.src.Events() {
		if e.Type == event.EvMemberAdded && e.Text() != "" {
			out[e.Member] = e.Text()
		}
	}
	return out
}
