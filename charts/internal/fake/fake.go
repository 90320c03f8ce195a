// Package fake builds hand-made event traces that look like the ones the
// kgviz engine records. The charts package tests its views on them, in
// particular on edge cases (hostile member names, empty worlds) that no demo
// world produces.
package fake

import (
	"fmt"
	"iter"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/event"
)

// Source is a recorded trace with the metadata charts need. It satisfies
// charts.Source.
type Source struct {
	Evs     []kgviz.Event
	Tick    int
	Names   []string
	Parts   []string
	msg     int
	Label   string
	members map[string]string // name -> member id
}

// Events iterates over the recorded events.
func (s *Source) Events() iter.Seq2[int, kgviz.Event] { return event.Seq(s.Evs) }

// Now returns the current tick.
func (s *Source) Now() int { return s.Tick }

// Members returns the member names in order of addition.
func (s *Source) Members() []string { return s.Names }

// Partitions returns the input partitions' short names.
func (s *Source) Partitions() []string { return s.Parts }

// Name returns the trace's label (used by comparison charts).
func (s *Source) Name() string { return s.Label }

// New returns an empty trace over the default six input partitions.
func New(label string) *Source {
	return &Source{Label: label, Parts: []string{"o0", "o1", "o2", "p0", "p1", "p2"}, members: map[string]string{}}
}

func (s *Source) add(e kgviz.Event) {
	s.Evs = append(s.Evs, e)
	if e.Tick > s.Tick {
		s.Tick = e.Tick
	}
}

// Member registers a member name.
func (s *Source) Member(name string) {
	s.Names = append(s.Names, name)
	s.members[name] = name + "-1"
}

// Send records a request at tick t and its response at t+1 (t+1 → t+2 for
// the answer) and returns the tick the response arrives.
func (s *Source) Send(t int, from, to, name string, gen int, errc kgviz.ErrorCode) int {
	api := apiKey(name)
	s.msg++
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvSend, From: from, To: to, API: api, Msg: s.msg, Generation: gen})
	s.msg++
	s.add(kgviz.Event{Tick: t + 1, Type: kgviz.EvSend, From: to, To: from, API: api, Response: true, Msg: s.msg, Generation: gen, Error: errc})
	return t + 2
}

// Request records only a request (its response comes later or never).
func (s *Source) Request(t int, from, to, name string, gen int) int {
	api := apiKey(name)
	s.msg++
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvSend, From: from, To: to, API: api, Msg: s.msg, Generation: gen})
	return s.msg
}

// Response records a response at tick t.
func (s *Source) Response(t int, from, to, name string, gen int, errc kgviz.ErrorCode) int {
	api := apiKey(name)
	s.msg++
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvSend, From: from, To: to, API: api, Response: true, Msg: s.msg, Generation: gen, Error: errc})
	return s.msg
}

func apiKey(name string) kgviz.APIKey {
	k, ok := kgviz.ParseAPIKey(name)
	if !ok {
		panic("fake: unknown API " + name)
	}
	return k
}

// Drop records the loss of message msg at tick t.
func (s *Source) Drop(t int, msg int) {
	for _, e := range s.Evs {
		if e.Type == kgviz.EvSend && e.Msg == msg {
			e.Tick = t
			e.Type = kgviz.EvDrop
			s.add(e)
			return
		}
	}
}

// Activity records what member m does from tick t on.
func (s *Source) Activity(t int, m string, a kgviz.Activity, record string) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvActivity, Member: m, MemberID: s.members[m], Activity: a, Record: record})
}

// Group records a group state change.
func (s *Source) Group(t int, state kgviz.GroupState, gen int) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvGroupState, Member: "B1", GroupState: state, Generation: gen})
}

// Event records any event.
func (s *Source) Event(e kgviz.Event) { s.add(e) }

// Assign records assignments (gain) of partitions to m in generation gen.
func (s *Source) Assign(t int, m string, gen int, parts ...string) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvAssigned, Member: m, MemberID: s.members[m], Generation: gen}.WithPartitions(parts))
}

// Revoke records revocations.
func (s *Source) Revoke(t int, m string, gen int, parts ...string) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvRevoked, Member: m, MemberID: s.members[m], Generation: gen, Reason: kgviz.ReasonEagerRevoke}.WithPartitions(parts))
}

// Pause records paused partitions.
func (s *Source) Pause(t int, parts ...string) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvPaused, Member: "B1"}.WithPartitions(parts))
}

// Resume records resumed partitions.
func (s *Source) Resume(t int, parts ...string) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvResumed, Member: "B1"}.WithPartitions(parts))
}

// Append records an append to a log.
func (s *Source) Append(t int, log string, offset int, record string, pid int64, txn bool) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvAppend, Member: "B1", Partition: log, Offset: offset, Record: record, PID: pid, Transactional: txn})
}

// Marker records a transaction marker.
func (s *Source) Marker(t int, log string, offset int, kind kgviz.ControlType, pid int64) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvMarker, Member: "B1", Partition: log, Offset: offset, Control: kind, PID: pid})
}

// Commit records a committed offset.
func (s *Source) Commit(t int, m, part string, offset, gen int) {
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvOffsetCommitted, Member: m, Partition: part, Offset: offset, Generation: gen})
}

// join runs a whole rebalance round for members ms starting at tick t and
// returns the tick at which every member is fetching again. leader is ms[0].
func (s *Source) join(t, gen int, ms []string, plan map[string][]string) int {
	s.Group(t, kgviz.GroupPreparingRebalance, gen-1)
	for _, m := range ms {
		s.Activity(t, m, kgviz.ActivityJoining, "")
		s.Send(t, m, "B1", "JoinGroup", 0, kgviz.NONE)
	}
	s.Group(t+1, kgviz.GroupCompletingRebalance, gen)
	s.add(kgviz.Event{Tick: t + 1, Type: kgviz.EvLeader, Member: ms[0], MemberID: s.members[ms[0]], Generation: gen})
	t += 2
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvAssignorRun, Member: ms[0], Generation: gen, Assignor: "range"}.WithPlan(&kgviz.Plan{Target: plan, Sent: plan}))
	for _, m := range ms {
		s.Activity(t, m, kgviz.ActivitySyncing, "")
		s.Send(t, m, "B1", "SyncGroup", gen, kgviz.NONE)
	}
	s.Group(t+1, kgviz.GroupStable, gen)
	t += 2
	for _, m := range ms {
		s.Assign(t, m, gen, plan[m]...)
		s.Activity(t, m, kgviz.ActivityOffsetFetch, "")
		s.Send(t, m, "B1", "OffsetFetch", gen, kgviz.NONE)
	}
	t += 2
	s.Resume(t, s.Parts...)
	return t
}

// Rebalance is Demo 1 and Demo 4 in miniature, with the eager range
// assignor: C1 reads all six partitions, C2 joins (generation 2, all six
// paused), both process and commit after processing, C2 crashes after two
// records of p2.3–p2.5, the session timeout (6 ticks) removes it, generation 3
// gives everything back to C1, which processes p2.3 and p2.4 again.
func Rebalance(c1, c2 string) *Source {
	s := New("range (eager)")
	s.Member(c1)
	s.add(kgviz.Event{Tick: 0, Type: kgviz.EvConfig, Setting: kgviz.SettingAssignor, Assignor: "range"}.WithPartitions([]string{"range"}))
	s.add(kgviz.Event{Tick: 0, Type: kgviz.EvMemberAdded, Member: c1, MemberID: s.members[c1]})
	s.Activity(0, c1, kgviz.ActivityStarting, "")
	s.Group(0, kgviz.GroupEmpty, 0)
	t := s.Send(0, c1, "B1", "FindCoordinator", 0, kgviz.NONE)
	t = s.join(t, 1, []string{c1}, map[string][]string{c1: s.Parts})
	inv := 0
	next := map[string]int{}
	batch := func(t int, m string, parts []string, commit bool, gen int) int {
		s.Activity(t, m, kgviz.ActivityFetching, "")
		t = s.Send(t, m, "B1", "Fetch", 0, kgviz.NONE)
		for _, p := range parts {
			r := fmt.Sprintf("%s.%d", p, next[p])
			s.add(kgviz.Event{Tick: t - 1, Type: kgviz.EvFetched, Member: m, Partition: p, Offset: next[p], Record: r})
			s.Activity(t, m, kgviz.ActivityProcessing, r)
			t++
			s.add(kgviz.Event{Tick: t, Type: kgviz.EvProcessed, Member: m, Record: r})
			s.Request(t, m, "B1", "Produce", 0)
			s.Append(t+1, "invoices-0", inv, "inv("+r+")", 0, false)
			s.Response(t+1, "B1", m, "Produce", 0, kgviz.NONE)
			inv++
			next[p]++
		}
		if commit {
			s.Activity(t, m, kgviz.ActivityCommitting, "")
			for _, p := range parts {
				s.Commit(t+1, m, p, next[p], gen)
			}
			t = s.Send(t, m, "B1", "OffsetCommit", gen, kgviz.NONE)
		}
		return t
	}
	t = batch(t, c1, []string{"o0", "p0", "o1"}, true, 1)
	// C2 joins: eager, everything is revoked and paused.
	s.Member(c2)
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvMemberAdded, Member: c2, MemberID: s.members[c2]})
	s.Activity(t, c2, kgviz.ActivityStarting, "")
	s.Send(t, c2, "B1", "FindCoordinator", 0, kgviz.NONE)
	t += 2
	s.Response(t, "B1", c1, "Heartbeat", 1, kgviz.REBALANCE_IN_PROGRESS)
	s.Activity(t+1, c1, kgviz.ActivityRevoking, "")
	s.Revoke(t+1, c1, 1, s.Parts...)
	s.Pause(t+1, s.Parts...)
	t = s.join(t+2, 2, []string{c1, c2}, map[string][]string{c1: {"o0", "o1", "p0", "p1"}, c2: {"o2", "p2"}})
	next["p2"] = 3
	t1 := batch(t, c1, []string{"o0", "o1", "p0"}, true, 2)
	// C2 polls p2.3..p2.5 and crashes after two records.
	s.Activity(t, c2, kgviz.ActivityFetching, "")
	t2 := s.Send(t, c2, "B1", "Fetch", 0, kgviz.NONE)
	for i := 3; i <= 5; i++ {
		s.add(kgviz.Event{Tick: t2 - 1, Type: kgviz.EvFetched, Member: c2, Partition: "p2", Offset: i, Record: fmt.Sprintf("p2.%d", i)})
	}
	for i := 3; i <= 4; i++ {
		r := fmt.Sprintf("p2.%d", i)
		s.Activity(t2, c2, kgviz.ActivityProcessing, r)
		t2++
		s.add(kgviz.Event{Tick: t2, Type: kgviz.EvProcessed, Member: c2, Record: r})
		s.Request(t2, c2, "B1", "Produce", 0)
		s.Append(t2+1, "invoices-0", inv, "inv("+r+")", 0, false)
		s.Response(t2+1, "B1", c2, "Produce", 0, kgviz.NONE)
		inv++
	}
	s.add(kgviz.Event{Tick: t2, Type: kgviz.EvCrash, Member: c2, Reason: kgviz.ReasonAfterRecords, Count: 2})
	s.Activity(t2, c2, kgviz.ActivityDead, "")
	s.Activity(t1, c1, kgviz.ActivityIdle, "")
	t = t2 + 6
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvMemberRemoved, Member: c2, MemberID: s.members[c2], Reason: kgviz.ReasonSessionTimeout, Ticks: 6})
	s.Response(t, "B1", c1, "Heartbeat", 2, kgviz.REBALANCE_IN_PROGRESS)
	s.Activity(t+1, c1, kgviz.ActivityRevoking, "")
	s.Revoke(t+1, c1, 2, "o0", "o1", "p0", "p1")
	s.Pause(t+1, s.Parts...)
	t = s.join(t+2, 3, []string{c1}, map[string][]string{c1: s.Parts})
	next["p2"] = 3
	t = batch(t, c1, []string{"p2", "p2", "o2"}, true, 3)
	// A late commit of the old generation is refused.
	s.Send(t, c1, "B1", "OffsetCommit", 2, kgviz.ILLEGAL_GENERATION)
	s.add(kgviz.Event{Tick: t + 1, Type: kgviz.EvCommitFailed, Member: c1, Error: kgviz.ILLEGAL_GENERATION})
	s.Activity(t, c1, kgviz.ActivityIdle, "")
	s.Tick = t + 3
	return s
}

// Transactions is Demo 10 and 11 in miniature: two transactional members,
// a committed transaction, a crash inside a transaction that the coordinator
// aborts after its timeout, a read_committed audit reader.
func Transactions(c1, c2 string) *Source {
	s := New("transactions")
	s.add(kgviz.Event{Tick: 0, Type: kgviz.EvConfig, Setting: kgviz.SettingIsolation, Isolation: kgviz.ReadCommitted})
	s.Member(c1)
	s.Member(c2)
	s.Group(0, kgviz.GroupEmpty, 0)
	for _, m := range []string{c1, c2} {
		s.add(kgviz.Event{Tick: 0, Type: kgviz.EvMemberAdded, Member: m, MemberID: s.members[m]})
		s.Activity(0, m, kgviz.ActivityStarting, "")
		s.Send(0, m, "B1", "FindCoordinator", 0, kgviz.NONE)
		s.Send(2, m, "B1", "InitProducerId", 0, kgviz.NONE)
	}
	t := s.join(4, 1, []string{c1, c2}, map[string][]string{c1: {"o0", "o1", "p0", "p1"}, c2: {"o2", "p2"}})
	off := 0
	txn := func(t int, m string, pid int64, recs []string, commit bool, crashAfter int) int {
		s.Activity(t, m, kgviz.ActivityFetching, "")
		t = s.Send(t, m, "B1", "Fetch", 0, kgviz.NONE)
		s.Send(t, m, "B1", "AddPartitionsToTxn", 0, kgviz.NONE)
		s.add(kgviz.Event{Tick: t + 1, Type: kgviz.EvTxnState, TransactionalID: "tx-" + m, TxnState: kgviz.TxnOngoing, PID: pid})
		for i, r := range recs {
			if crashAfter >= 0 && i == crashAfter {
				s.add(kgviz.Event{Tick: t, Type: kgviz.EvCrash, Member: m})
				s.Activity(t, m, kgviz.ActivityDead, "")
				return t
			}
			s.Activity(t, m, kgviz.ActivityProcessing, r)
			t++
			s.Request(t, m, "B1", "Produce", 0)
			s.Append(t+1, "invoices-0", off, "inv("+r+")", pid, true)
			off++
			s.Response(t+1, "B1", m, "Produce", 0, kgviz.NONE)
		}
		s.Activity(t, m, kgviz.ActivityCommitting, "")
		s.Send(t, m, "B1", "AddOffsetsToTxn", 0, kgviz.NONE)
		s.Send(t+2, m, "B1", "TxnOffsetCommit", 1, kgviz.NONE)
		s.Send(t+4, m, "B1", "EndTxn", 0, kgviz.NONE)
		s.add(kgviz.Event{Tick: t + 5, Type: kgviz.EvTxnState, TransactionalID: "tx-" + m, TxnState: kgviz.TxnPrepareCommit, PID: pid})
		s.Request(t+5, "B1", "B1", "WriteTxnMarkers", 0)
		s.Marker(t+6, "invoices-0", off, kgviz.ControlCommit, pid)
		s.Marker(t+6, "__consumer_offsets-12", 0, kgviz.ControlCommit, pid)
		off++
		s.add(kgviz.Event{Tick: t + 6, Type: kgviz.EvTxnState, TransactionalID: "tx-" + m, TxnState: kgviz.TxnCompleteCommit, PID: pid})
		return t + 6
	}
	t1 := txn(t, c1, 1000, []string{"o0.0", "o1.0", "p0.0"}, true, -1)
	t2 := txn(t, c2, 1001, []string{"p2.3", "p2.4", "p2.5"}, false, 2)
	t = t1
	if t2 > t {
		t = t2
	}
	t = txn(t, c1, 1000, []string{"o0.1", "o1.1"}, true, -1)
	s.Activity(t, c1, kgviz.ActivityIdle, "")
	t += 30 - (t - t2)
	s.add(kgviz.Event{Tick: t, Type: kgviz.EvTxnState, TransactionalID: "tx-" + c2, TxnState: kgviz.TxnPrepareAbort, PID: 1001})
	s.Marker(t+1, "invoices-0", off, kgviz.ControlAbort, 1001)
	s.add(kgviz.Event{Tick: t + 1, Type: kgviz.EvTxnState, TransactionalID: "tx-" + c2, TxnState: kgviz.TxnCompleteAbort, PID: 1001})
	s.Tick = t + 2
	return s
}
