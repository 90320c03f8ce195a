// Package event is kgviz's event model: what a world records, one typed
// Event per request, response and state change, and the Log that keeps them.
//
// Every fact a chart, a meter or an exercise check reads is a typed field of
// Event (API, Error, GroupState, Reason, ...) or a typed payload reached by a
// method (Body, Partitions, Plan). Detail and String render events as text
// for people; nothing is meant to parse them. Zero means "none" everywhere:
// a PID of 0 is no producer (ids start at 1001), a Generation of 0 is no
// generation.
//
// Package kgviz re-exports these names (kgviz.Event, kgviz.EvSend, ...);
// package fold computes every meter from a sequence of events.
package event

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Type says what an Event records.
type Type uint8

// The kinds of event a world records.
const (
	// EvSend: a request or response is put on the wire (From → To, API, Body).
	// It arrives exactly one tick later unless an EvDrop for the same Msg
	// follows. Successful heartbeats are not recorded; an error answer to a
	// heartbeat is.
	EvSend Type = iota + 1
	// EvDrop: a message in flight was lost (Reason ReasonLostInFlight) or its
	// recipient was not running when it arrived (ReasonNotRunning).
	EvDrop
	// EvGroupState: the group coordinator changed state (GroupState,
	// Generation; Assignor is the protocol chosen for the generation).
	EvGroupState
	// EvMemberAdded / EvMemberRemoved: the coordinator's member list changed
	// (Member, MemberID, InstanceID; EvMemberRemoved's Reason says why, Ticks
	// how long the member was silent).
	EvMemberAdded
	EvMemberRemoved
	// EvLeader: the coordinator chose the group leader (Member, MemberID, Generation).
	EvLeader
	// EvAssignorRun: the leader ran the assignor (Assignor); Plan has the plan it sends.
	EvAssignorRun
	// EvAssigned / EvRevoked: a member gained or lost partitions (Partitions,
	// Generation; EvRevoked's Reason says why).
	EvAssigned
	EvRevoked
	// EvPaused / EvResumed: partitions stopped or started being consumed by
	// the group (Partitions; Member is the member that stopped or started).
	EvPaused
	EvResumed
	// EvActivity: what a member's application thread does from this tick on
	// (Activity; Record while processing).
	EvActivity
	// EvFetched: a poll returned a record to the member (Record, Partition, Offset).
	EvFetched
	// EvProcessed: the member finished processing a record (Record, Partition, Offset).
	EvProcessed
	// EvAppend: a record was appended to a log (Partition is the log's name
	// like "invoices-0", Offset, Record, PID, Epoch, Sequence, Transactional).
	EvAppend
	// EvMarker: a transaction marker was appended (Partition, Offset, Control, PID, Epoch, TransactionalID).
	EvMarker
	// EvOffsetCommitted: an offset became committed for the group (Partition short name, Offset).
	EvOffsetCommitted
	// EvTxnState: the transaction coordinator changed a transaction's state
	// (TransactionalID, TxnState, PID, Epoch; Partitions of the transaction).
	EvTxnState
	// EvCommitFailed: the client's commit failed (Error, API, Exception).
	EvCommitFailed
	// EvCrash: the scenario killed a member's process (Reason: how the crash point was given; Count its argument).
	EvCrash
	// EvRestart: the scenario started a new process for a member (Count is the incarnation, InstanceID).
	EvRestart
	// EvClose: the scenario asked a member to close.
	EvClose
	// EvZombie: a member's process keeps running outside the group (Reason says why).
	EvZombie
	// EvPollTimeout: max.poll.interval.ms (Count) expired (Ticks since the last poll);
	// the heartbeat thread leaves the group.
	EvPollTimeout
	// EvSlowStart: the member started a slow record (Record, Ticks it takes).
	EvSlowStart
	// EvConfig: a setting changed (Setting; Assignor with Names for
	// partition.assignment.strategy, Isolation for isolation.level).
	EvConfig
	// EvError: the client raised an error (Error, API, Exception; Fatal ones
	// end the process). API is always set (Produce is API key 0).
	EvError
	// EvRebalance: the coordinator started a rebalance (Reason; MemberID of the member that caused it).
	EvRebalance
	// EvRetry: a producer sent a batch again after request.timeout.ms without an answer (Record, Sequence, Ticks).
	EvRetry
	// EvDuplicate: the partition leader acknowledged a repeated batch with its
	// original offset and wrote nothing (Partition, Offset, Record, PID, Epoch, Sequence).
	EvDuplicate
	// EvFence: the transaction coordinator bumped a producer's epoch and
	// aborts its open transaction (TransactionalID, PID, Epoch; Reason, Ticks).
	EvFence
	// EvAssignmentIncomplete: the leader's assignor left partitions
	// unassigned (Partitions) or returned no plan at all (Reason
	// ReasonNilPlan); Kafka's client logs a warning.
	EvAssignmentIncomplete
	// EvExit: a member's process ended on its own (Reason: ReasonFatal with
	// the Exception, or ReasonZombieDone).
	EvExit
	// EvWorldStopped: the world met an error and stopped (Text is the error);
	// every later call does nothing.
	EvWorldStopped
	// EvMemberEpoch: the group coordinator moved a consumer group member
	// (KIP-848) to another member epoch (Generation; Count is the previous
	// one), or kept it at its epoch and asked it to revoke partitions first
	// (Partitions: the partitions pending revocation). A static member that
	// left for a while is at epoch -2.
	EvMemberEpoch
	// EvProcessFailed: processing a record failed (a poison record,
	// kgviz.WithFailingRecords; Partition, Offset, Record; Count is the
	// attempt, 1, 2, ...).
	EvProcessFailed
	// EvDeadLetter: a member gave up on a record after Count failed attempts
	// and produced it to the dead-letter topic (Text: its partition,
	// "invoices-dlq-0"; Partition, Offset, Record: where it came from).
	EvDeadLetter
	// The share-partition events (KIP-932, Kafka's SharePartition), one per
	// change of an in-flight record's state; each carries the share group's
	// id as its Text, the partition's short name and the record (Partition,
	// Offset, Record) and its delivery count (Count).
	//
	// EvShareAcquired: a ShareFetch acquired the record for a member (Member,
	// MemberID) under a lock of Ticks ticks (AVAILABLE -> ACQUIRED; the
	// delivery count was incremented).
	EvShareAcquired
	// EvShareAcknowledged: the holder acknowledged it with ACCEPT
	// (ACQUIRED -> ACKNOWLEDGED; Member is the holder).
	EvShareAcknowledged
	// EvShareReleased: the record is AVAILABLE again (Reason: the holder's
	// RELEASE, its acquisition lock timed out, or its share session closed;
	// Member is the member that held it).
	EvShareReleased
	// EvShareArchived: the record is ARCHIVED and never delivered again
	// (Reason: the holder's REJECT, or a release at the delivery count limit).
	EvShareArchived
	// EvShareStartOffset: the share-partition start offset (SPSO) moved to
	// Offset, past records that are ACKNOWLEDGED or ARCHIVED (Count is the old one).
	EvShareStartOffset
)

var typeNames = [...]string{
	EvSend: "send", EvDrop: "drop", EvGroupState: "group-state", EvMemberAdded: "member-added",
	EvMemberRemoved: "member-removed", EvLeader: "leader", EvAssignorRun: "assignor",
	EvAssigned: "assigned", EvRevoked: "revoked", EvPaused: "paused", EvResumed: "resumed",
	EvActivity: "activity", EvFetched: "fetched", EvProcessed: "processed", EvAppend: "append",
	EvMarker: "marker", EvOffsetCommitted: "offset-committed", EvTxnState: "txn-state",
	EvCommitFailed: "commit-failed", EvCrash: "crash", EvRestart: "restart", EvClose: "close",
	EvZombie: "zombie", EvPollTimeout: "poll-timeout", EvSlowStart: "slow-start", EvConfig: "config",
	EvError: "error", EvRebalance: "rebalance", EvRetry: "retry", EvDuplicate: "duplicate",
	EvFence: "fence", EvAssignmentIncomplete: "assignment-incomplete", EvExit: "exit",
	EvWorldStopped: "world-stopped", EvMemberEpoch: "member-epoch",
	EvProcessFailed: "process-failed", EvDeadLetter: "dead-letter",
	EvShareAcquired: "share-acquired", EvShareAcknowledged: "share-acknowledged", EvShareReleased: "share-released",
	EvShareArchived: "share-archived", EvShareStartOffset: "share-start-offset",
}

// String returns the event type's short name, e.g. "send".
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Types lists every event type in order.
func Types() []Type {
	out := make([]Type, 0, len(typeNames))
	for t := range typeNames {
		if typeNames[t] != "" {
			out = append(out, Type(t))
		}
	}
	return out
}

// Activity is what a member's application thread is doing (EvActivity).
type Activity string

// The activities of a member's application thread.
const (
	ActivityStarting    Activity = "starting"     // FindCoordinator, InitProducerId
	ActivityJoining     Activity = "joining"      // waiting for the JoinGroup response
	ActivitySyncing     Activity = "syncing"      // waiting for the SyncGroup response
	ActivityOffsetFetch Activity = "offset-fetch" // waiting for committed offsets
	ActivityFetching    Activity = "fetching"     // a Fetch round trip
	ActivityProcessing  Activity = "processing"   // processing Record
	ActivityCommitting  Activity = "committing"   // OffsetCommit, or the transaction's commit
	ActivityRevoking    Activity = "revoking"     // onPartitionsRevoked
	ActivityProducing   Activity = "producing"    // waiting for produce acknowledgements (flush)
	ActivityIdle        Activity = "idle"         // in poll(), nothing to read
	ActivityDead        Activity = "dead"         // crashed, closed or exited
)

// Reason says why something happened (EvMemberRemoved, EvRevoked, EvDrop,
// EvZombie, EvRebalance, EvFence, EvCrash, EvExit, EvAssignmentIncomplete).
type Reason string

// The reasons.
const (
	// EvMemberRemoved
	ReasonSessionTimeout Reason = "session timeout"                             // no heartbeat for session.timeout.ms
	ReasonLeaveGroup     Reason = "LeaveGroup"                                  // the member said goodbye
	ReasonJoinTimeout    Reason = "did not rejoin within the rebalance timeout" // dynamic member missing at join completion
	ReasonSyncTimeout    Reason = "no SyncGroup within the rebalance timeout"   // member missing at sync expiration
	// A consumer group member (KIP-848) that did not revoke its partitions
	// within its rebalance timeout (max.poll.interval.ms) is fenced.
	ReasonRebalanceTimeout Reason = "did not revoke within the rebalance timeout"
	// EvRevoked
	ReasonEagerRevoke       Reason = "eager rebalance: revoke everything before JoinGroup"
	ReasonCooperativeRevoke Reason = "cooperative rebalance: revoke only what moves"
	ReasonReconcileRevoke   Reason = "consumer protocol (KIP-848): the target assignment moved them"
	ReasonLost              Reason = "partitions lost"
	ReasonClose             Reason = "close()"
	// EvDrop
	ReasonLostInFlight Reason = "the answer was lost on the way"
	ReasonNotRunning   Reason = "the recipient is not running"
	// EvZombie
	ReasonPollTimeout Reason = "out of the group after a poll timeout, the application goes on"
	ReasonReplaced    Reason = "replaced by a restart while stuck in a slow record; the old process keeps running"
	// EvRebalance
	ReasonMemberJoined    Reason = "a member joined"
	ReasonMemberLeft      Reason = "a member left the group"
	ReasonMetadataChanged Reason = "a member rejoined with new metadata"
	ReasonLeaderRejoined  Reason = "the leader rejoined"
	ReasonStaticReplaced  Reason = "a static member was replaced during CompletingRebalance"
	// EvFence
	ReasonNewInstance Reason = "a new instance called InitProducerId"
	ReasonTxnTimeout  Reason = "transaction.timeout.ms"
	// EvCrash
	ReasonAfterRecords Reason = "AfterRecords"
	ReasonAtTick       Reason = "AtTick"
	ReasonImmediately  Reason = "Immediately"
	// EvExit
	ReasonFatal      Reason = "fatal error"
	ReasonZombieDone Reason = "the zombie finished its batch and stops"
	// EvAssignmentIncomplete
	ReasonNilPlan    Reason = "the assignor returned no plan"
	ReasonUnassigned Reason = "the assignor left partitions unassigned"
	// EvShareReleased (KIP-932)
	ReasonAcknowledgeRelease Reason = "RELEASE"
	ReasonLockTimeout        Reason = "acquisition lock timeout"
	ReasonShareSessionClosed Reason = "the member's share session closed"
	ReasonConnectionClosed   Reason = "the member's connection closed, its share session released"
	// EvShareArchived (KIP-932)
	ReasonAcknowledgeReject Reason = "REJECT"
	ReasonDeliveryLimit     Reason = "delivery count limit"
	// EvAssigned, EvRevoked of a share consumer (KIP-932)
	ReasonShareAssignment Reason = "share group (KIP-932): the simple assignor moved them"
	// EvCrash: a share consumer's application failed on a poison record in
	// implicit acknowledgement mode (Count is the record's offset)
	ReasonPoisonRecord Reason = "poison record"
)

// Exception is the Java exception a Kafka client would raise (EvCommitFailed, EvError).
type Exception string

// The client exceptions.
const (
	CommitFailedException              Exception = "CommitFailedException"
	RebalanceInProgressException       Exception = "RebalanceInProgressException"
	ProducerFencedException            Exception = "ProducerFencedException"
	FencedInstanceIDException          Exception = "FencedInstanceIdException"
	InconsistentGroupProtocolException Exception = "InconsistentGroupProtocolException"
	InvalidProducerEpochException      Exception = "InvalidProducerEpochException"
	OutOfOrderSequenceException        Exception = "OutOfOrderSequenceException"
	TransactionAbortableException      Exception = "TransactionAbortableException"
	KafkaException                     Exception = "KafkaException"
	// The consumer group protocol's (KIP-848).
	UnreleasedInstanceIDException Exception = "UnreleasedInstanceIdException"
	GroupIDNotFoundException      Exception = "GroupIdNotFoundException"
	UnsupportedAssignorException  Exception = "UnsupportedAssignorException"
	StaleMemberEpochException     Exception = "StaleMemberEpochException"
	// The share group protocol's (KIP-932): an acknowledgement the
	// share-partition refused (INVALID_RECORD_STATE).
	InvalidRecordStateException Exception = "InvalidRecordStateException"
)

var exceptionWhy = map[Exception]string{
	ProducerFencedException:            "a newer instance with the same transactional.id exists; the application closes",
	FencedInstanceIDException:          "another process uses the group.instance.id; the application closes",
	InconsistentGroupProtocolException: "none of its assignors is one every member supports; the application closes",
	TransactionAbortableException:      "the transaction must abort",
	InvalidProducerEpochException:      "the partition saw a newer epoch of this producer",
	OutOfOrderSequenceException:        "the partition expected another sequence number",
	RebalanceInProgressException:       "the group is rebalancing; the commit can be retried after the next poll",
	UnreleasedInstanceIDException:      "the group.instance.id is still held by a member that did not leave; the application closes",
	GroupIDNotFoundException:           "the group is not a consumer group the coordinator can take this member into; the application closes",
	UnsupportedAssignorException:       "the broker has no such group.remote.assignor; the application closes",
	InvalidRecordStateException:        "the record is no longer acquired by this member: its acquisition lock timed out",
}

// Setting names the setting an EvConfig changed.
type Setting string

// The settings a scenario can change while a world runs.
const (
	SettingAssignor  Setting = "partition.assignment.strategy"
	SettingIsolation Setting = "isolation.level"
	// SettingTransactionVersion is the cluster's transaction.version
	// feature (Count), recorded when a world starts with version 2 (KIP-890).
	SettingTransactionVersion Setting = "transaction.version"
)

// Event is one thing that happened at one tick. Fields that do not apply to
// an event's Type are zero.
type Event struct {
	Tick       int
	Type       Type
	Member     string // who: the member's name ("C1"), or "B1" for the broker
	MemberID   string // the group member id ("C1-1"), "" if none
	Generation int    // the generation the event refers to; 0: none

	// EvSend, EvDrop: one message on the wire.
	API      kafka.APIKey
	Response bool
	From, To string // endpoints, "C1" or "B1"
	Msg      int    // message id, unique in a world
	ReplyTo  int    // a response's request id
	Error    kafka.ErrorCode

	// Partitions, logs and records.
	Partition       string // an input partition's short name ("o2") or a log's name ("invoices-0")
	Offset          int
	Record          string // "o2.3", "inv(o2.3)", "billing/orders-2=6"
	PID             int64  // producer id; 0: none
	Epoch           int
	Sequence        int // a produce batch's sequence number (with a PID)
	Transactional   bool
	TransactionalID string
	Control         kafka.ControlType

	// States.
	GroupState kafka.GroupState
	TxnState   kafka.TxnState
	Activity   Activity

	// Why and how.
	Reason     Reason
	Exception  Exception
	Fatal      bool   // EvError: the process ends
	Assignor   string // an assignor's (protocol's) name
	InstanceID string // group.instance.id
	Replaces   string // EvMemberAdded: the member id a static member replaces (KIP-345)
	Ticks      int    // a duration in ticks
	Count      int    // a count: incarnation (EvRestart), crash argument (EvCrash)
	Setting    Setting
	Isolation  kafka.IsolationLevel

	payload any      // kafka.Message, []string, *Plan or string; see Body, Partitions, Plan, Text (or partsPayload)
	parts   []string // the partitions, when payload is partsPayload{} (see WithPartitions)
	stored  *Log     // the log that holds the payload of an event read from it
	at      storedAt // where in it
}

// Plan is what the leader's assignor produced (EvAssignorRun): the plan it
// computed and the one it sent in SyncGroup, by member id, with short
// partition names.
type Plan struct {
	Target     map[string][]string // what the assignor returned
	Withheld   []string            // cooperative: partitions held back until their owner revokes them
	Unassigned []string            // partitions the plan gives to nobody
	Sent       map[string][]string // what the leader sends in SyncGroup
}

// WithBody returns e with the message it carries (EvSend, EvDrop).
func (e Event) WithBody(m kafka.Message) Event { e.SetBody(m); return e }

// SetBody sets the message e carries, in place (WithBody is its copying form).
func (e *Event) SetBody(m kafka.Message) { e.payload, e.stored = m, nil }

// WithPartitions returns e with its partitions (EvAssigned, EvRevoked, EvPaused, ...).
func (e Event) WithPartitions(p []string) Event {
	e.payload, e.parts, e.stored = partsPayload{}, p, nil
	return e
}

// partsPayload is the payload of an event that carries partitions: they are
// in its parts field. Putting a slice in an interface allocates its header
// (24 bytes, a quarter of the events of a rebalance); a value of an empty
// struct type needs no allocation. load and Partitions give the list back;
// everything else about the event is as if the list were its payload.
type partsPayload struct{}

// WithPlan returns e with its plan (EvAssignorRun).
func (e Event) WithPlan(p *Plan) Event { e.payload, e.stored = p, nil; return e }

// WithText returns e with a human-readable text (EvWorldStopped, EvMemberRemoved's LeaveGroup reason).
func (e Event) WithText(s string) Event { e.payload, e.stored = s, nil; return e }

// Body returns the message of an EvSend or EvDrop, or nil.
func (e Event) Body() kafka.Message {
	m, _ := e.load().(kafka.Message)
	return m
}

// Partitions returns the partitions of EvAssigned, EvRevoked, EvPaused,
// EvResumed, EvTxnState and EvAssignmentIncomplete (short names for input
// partitions), or nil.
func (e Event) Partitions() []string {
	if _, ok := e.payload.(partsPayload); ok {
		return e.parts
	}
	p, _ := e.load().([]string)
	return p
}

// Plan returns the plan of an EvAssignorRun, or nil.
func (e Event) Plan() *Plan {
	p, _ := e.load().(*Plan)
	return p
}

// Text returns the human-readable text some events carry (EvWorldStopped's
// error, a LeaveGroup's reason), or "".
func (e Event) Text() string {
	s, _ := e.load().(string)
	return s
}

// Detail renders what the event says beyond its type and member, for people
// (tooltips, transcripts). Read the typed fields instead of parsing it.
func (e Event) Detail() string {
	switch e.Type {
	case EvSend, EvDrop:
		s := ""
		if b := e.Body(); b != nil {
			s = b.String()
		}
		if e.Type == EvDrop {
			s = strings.TrimSpace(s + " " + string(e.Reason))
		}
		return s
	case EvMemberAdded, EvMemberRemoved, EvAssignorRun, EvMemberEpoch, EvAssignmentIncomplete:
		return e.groupDetail()
	case EvAssigned, EvPaused, EvResumed:
		return strings.Join(e.Partitions(), " ")
	case EvRevoked:
		return strings.Join(e.Partitions(), " ") + " (" + string(e.Reason) + ")"
	case EvTxnState:
		return e.TransactionalID
	case EvMarker:
		return e.TransactionalID
	case EvCommitFailed, EvError:
		s := e.API.String() + ": " + string(e.Exception)
		if why := exceptionWhy[e.Exception]; why != "" {
			s += " (" + why + ")"
		}
		return s
	case EvCrash:
		return e.crashDetail()
	case EvShareAcquired, EvShareAcknowledged, EvShareReleased, EvShareArchived, EvShareStartOffset:
		return e.shareDetail()
	case EvRestart:
		s := fmt.Sprintf("incarnation %d", e.Count)
		if e.InstanceID != "" {
			s += ", group.instance.id=" + e.InstanceID
		}
		return s
	case EvZombie, EvRebalance, EvExit:
		return string(e.Reason)
	case EvFence:
		return fmt.Sprintf("%s: epoch bumped to %d, the open transaction is aborted (%s)", e.TransactionalID, e.Epoch, e.Reason)
	case EvPollTimeout:
		return fmt.Sprintf("no poll() for %d ticks > max.poll.interval.ms=%d", e.Ticks, e.Count)
	case EvSlowStart:
		return fmt.Sprintf("%d ticks", e.Ticks)
	case EvProcessFailed:
		return fmt.Sprintf("%s failed (attempt %d)", e.Record, e.Count)
	case EvDeadLetter:
		return fmt.Sprintf("%s (%s@%d) to %s after %d attempts", e.Record, e.Partition, e.Offset, e.Text(), e.Count)
	case EvRetry:
		return fmt.Sprintf("no answer for %d ticks, the same batch again (seq %d)", e.Ticks, e.Sequence)
	case EvDuplicate:
		return fmt.Sprintf("duplicate sequence %d: acknowledged with the original offset %d, nothing written", e.Sequence, e.Offset)
	case EvConfig:
		return e.configDetail()
	case EvWorldStopped:
		return e.Text()
	}
	return ""
}

// groupDetail is Detail of the group coordinator's events.
func (e Event) groupDetail() string {
	switch e.Type {
	case EvMemberAdded:
		switch {
		case e.Replaces != "":
			return "static member " + e.InstanceID + " replaces " + e.Replaces + " (KIP-345): same assignment"
		case e.InstanceID != "":
			return "group.instance.id=" + e.InstanceID
		}
	case EvMemberRemoved:
		switch e.Reason {
		case ReasonSessionTimeout:
			return fmt.Sprintf("session timeout: not heard from for %d ticks", e.Ticks)
		case ReasonLeaveGroup:
			return "LeaveGroup: " + e.Text()
		}
		return string(e.Reason)
	case EvAssignorRun:
		if p := e.Plan(); p != nil {
			s := "target " + PlanString(p.Target)
			if len(p.Withheld) > 0 {
				s += "; withheld until revoked: " + strings.Join(p.Withheld, " ")
			}
			return s
		}
	case EvAssignmentIncomplete:
		if e.Reason == ReasonNilPlan {
			return string(e.Reason)
		}
		return string(e.Reason) + ": " + strings.Join(e.Partitions(), " ")
	case EvMemberEpoch:
		switch {
		case e.Generation == -2:
			return "member epoch -2: the static member left for a while; its partitions wait for it"
		case len(e.Partitions()) > 0:
			return fmt.Sprintf("member epoch %d: revoke %s first", e.Generation, strings.Join(e.Partitions(), " "))
		}
		return fmt.Sprintf("member epoch %d -> %d", e.Count, e.Generation)
	}
	return ""
}

// FrozenText is the Text of an EvCrash given by Freeze: the process
// stopped and its connection stays open.
const FrozenText = "Freeze"

// Frozen says whether an EvCrash was a Freeze (the process stopped, its
// connection left open) rather than a Crash (its socket closed).
func (e Event) Frozen() bool { return e.Type == EvCrash && e.Text() == FrozenText }

// crashDetail is Detail of an EvCrash: the crash point.
func (e Event) crashDetail() string {
	call, after := "Crash", ""
	if e.Frozen() {
		call, after = "Freeze", ": the process stopped, its connection stays open"
	}
	switch e.Reason {
	case ReasonAfterRecords:
		return fmt.Sprintf("%s(AfterRecords(%d))%s", call, e.Count, after)
	case ReasonAtTick:
		return fmt.Sprintf("%s(AtTick(%d))%s", call, e.Count, after)
	case ReasonPoisonRecord:
		return fmt.Sprintf("the application failed on poison record %s", e.Record)
	}
	return call + "(Immediately())" + after
}

// writeMessage writes String's line of a message on the wire (EvSend, EvDrop).
func (e Event) writeMessage(b *strings.Builder) {
	kind := "request"
	if e.Response {
		kind = "response"
	}
	if e.Type == EvDrop {
		kind += " LOST"
	}
	fmt.Fprintf(b, "%s -> %s %s %s", e.From, e.To, e.API, kind)
	if e.Generation != 0 {
		fmt.Fprintf(b, " gen=%d", e.Generation)
	}
	if e.Response {
		fmt.Fprintf(b, " %s", e.Error)
	}
	if d := e.Detail(); d != "" {
		b.WriteString(" " + d)
	}
}

// stateWord is the state String names after the member: a group's,
// a transaction's, an activity, a marker's control, an assignor.
func (e Event) stateWord() string {
	switch {
	case e.GroupState != "":
		return string(e.GroupState)
	case e.TxnState != "":
		return string(e.TxnState)
	case e.Activity != "":
		return string(e.Activity)
	case e.Control != "":
		return string(e.Control)
	case e.Type == EvAssignorRun:
		return e.Assignor
	case e.Type == EvAppend && e.Transactional:
		return "transactional"
	}
	return ""
}

// PlanString renders a plan by member id, members sorted: "C1-1 {o0 o1} · C2-1 {o2}".
func PlanString(plan map[string][]string) string {
	ids := make([]string, 0, len(plan))
	for id := range plan {
		ids = append(ids, id)
	}
	sortStrings(ids)
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, id+" {"+strings.Join(plan[id], " ")+"}")
	}
	return strings.Join(parts, " · ")
}

// String renders the event as one transcript line.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%4d ", e.Tick)
	if e.Type == EvSend || e.Type == EvDrop {
		e.writeMessage(&b)
		return b.String()
	}
	fmt.Fprintf(&b, "%s %s", e.Type, e.Member)
	if e.MemberID != "" {
		fmt.Fprintf(&b, " id=%s", e.MemberID)
	}
	if s := e.stateWord(); s != "" {
		b.WriteString(" " + s)
	}
	if e.Generation != 0 {
		fmt.Fprintf(&b, " gen=%d", e.Generation)
	}
	if e.Partition != "" {
		fmt.Fprintf(&b, " %s", e.Partition)
		if e.Type == EvAppend || e.Type == EvMarker || e.Type == EvOffsetCommitted || e.Type == EvFetched {
			fmt.Fprintf(&b, "@%d", e.Offset)
		}
	}
	if e.Record != "" {
		fmt.Fprintf(&b, " %s", e.Record)
	}
	if e.PID != 0 && (e.Type == EvAppend || e.Type == EvMarker || e.Type == EvTxnState) {
		fmt.Fprintf(&b, " pid=%d epoch=%d", e.PID, e.Epoch)
	}
	if e.Error != kafka.NONE {
		fmt.Fprintf(&b, " %s", e.Error)
	}
	if d := e.Detail(); d != "" {
		fmt.Fprintf(&b, " %s", d)
	}
	return b.String()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// configDetail is the Detail of an EvConfig event: the setting and its value.
func (e Event) configDetail() string {
	switch e.Setting {
	case SettingIsolation:
		return string(e.Setting) + "=" + e.Isolation.String()
	case SettingTransactionVersion:
		return fmt.Sprintf("%s=%d", e.Setting, e.Count)
	}
	return string(e.Setting) + "=" + strings.Join(e.Partitions(), ",")
}

// shareDetail is the Detail of a share-partition record event (KIP-932).
func (e Event) shareDetail() string {
	switch e.Type {
	case EvShareAcquired:
		return fmt.Sprintf("%s: ACQUIRED (delivery %d, locked until tick %d)", e.Text(), e.Count, e.Tick+e.Ticks)
	case EvShareAcknowledged:
		return fmt.Sprintf("%s: ACKNOWLEDGED (ACCEPT, delivery %d)", e.Text(), e.Count)
	case EvShareReleased:
		return fmt.Sprintf("%s: AVAILABLE (%s, delivery %d)", e.Text(), e.Reason, e.Count)
	case EvShareArchived:
		return fmt.Sprintf("%s: ARCHIVED (%s, delivery %d)", e.Text(), e.Reason, e.Count)
	case EvShareStartOffset:
		return fmt.Sprintf("%s: share-partition start offset %d -> %d", e.Text(), e.Count, e.Offset)
	}
	return ""
}
