package fold

import (
	"sort"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Share groups (KIP-932): the share-partitions' state, replayed from the
// broker's share events (EvShareAcquired, EvShareAcknowledged,
// EvShareReleased, EvShareArchived, EvShareStartOffset), which carry the
// share group's id as their Text.

// SharePartitionState is one share group's share-partition at one tick
// (Kafka's SharePartition): the start offset (SPSO), the end offset (SPEO:
// the last offset acquired so far, SPSO when nothing is in flight) and the
// in-flight records from SPSO on, by offset.
type SharePartitionState struct {
	Group       string
	Partition   string // the partition's short name ("t0")
	StartOffset int    // SPSO
	EndOffset   int    // SPEO
	Records     []ShareRecord
}

// ShareRecord is one in-flight record of a share-partition.
type ShareRecord struct {
	Offset        int
	Record        string
	State         kafka.ShareRecordState
	DeliveryCount int
	Holder        string // the member holding it while ACQUIRED ("" otherwise)
	MemberID      string
	LockDeadline  int // the tick its acquisition lock expires, while ACQUIRED (0 otherwise)
}

// Available, Acquired, Acknowledged and Archived count the in-flight records by state.
func (s SharePartitionState) count(st kafka.ShareRecordState) int {
	n := 0
	for _, r := range s.Records {
		if r.State == st {
			n++
		}
	}
	return n
}

func (s SharePartitionState) Available() int    { return s.count(kafka.RecordAvailable) }
func (s SharePartitionState) Acquired() int     { return s.count(kafka.RecordAcquired) }
func (s SharePartitionState) Acknowledged() int { return s.count(kafka.RecordAcknowledged) }
func (s SharePartitionState) Archived() int     { return s.count(kafka.RecordArchived) }

// Record returns the in-flight record at offset off, if any.
func (s SharePartitionState) Record(off int) (ShareRecord, bool) {
	for _, r := range s.Records {
		if r.Offset == off {
			return r, true
		}
	}
	return ShareRecord{}, false
}

func isShareEvent(t event.Type) bool {
	switch t {
	case event.EvShareAcquired, event.EvShareAcknowledged, event.EvShareReleased, event.EvShareArchived, event.EvShareStartOffset:
		return true
	}
	return false
}

// SharePartitionAt replays group's share-partition of partition (a short
// name) up to the end of tick tick.
func (f *Fold) SharePartitionAt(group, partition string, tick int) SharePartitionState {
	st := SharePartitionState{Group: group, Partition: partition}
	recs := map[int]*ShareRecord{}
	for _, e := range f.src.Events() {
		if e.Tick > tick {
			break
		}
		if !isShareEvent(e.Type) || e.Partition != partition || e.Text() != group {
			continue
		}
		if e.Type == event.EvShareStartOffset {
			st.StartOffset = e.Offset
			for off := range recs {
				if off < e.Offset {
					delete(recs, off)
				}
			}
			continue
		}
		r := recs[e.Offset]
		if r == nil {
			r = &ShareRecord{Offset: e.Offset, Record: e.Record}
			recs[e.Offset] = r
		}
		r.DeliveryCount = e.Count
		r.Holder, r.MemberID, r.LockDeadline = "", "", 0
		switch e.Type {
		case event.EvShareAcquired:
			r.State, r.Holder, r.MemberID, r.LockDeadline = kafka.RecordAcquired, e.Member, e.MemberID, e.Tick+e.Ticks
		case event.EvShareAcknowledged:
			r.State = kafka.RecordAcknowledged
		case event.EvShareReleased:
			r.State = kafka.RecordAvailable
		case event.EvShareArchived:
			r.State = kafka.RecordArchived
		}
	}
	st.EndOffset = st.StartOffset
	for off, r := range recs {
		st.Records = append(st.Records, *r)
		if off > st.EndOffset {
			st.EndOffset = off
		}
	}
	sort.Slice(st.Records, func(i, j int) bool { return st.Records[i].Offset < st.Records[j].Offset })
	return st
}

// ShareRecordHistory is what became of one record in a share group: its
// last state and delivery count, the members that acquired it, in turn,
// and the member whose ACCEPT acknowledged it.
type ShareRecordHistory struct {
	Partition      string
	Offset         int
	Record         string
	State          kafka.ShareRecordState
	DeliveryCount  int
	AcquiredBy     []string
	AcknowledgedBy string
	Reason         event.Reason // why it was last released or archived ("" if it never was)
}

// ShareRecords returns the history of every record share group group
// acquired, by partition (in the source's order) and offset.
func (f *Fold) ShareRecords(group string) []ShareRecordHistory {
	type key struct {
		part string
		off  int
	}
	byKey := map[key]*ShareRecordHistory{}
	var order []key
	for _, e := range f.src.Events() {
		if !isShareEvent(e.Type) || e.Type == event.EvShareStartOffset || e.Text() != group {
			continue
		}
		k := key{e.Partition, e.Offset}
		h := byKey[k]
		if h == nil {
			h = &ShareRecordHistory{Partition: e.Partition, Offset: e.Offset, Record: e.Record}
			byKey[k] = h
			order = append(order, k)
		}
		h.DeliveryCount = e.Count
		switch e.Type {
		case event.EvShareAcquired:
			h.State = kafka.RecordAcquired
			h.AcquiredBy = append(h.AcquiredBy, e.Member)
		case event.EvShareAcknowledged:
			h.State, h.AcknowledgedBy = kafka.RecordAcknowledged, e.Member
		case event.EvShareReleased:
			h.State, h.Reason = kafka.RecordAvailable, e.Reason
		case event.EvShareArchived:
			h.State, h.Reason = kafka.RecordArchived, e.Reason
		}
	}
	parts := map[string]int{}
	for i, p := range f.src.Partitions() {
		parts[p] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].part != order[j].part {
			return parts[order[i].part] < parts[order[j].part]
		}
		return order[i].off < order[j].off
	})
	out := make([]ShareRecordHistory, len(order))
	for i, k := range order {
		out[i] = *byKey[k]
	}
	return out
}

// ShareChange is one change of a share-partition record's state, in order:
// what a chart of the in-flight window draws.
type ShareChange struct {
	Tick          int
	Partition     string
	Offset        int
	Record        string
	State         kafka.ShareRecordState // the state it entered
	DeliveryCount int
	Member        string       // the member that acquired it, or held it until now
	LockDeadline  int          // when it entered ACQUIRED: the tick its lock expires
	Reason        event.Reason // a release's or an archive's reason
}

// ShareChanges lists, in order, every change of state of group's records
// on partition (a short name; "" for every partition).
func (f *Fold) ShareChanges(group, partition string) []ShareChange {
	var out []ShareChange
	for _, e := range f.src.Events() {
		if e.Text() != group || partition != "" && e.Partition != partition {
			continue
		}
		if c, ok := shareChangeOf(e); ok {
			out = append(out, c)
		}
	}
	return out
}

// shareChangeOf is the one reading of a share-partition record's change of
// state from its event (ShareChanges, InFlight); false for any other event
// (EvShareStartOffset included: not a record's change).
func shareChangeOf(e event.Event) (ShareChange, bool) {
	c := ShareChange{Tick: e.Tick, Partition: e.Partition, Offset: e.Offset, Record: e.Record, DeliveryCount: e.Count, Member: e.Member, Reason: e.Reason}
	switch e.Type {
	case event.EvShareAcquired:
		c.State, c.LockDeadline = kafka.RecordAcquired, e.Tick+e.Ticks
	case event.EvShareAcknowledged:
		c.State = kafka.RecordAcknowledged
	case event.EvShareReleased:
		c.State = kafka.RecordAvailable
	case event.EvShareArchived:
		c.State = kafka.RecordArchived
	default:
		return c, false
	}
	return c, true
}
