package broker

import (
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// JoinGroup (API key 11): a member asks to join the group's next generation
// with the protocols (assignors) it supports, in order of preference, and
// its timeouts.

// ConsumerProtocolSubscription is the metadata a consumer sends with each
// protocol (ConsumerProtocol's Subscription). The coordinator never looks
// inside it: it hands it to the leader.
type ConsumerProtocolSubscription struct {
	Topics          []string               // subscribed topics, sorted
	OwnedPartitions []kafka.TopicPartition // cooperative members: what they own (KIP-429)
	// GenerationID is the consumer's generation when it sends JoinGroup
	// (Kafka's Subscription.generationId); -1 for a new member or one whose
	// generation was reset.
	GenerationID int
	// UserData carries the eager sticky assignor's previous assignment
	// (AbstractStickyAssignor's user data).
	UserData []kafka.TopicPartition
	// OwnedGenerationID is kgviz's, not Kafka's: the generation
	// OwnedPartitions (or UserData) were assigned in, -1 for none. It differs
	// from GenerationID when the last assignment is older than the
	// generation the member holds (a SyncGroup that failed). Kafka's eager
	// sticky assignor keeps it in its user data.
	OwnedGenerationID int
}

// equal compares the metadata as the coordinator does to decide whether a
// rejoining member changed it (Kafka compares the bytes): everything but the
// join generation, which changes with every generation.
func (s ConsumerProtocolSubscription) equal(o ConsumerProtocolSubscription) bool {
	return equalStrings(s.Topics, o.Topics) && equalTPs(s.OwnedPartitions, o.OwnedPartitions) &&
		s.OwnedGenerationID == o.OwnedGenerationID && equalTPs(s.UserData, o.UserData)
}

// JoinGroupProtocol is one protocol (assignor) a member supports.
type JoinGroupProtocol struct {
	Name     string
	Metadata ConsumerProtocolSubscription
}

func (p JoinGroupProtocol) equal(o JoinGroupProtocol) bool {
	return p.Name == o.Name && p.Metadata.equal(o.Metadata)
}

// JoinGroupRequest asks to join a group.
type JoinGroupRequest struct {
	GroupID          string
	SessionTimeout   int // session.timeout.ms
	RebalanceTimeout int // max.poll.interval.ms
	MemberID         string
	GroupInstanceID  string // group.instance.id (KIP-345); "" for a dynamic member
	ProtocolType     string // "consumer"
	Protocols        []JoinGroupProtocol
	Reason           string
}

// JoinGroupMember is one member as the leader learns it.
type JoinGroupMember struct {
	MemberID        string
	GroupInstanceID string
	Metadata        ConsumerProtocolSubscription
}

// JoinGroupResponse ends the join phase for one member.
type JoinGroupResponse struct {
	ErrorCode      kafka.ErrorCode
	GenerationID   int
	ProtocolType   string
	ProtocolName   string
	Leader         string
	SkipAssignment bool // a static leader replaced in Stable (KIP-814)
	MemberID       string
	Members        []JoinGroupMember // only for the leader
}

func (*JoinGroupRequest) Key() kafka.APIKey  { return kafka.JoinGroup }
func (*JoinGroupResponse) Key() kafka.APIKey { return kafka.JoinGroup }
func (*JoinGroupRequest) IsResponse() bool   { return false }
func (*JoinGroupResponse) IsResponse() bool  { return true }

func (r *JoinGroupRequest) String() string {
	s := "member=" + orNone(r.MemberID)
	if r.GroupInstanceID != "" {
		s += " instance=" + r.GroupInstanceID
	}
	names := make([]string, len(r.Protocols))
	for i, p := range r.Protocols {
		names[i] = p.Name
	}
	s += " protocol=" + strings.Join(names, ",")
	if len(r.Protocols) > 0 {
		md := r.Protocols[0].Metadata
		owned := md.OwnedPartitions
		if len(owned) == 0 {
			owned = md.UserData
		}
		if len(owned) > 0 {
			s += " owned=[" + tpsString(owned) + "]"
		}
	}
	return s
}

func (r *JoinGroupResponse) String() string {
	if r.ErrorCode != kafka.NONE {
		return ""
	}
	s := "member=" + r.MemberID + " leader=" + r.Leader
	if len(r.Members) > 0 {
		ids := make([]string, len(r.Members))
		for i, m := range r.Members {
			ids[i] = m.MemberID
		}
		s += " members=[" + strings.Join(ids, " ") + "]"
	}
	if r.SkipAssignment {
		s += " skipAssignment"
	}
	return s
}

func tpsString(tps []kafka.TopicPartition) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	return strings.Join(s, " ")
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalTPs(a, b []kafka.TopicPartition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// handleJoinGroup finds or creates the group and lets it handle the join. A
// member id for a group that does not exist is unknown.
func (gc *GroupCoordinator) handleJoinGroup(env *Envelope, req *JoinGroupRequest) {
	if g := gc.Consumer(req.GroupID); g != nil {
		// A classic member and a consumer group (KIP-848): an empty consumer
		// group becomes a classic one; one with members is refused, as Kafka
		// refuses a classic member it cannot take in (kgviz does not model
		// the online migration between the protocols: docs/simplifications.md).
		if g.Size() > 0 {
			gc.b.reply(env, 0, &JoinGroupResponse{ErrorCode: kafka.INCONSISTENT_GROUP_PROTOCOL, MemberID: req.MemberID})
			return
		}
		gc.deleteGroup(req.GroupID)
	}
	if gc.groups[req.GroupID] == nil && req.MemberID != "" {
		gc.b.reply(env, 0, &JoinGroupResponse{ErrorCode: kafka.UNKNOWN_MEMBER_ID, MemberID: req.MemberID})
		return
	}
	gc.classicGroup(req.GroupID).handleJoin(env, req)
}

func encodeSubscription(e *event.Encoder, s ConsumerProtocolSubscription) {
	e.Strings(s.Topics)
	e.Partitions(s.OwnedPartitions)
	e.Int(s.GenerationID)
	e.Partitions(s.UserData)
	e.Int(s.OwnedGenerationID)
}

func decodeSubscription(d *event.Decoder) ConsumerProtocolSubscription {
	return ConsumerProtocolSubscription{Topics: d.Strings(), OwnedPartitions: d.Partitions(), GenerationID: d.Int(), UserData: d.Partitions(),
		OwnedGenerationID: d.Int()}
}

func (r *JoinGroupRequest) Encode(e *event.Encoder) {
	e.String(r.GroupID)
	e.Int(r.SessionTimeout)
	e.Int(r.RebalanceTimeout)
	e.String(r.MemberID)
	e.String(r.GroupInstanceID)
	e.String(r.ProtocolType)
	e.Int(len(r.Protocols))
	for _, p := range r.Protocols {
		e.String(p.Name)
		encodeSubscription(e, p.Metadata)
	}
	e.String(r.Reason)
}

func (r *JoinGroupResponse) Encode(e *event.Encoder) {
	e.Int(int(r.ErrorCode))
	e.Int(r.GenerationID)
	e.String(r.ProtocolType)
	e.String(r.ProtocolName)
	e.String(r.Leader)
	e.Bool(r.SkipAssignment)
	e.String(r.MemberID)
	e.Int(len(r.Members))
	for _, m := range r.Members {
		e.String(m.MemberID)
		e.String(m.GroupInstanceID)
		encodeSubscription(e, m.Metadata)
	}
}

func init() {
	event.RegisterDecoder(kafka.JoinGroup, false, func(d *event.Decoder) kafka.Message {
		r := &JoinGroupRequest{GroupID: d.String(), SessionTimeout: d.Int(), RebalanceTimeout: d.Int(), MemberID: d.String(),
			GroupInstanceID: d.String(), ProtocolType: d.String()}
		if n := d.Int(); n > 0 {
			r.Protocols = make([]JoinGroupProtocol, n)
			for i := range r.Protocols {
				r.Protocols[i] = JoinGroupProtocol{Name: d.String(), Metadata: decodeSubscription(d)}
			}
		}
		r.Reason = d.String()
		return r
	})
	event.RegisterDecoder(kafka.JoinGroup, true, func(d *event.Decoder) kafka.Message {
		r := &JoinGroupResponse{ErrorCode: kafka.ErrorCode(d.Int()), GenerationID: d.Int(), ProtocolType: d.String(), ProtocolName: d.String(),
			Leader: d.String(), SkipAssignment: d.Bool(), MemberID: d.String()}
		if n := d.Int(); n > 0 {
			r.Members = make([]JoinGroupMember, n)
			for i := range r.Members {
				r.Members[i] = JoinGroupMember{MemberID: d.String(), GroupInstanceID: d.String(), Metadata: decodeSubscription(d)}
			}
		}
		return r
	})
}
