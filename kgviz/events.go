package kgviz

import (
	"fmt"
	"strings"
)

// EventType says what an Event records.
type EventType uint8

// The kinds of event a world records. Charts, meters and exercise checks are
// pure functions of the recorded events.
const (
	// EvSend: a request or response is put on the wire (From → To). It arrives
	// exactly one tick later unless an EvDrop for the same Msg follows.
	EvSend EventType = iota + 1
	// EvDrop: a message in flight was lost (fault injection) or its recipient
	// was dead when it arrived.
	EvDrop
	// EvGroupState: the group coordinator changed state (State, Generation).
	EvGroupState
	// EvMemberAdded / EvMemberRemoved: the coordinator's member list changed
	// (Member, MemberID; Detail says why).
	EvMemberAdded
	EvMemberRemoved
	// EvLeader: the coordinator chose the group leader (Member, MemberID, Generation).
	EvLeader
	// EvAssignorRun: the leader ran the assignor; Detail is the plan.
	EvAssignorRun
	// EvAssigned / EvRevoked: a member gained or lost a partition (Partition, Generation).
	EvAssigned
	EvRevoked
	// EvPaused / EvResumed: a partition stopped or started being consumed by the group.
	EvPaused
	EvResumed
	// EvActivity: what a member's application thread does from this tick on
	// (State: one of the Activity* constants; Record while processing).
	EvActivity
	// EvFetched: a poll returned a record to the member (Record, Partition, Offset).
	EvFetched
	// EvProcessed: the member finished processing a record (Record).
	EvProcessed
	// EvAppend: a record was appended to a partition's log (Partition is the full
	// name like "invoices-0", Offset, Record, PID, Epoch; State "transactional" or "").
	EvAppend
	// EvMarker: a transaction marker was appended (State "COMMIT" or "ABORT").
	EvMarker
	// EvOffsetCommitted: an offset became committed for the group (Partition short name, Offset).
	EvOffsetCommitted
	// EvTxnState: the transaction coordinator changed a transaction's state
	// (Detail is the transactional.id, State, PID, Epoch).
	EvTxnState
	// EvCommitFailed: the client threw CommitFailedException (Error says why).
	EvCommitFailed
	// EvCrash, EvRestart, EvClose: the scenario acted on a member.
	EvCrash
	EvRestart
	EvClose
	// EvZombie: a member's process keeps running outside the group (Detail says why).
	EvZombie
	// EvPollTimeout: max.poll.interval.ms expired; the heartbeat thread leaves the group.
	EvPollTimeout
	// EvSlowStart: the member started a slow record (Record).
	EvSlowStart
	// EvConfig: the scenario changed a setting (Detail), e.g. the assignor.
	EvConfig
	// EvError: the client raised a fatal or abortable error (Error, Detail).
	EvError
)

var eventTypeNames = [...]string{
	EvSend: "send", EvDrop: "drop", EvGroupState: "group-state", EvMemberAdded: "member-added",
	EvMemberRemoved: "member-removed", EvLeader: "leader", EvAssignorRun: "assignor",
	EvAssigned: "assigned", EvRevoked: "revoked", EvPaused: "paused", EvResumed: "resumed",
	EvActivity: "activity", EvFetched: "fetched", EvProcessed: "processed", EvAppend: "append",
	EvMarker: "marker", EvOffsetCommitted: "offset-committed", EvTxnState: "txn-state",
	EvCommitFailed: "commit-failed", EvCrash: "crash", EvRestart: "restart", EvClose: "close",
	EvZombie: "zombie", EvPollTimeout: "poll-timeout", EvSlowStart: "slow-start", EvConfig: "config",
	EvError: "error",
}

// String returns the event type's short name, e.g. "send".
func (t EventType) String() string {
	if int(t) < len(eventTypeNames) && eventTypeNames[t] != "" {
		return eventTypeNames[t]
	}
	return fmt.Sprintf("EventType(%d)", t)
}

// Activities of a member's application thread (EvActivity's State).
const (
	ActivityStarting    = "starting"     // FindCoordinator, InitProducerId
	ActivityJoining     = "joining"      // waiting for the JoinGroup response
	ActivitySyncing     = "syncing"      // waiting for the SyncGroup response
	ActivityOffsetFetch = "offset-fetch" // waiting for committed offsets
	ActivityFetching    = "fetching"     // a Fetch round trip
	ActivityProcessing  = "processing"   // processing Record
	ActivityCommitting  = "committing"   // OffsetCommit, or the transaction's commit
	ActivityRevoking    = "revoking"     // onPartitionsRevoked
	ActivityProducing   = "producing"    // waiting for produce acknowledgements (flush)
	ActivityIdle        = "idle"         // in poll(), nothing to read
	ActivityDead        = "dead"         // crashed or closed
)

// API family names used by charts' filters.
const (
	FamilyGroup        = "group"
	FamilyOffsets      = "offsets"
	FamilyFetch        = "fetch"
	FamilyProduce      = "produce"
	FamilyTransactions = "transactions"
)

// APIFamily returns the family of a Kafka API name: "group" (FindCoordinator,
// JoinGroup, SyncGroup, Heartbeat, LeaveGroup), "offsets" (OffsetCommit,
// OffsetFetch), "fetch", "produce" (Produce, InitProducerId without a
// transactional.id) or "transactions".
func APIFamily(api string) string {
	switch api {
	case "FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup":
		return FamilyGroup
	case "OffsetCommit", "OffsetFetch":
		return FamilyOffsets
	case "Fetch":
		return FamilyFetch
	case "Produce":
		return FamilyProduce
	default:
		return FamilyTransactions
	}
}

// Event is one thing that happened at one tick. Fields that do not apply to
// an event's Type are zero.
type Event struct {
	Tick       int
	Type       EventType
	Member     string // the member's name ("C1"), or "B1" for broker events
	MemberID   string // the group member id, e.g. "C1-1"
	From, To   string // EvSend/EvDrop: endpoints, "C1" or "B1"
	API        string // EvSend/EvDrop: Kafka API name, e.g. "JoinGroup"
	Response   bool   // EvSend/EvDrop: a response rather than a request
	Msg        int    // EvSend/EvDrop: message id, unique in a world
	ReplyTo    int    // EvSend/EvDrop of a response: the request's message id
	Generation int    // group generation the event refers to (0: none)
	PID        int64  // producer id (-1: none)
	Epoch      int    // producer epoch
	Error      ErrorCode
	Partition  string // short partition name ("o2") or full log name ("invoices-0")
	Offset     int
	Record     string // "o2.3" or "inv(o2.3)"
	State      string // group/transaction state, activity, marker type
	Detail     string // human-readable details: plan, reason, offsets
}

// String renders the event as one transcript line.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%4d ", e.Tick)
	switch e.Type {
	case EvSend, EvDrop:
		kind := "request"
		if e.Response {
			kind = "response"
		}
		if e.Type == EvDrop {
			kind += " LOST"
		}
		fmt.Fprintf(&b, "%s -> %s %s %s", e.From, e.To, e.API, kind)
		if e.Generation != 0 {
			fmt.Fprintf(&b, " gen=%d", e.Generation)
		}
		if e.Response {
			fmt.Fprintf(&b, " %s", e.Error)
		}
	default:
		fmt.Fprintf(&b, "%s %s", e.Type, e.Member)
		if e.MemberID != "" {
			fmt.Fprintf(&b, " id=%s", e.MemberID)
		}
		if e.State != "" {
			fmt.Fprintf(&b, " %s", e.State)
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
		if e.PID >= 0 && (e.Type == EvAppend || e.Type == EvMarker || e.Type == EvTxnState) && e.PID != 0 {
			fmt.Fprintf(&b, " pid=%d epoch=%d", e.PID, e.Epoch)
		}
		if e.Error != NONE {
			fmt.Fprintf(&b, " %s", e.Error)
		}
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, " %s", e.Detail)
	}
	return b.String()
}
