package fold

import (
	"slices"
	"sort"

	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// The queries below answer the questions the notebooks and the exercise
// checks ask of a world ("which requests did C2 send?", "what did the leader
// plan?", "what does a read_committed reader see?"), so that no notebook and
// no check reads an event's text. Like every fold, they read events only,
// and so work on a recorded real-broker run as well as on a simulation.

// AnyAPI asks Exchanges and Refusals for every API.
const AnyAPI kafka.APIKey = -1

// Exchange is one request a client sent and what became of it.
type Exchange struct {
	Tick       int // when the request was sent
	Member     string
	MemberID   string
	API        kafka.APIKey
	Generation int             // the generation (or epoch) the request carried; 0: none
	Answered   bool            // an answer arrived
	AnswerTick int             // when the answer was sent (0 if none)
	Error      kafka.ErrorCode // the answer's error code (NONE if accepted or unanswered)
	Lost       bool            // the request or its answer was lost on the way
	Request    kafka.Message   // the request itself (e.g. *broker.SyncGroupRequest)
	Response   kafka.Message   // the answer, nil if none
}

// Exchanges lists, in send order, the requests member sent of the given API
// (member "" for every client, api AnyAPI for every API), each with its
// answer. The broker's own requests (WriteTxnMarkers) count under member "B1".
// Heartbeats are not recorded unless answered with an error (the rebalance
// notice), so they appear here only as answers without a request: see
// Refusals.
func (f *Fold) Exchanges(member string, api kafka.APIKey) []Exchange {
	msgs := f.Messages()
	answer := make(map[int]int, len(msgs))
	for i, m := range msgs {
		if m.Response {
			answer[m.ReplyTo] = i
		}
	}
	var out []Exchange
	for _, m := range msgs {
		if m.Response || (api != AnyAPI && m.API != api) {
			continue
		}
		if member != "" && m.From != member {
			continue
		}
		x := Exchange{Tick: m.Tick, Member: m.From, MemberID: m.MemberID, API: m.API, Generation: m.Gen, Lost: m.Dropped, Request: m.Body}
		if i, ok := answer[m.Msg]; ok {
			r := msgs[i]
			x.Answered = !r.Dropped
			x.AnswerTick, x.Error, x.Response = r.Tick, r.Err, r.Body
			x.Lost = x.Lost || r.Dropped
		}
		out = append(out, x)
	}
	return out
}

// Refusal is an error answer a client received.
type Refusal struct {
	Tick  int
	API   kafka.APIKey
	Error kafka.ErrorCode
}

// Refusals lists the error answers member received for api (AnyAPI for
// every API), in order. The rebalance notice (a Heartbeat answered
// REBALANCE_IN_PROGRESS) is included; ask for kafka.Heartbeat to see only
// those, or filter it out.
func (f *Fold) Refusals(member string, api kafka.APIKey) []Refusal {
	var out []Refusal
	for _, m := range f.Messages() {
		if !m.Response || m.Err == kafka.NONE || m.To != member || (api != AnyAPI && m.API != api) {
			continue
		}
		out = append(out, Refusal{Tick: m.Tick, API: m.API, Error: m.Err})
	}
	return out
}

// PlanSent returns the plan the group leader sent in its SyncGroup for
// generation gen, by member NAME ("C1" → ["o0","p0"]); nil if no leader ran
// its assignor in that generation. Under the cooperative protocol this is
// the plan after withholding the partitions another member still owns.
func (f *Fold) PlanSent(gen int) map[string][]string {
	names := map[string]string{} // member id → name
	var plan *event.Plan
	for _, e := range f.src.Events() {
		if e.MemberID != "" && e.Member != "" {
			names[e.MemberID] = e.Member
		}
		if e.Type == event.EvAssignorRun && e.Generation == gen {
			plan = e.Plan()
		}
	}
	if plan == nil {
		return nil
	}
	out := map[string][]string{}
	for id, parts := range plan.Sent {
		name := names[id]
		if name == "" {
			name = id
		}
		out[name] = append([]string{}, parts...)
	}
	return out
}

// AssignmentAt returns who owned what in generation gen once it was Stable
// (the assignment table's row), by member name; nil if the group never was
// Stable in gen.
func (f *Fold) AssignmentAt(gen int) map[string][]string {
	for _, r := range f.Assignments() {
		if r.Gen == gen {
			return r.Owned
		}
	}
	return nil
}

// RecordsSeen returns what an audit reader of invoices-0 with the given
// isolation level returns, in offset order (duplicates included).
func (f *Fold) RecordsSeen(isolation kafka.IsolationLevel) []string {
	return f.Log("invoices-0", isolation).ReaderView()
}

// SeenTwice returns the invoices such a reader sees more than once, sorted.
func (f *Fold) SeenTwice(isolation kafka.IsolationLevel) []string {
	return repeated(f.RecordsSeen(isolation))
}

// ProcessedTwice returns the input records processed more than once, sorted.
func (f *Fold) ProcessedTwice() []string {
	var out []string
	for r, n := range f.ProcessedCount() {
		if n > 1 {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// Batches returns the records each poll of member returned, poll by poll.
func (f *Fold) Batches(member string) [][]string {
	var out [][]string
	last := -1
	for _, e := range f.src.Events() {
		if e.Type != event.EvFetched || e.Member != member {
			continue
		}
		if e.Tick != last || len(out) == 0 {
			out = append(out, nil)
			last = e.Tick
		}
		out[len(out)-1] = append(out[len(out)-1], e.Record)
	}
	return out
}

// Exceptions returns, in order, the exceptions member's application saw
// (CommitFailedException, ProducerFencedException, ...).
func (f *Fold) Exceptions(member string) []event.Exception {
	var out []event.Exception
	for _, e := range f.src.Events() {
		if (e.Type == event.EvCommitFailed || e.Type == event.EvError) && e.Member == member && e.Exception != "" {
			out = append(out, e.Exception)
		}
	}
	return out
}

// TxnStates returns the states the transaction coordinator moved the
// transactional id through, in order (Empty, Ongoing, PrepareCommit, ...).
func (f *Fold) TxnStates(transactionalID string) []kafka.TxnState {
	var out []kafka.TxnState
	for _, e := range f.src.Events() {
		if e.Type == event.EvTxnState && e.TransactionalID == transactionalID {
			out = append(out, e.TxnState)
		}
	}
	return out
}

func repeated(list []string) []string {
	seen := map[string]int{}
	for _, s := range list {
		seen[s]++
	}
	var out []string
	for s, n := range seen {
		if n > 1 {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Events returns every event, in order, as a slice.
func (f *Fold) Events() []event.Event {
	out := []event.Event{}
	for _, e := range f.src.Events() {
		out = append(out, e)
	}
	return out
}

// Count returns how many events keep accepts.
func (f *Fold) Count(keep func(event.Event) bool) int {
	n := 0
	for _, e := range f.src.Events() {
		if keep(e) {
			n++
		}
	}
	return n
}

// FirstOf returns the first event of one of the types of member (every
// member for ""), and false if there is none.
func (f *Fold) FirstOf(member string, types ...event.Type) (event.Event, bool) {
	for _, e := range f.src.Events() {
		if (member == "" || e.Member == member) && slices.Contains(types, e.Type) {
			return e, true
		}
	}
	return event.Event{}, false
}

// LastOf returns the last event of one of the types of member (every member
// for ""), and false if there is none.
func (f *Fold) LastOf(member string, types ...event.Type) (event.Event, bool) {
	var last event.Event
	found := false
	for _, e := range f.src.Events() {
		if (member == "" || e.Member == member) && slices.Contains(types, e.Type) {
			last, found = e, true
		}
	}
	return last, found
}

// FetchedAt lists the records member's poll returned at tick (EvFetched), in order.
func (f *Fold) FetchedAt(member string, tick int) []string {
	var out []string
	for _, e := range f.src.Events() {
		if e.Type == event.EvFetched && e.Member == member && e.Tick == tick {
			out = append(out, e.Record)
		}
	}
	return out
}

// TxnEndingFrom returns the states, in order, of the first transaction of
// transactionalID that completes (CompleteCommit or CompleteAbort) at or
// after tick, its completion included; nil if none does. A transaction
// starts after Empty or the previous completion.
func (f *Fold) TxnEndingFrom(transactionalID string, tick int) []kafka.TxnState {
	var cur []kafka.TxnState
	for _, e := range f.src.Events() {
		if e.Type != event.EvTxnState || e.TransactionalID != transactionalID {
			continue
		}
		switch e.TxnState {
		case kafka.TxnEmpty:
			cur = nil
		case kafka.TxnCompleteCommit, kafka.TxnCompleteAbort:
			if e.Tick >= tick && len(cur) > 0 {
				return append(cur, e.TxnState)
			}
			cur = nil
		default:
			cur = append(cur, e.TxnState)
		}
	}
	return nil
}

// TxnAround returns, for the transaction of transactionalID open at tick
// at, the tick it began (its first Ongoing; -1 if none was open) and the
// first tick after at that the coordinator began to abort a transaction of
// that id (PrepareAbort; -1 if it never did).
func (f *Fold) TxnAround(transactionalID string, at int) (begin, abort int) {
	begin, abort = -1, -1
	for _, e := range f.src.Events() {
		if e.Type != event.EvTxnState || e.TransactionalID != transactionalID {
			continue
		}
		switch {
		case e.Tick <= at && e.TxnState == kafka.TxnOngoing && begin < 0:
			begin = e.Tick
		case e.Tick <= at && e.TxnState != kafka.TxnOngoing:
			begin = -1
		case e.Tick > at && e.TxnState == kafka.TxnPrepareAbort && abort < 0:
			abort = e.Tick
		}
	}
	return begin, abort
}

// InstanceIDs maps every member id the coordinator added to the group
// (EvMemberAdded) to its group.instance.id ("" for a dynamic member).
func (f *Fold) InstanceIDs() map[string]string {
	out := map[string]string{}
	for _, e := range f.src.Events() {
		if e.Type == event.EvMemberAdded && e.MemberID != "" {
			out[e.MemberID] = e.InstanceID
		}
	}
	return out
}

// ClientID is one transactional.id or group.instance.id and the members
// whose requests carried it, sorted.
type ClientID struct {
	Kind    string // "transactional.id" or "group.instance.id"
	ID      string
	Members []string
}

// ClientIDs lists every transactional.id (InitProducerId) and
// group.instance.id (JoinGroup, ConsumerGroupHeartbeat) a member's request
// carried, with the members that sent it, sorted by kind and id. Two
// members of one id fence each other in Kafka (KIP-98 PRODUCER_FENCED,
// KIP-345 FENCED_INSTANCE_ID).
func (f *Fold) ClientIDs() []ClientID {
	type key struct{ kind, id string }
	users := map[key]map[string]bool{}
	add := func(kind, id, member string) {
		if id == "" {
			return
		}
		k := key{kind, id}
		if users[k] == nil {
			users[k] = map[string]bool{}
		}
		users[k][member] = true
	}
	for _, e := range f.src.Events() {
		if e.Type != event.EvSend || e.Response {
			continue
		}
		switch b := e.Body().(type) {
		case *broker.InitProducerIDRequest:
			add("transactional.id", b.TransactionalID, e.Member)
		case *broker.JoinGroupRequest:
			add("group.instance.id", b.GroupInstanceID, e.Member)
		case *broker.ConsumerGroupHeartbeatRequest:
			add("group.instance.id", b.InstanceID, e.Member)
		}
	}
	out := make([]ClientID, 0, len(users))
	for k, m := range users {
		c := ClientID{Kind: k.kind, ID: k.id}
		for n := range m {
			c.Members = append(c.Members, n)
		}
		sort.Strings(c.Members)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// DeadLetter is a record a member gave up on and wrote to the dead-letter
// topic (an EvDeadLetter).
type DeadLetter struct {
	Tick      int    // when the member produced it
	Member    string // the member that gave up
	Partition string // the input partition's short name ("o1")
	Offset    int    // its offset there
	Record    string // the input record ("o1.3")
	Attempts  int    // how many times it failed
}

// DeadLetters lists, in order, the records members wrote to the
// dead-letter topic.
func (f *Fold) DeadLetters() []DeadLetter {
	var out []DeadLetter
	for _, e := range f.src.Events() {
		if e.Type == event.EvDeadLetter {
			out = append(out, DeadLetter{Tick: e.Tick, Member: e.Member, Partition: e.Partition, Offset: e.Offset, Record: e.Record, Attempts: e.Count})
		}
	}
	return out
}
