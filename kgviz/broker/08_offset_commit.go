package broker

import (
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// OffsetCommit (API key 8): a member commits its consumed positions for the
// group, fenced by member id and generation.

// OffsetCommitRequest commits offsets for a group.
type OffsetCommitRequest struct {
	GroupID string
	// GenerationID is Kafka's GenerationIdOrMemberEpoch: the classic
	// generation, or the member epoch of a consumer group member (KIP-848);
	// -1 for a commit outside a group.
	GenerationID    int
	MemberID        string
	GroupInstanceID string
	Offsets         []PartitionOffset
}

// OffsetCommitResponse answers an OffsetCommit. Kafka answers per partition;
// the simulation's commits succeed or fail as a whole, so one code is enough.
type OffsetCommitResponse struct {
	ErrorCode kafka.ErrorCode
	Offsets   []PartitionOffset // the offsets the request carried
}

func (*OffsetCommitRequest) Key() kafka.APIKey  { return kafka.OffsetCommit }
func (*OffsetCommitResponse) Key() kafka.APIKey { return kafka.OffsetCommit }
func (*OffsetCommitRequest) IsResponse() bool   { return false }
func (*OffsetCommitResponse) IsResponse() bool  { return true }

func (r *OffsetCommitRequest) String() string {
	return "member=" + orNone(r.MemberID) + " " + offsetsString(r.Offsets)
}

func (r *OffsetCommitResponse) String() string { return offsetsString(r.Offsets) }

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// handleOffsetCommit validates the commit against the group, writes one
// record per partition to __consumer_offsets and makes the offsets committed.
func (gc *GroupCoordinator) handleOffsetCommit(env *Envelope, req *OffsetCommitRequest) {
	code := gc.validateOffsetCommit(req.GroupID, req.MemberID, req.GroupInstanceID, req.GenerationID, false)
	gen := gc.generationOf(req.GroupID, req.MemberID)
	if code == kafka.NONE {
		if g, ok := gc.groups[req.GroupID].(*ClassicGroup); ok {
			g.offsetCommitted(req.MemberID)
		}
		l := gc.OffsetsLog(req.GroupID)
		for _, po := range req.Offsets {
			gc.b.appendRecord(env.From, l, Record{Record: offsetRecordName(req.GroupID, po.Partition, po.Offset), State: StateCommitted})
			gc.commit(req.GroupID, po.Partition, po.Offset, gen, env.From)
		}
	}
	gc.b.reply(env, gen, &OffsetCommitResponse{ErrorCode: code, Offsets: req.Offsets})
}

func (r *OffsetCommitRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.Int(r.GenerationID)
	e.String(r.MemberID)
	e.String(r.GroupInstanceID)
	encodeOffsets(e, r.Offsets)
}

func (r *OffsetCommitResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	encodeOffsets(e, r.Offsets)
}

func init() {
	event.RegisterDecoder(kafka.OffsetCommit, false, func(d *event.Decoder) kafka.Message {
		return &OffsetCommitRequest{GroupID: d.String(), GenerationID: d.Int(), MemberID: d.String(), GroupInstanceID: d.String(), Offsets: decodeOffsets(d)}
	})
	event.RegisterDecoder(kafka.OffsetCommit, true, func(d *event.Decoder) kafka.Message {
		return &OffsetCommitResponse{ErrorCode: kafka.ErrorCode(d.Int()), Offsets: decodeOffsets(d)}
	})
}
