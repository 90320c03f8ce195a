package realkafka

// This file (and share_sim.go, for share groups) is the only one that reads
// the simulation: it runs a scenario on a kgviz World (scenarios.go) and extracts the outcomes real.go extracts from a
// recording, through kgviz's public API only (Events, Assignment, Generation,
// PauseMeter, ProcessedCount, Stats, Log). kgviz's event model is being
// redesigned: adapt this file, and nothing else, when it changes.

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// simRun is a scenario running on the simulation. Its methods are the
// scenario steps of harness/realkafka's Scenarios.java, with the same names in
// Steps, so both sides cut a run into the same segments.
type simRun struct {
	w        *kgviz.World
	demo     int
	commit   kgviz.CommitMode
	tv       int // transaction.version
	steps    []Step
	assigned map[int]map[string][]string // the assignment at each Stable(), by step index
	kip848   bool                        // group.protocol=consumer: epochs instead of generations
	epochs   map[int]string              // KIP-848: the member epochs at each Stable(), by step index
	static   map[string]bool             // members added with kgviz.Static()
	err      error
	v        variant // the join tick shifted (variants.go); the zero variant is the scenario as scripted
}

func newSimRun(v variant, demo int, opts ...kgviz.Option) *simRun {
	return &simRun{w: kgviz.NewWorld(opts...), demo: demo, assigned: map[int]map[string][]string{}, v: v}
}

func (s *simRun) step(action, member string) *Step {
	s.steps = append(s.steps, Step{Tick: float64(s.w.Now()), Action: action, Member: member})
	return &s.steps[len(s.steps)-1]
}

func (s *simRun) check() {
	if s.err == nil && s.w.Err() != nil {
		s.err = s.w.Err()
	}
}

func (s *simRun) add(name string, opts ...kgviz.Option) {
	if s.v.joinDelay > 0 && len(s.w.Members()) > 0 {
		s.runFor(s.v.joinDelay)
	}
	s.step("add", name)
	if s.v.slowLater > 0 {
		opts = append(opts[:len(opts):len(opts)], kgviz.WithSlowRecordTicks(harnessSlowTicks+s.v.slowLater))
	}
	if s.v.syncMember == name && s.v.syncTicks > 0 {
		opts = append(opts[:len(opts):len(opts)], kgviz.WithSyncGroupDelay(s.v.syncTicks))
	}
	s.w.AddMember(name, opts...)
	s.check()
}

func (s *simRun) stable() {
	s.w.RunUntil(kgviz.Stable())
	s.check()
	st := s.step("stable", "")
	st.Generation = s.w.Generation()
	s.assigned[len(s.steps)-1] = s.w.Assignment()
	if s.kip848 {
		if s.epochs == nil {
			s.epochs = map[int]string{}
		}
		s.epochs[len(s.steps)-1] = s.memberEpochs()
	}
}

func (s *simRun) quiet() {
	s.w.RunUntil(kgviz.Quiet())
	s.check()
	s.step("quiet", "")
}

func (s *simRun) runFor(n int) {
	s.w.RunFor(n)
	s.check()
}

func (s *simRun) close(name string) {
	s.step("close", name)
	s.w.Close(name)
	s.check()
}

func (s *simRun) restart(name string) {
	s.step("restart", name)
	s.w.Restart(name)
	s.check()
}

func (s *simRun) crashNow(name string) {
	s.step("crash", name)
	s.w.Crash(name, kgviz.Immediately())
	s.check()
}

// armCrash: Crash(name, AfterRecords(n)) once name has polled record, then RunUntil(Crashed(name)).
func (s *simRun) armCrash(name, record string, n int) {
	st := s.step("arm-crash", name)
	st.WhenPolled, st.AfterRecords = record, n
	s.w.RunUntil(kgviz.Polled(name, record)).Crash(name, kgviz.AfterRecords(n)).RunUntil(kgviz.Crashed(name))
	s.check()
}

// SimOutcomes runs scenario id on the simulation and extracts its outcomes; ok
// is false when the simulation has no counterpart. kgviz's world is the same
// whichever Kafka version it is compared with (4.1.1 or 4.4.0; SimOutcomesOn
// numbers its KIP-848 epochs as the version's coordinator does): what else
// differs between the versions is listed in docs/simplifications.md and waived
// by value, for that version, in known_differences.json. In particular
// kafka-clients 4.4.0's reconciliation rule (kgviz.WithReconciliation(
// kgviz.ReconcileKafka440): a revocation starts in the application's poll()
// and onPartitionsRevoked runs in the poll after) is not applied: in kgviz's
// time a poll with its Fetch, three records, the Produce and the commit takes
// about 9 ticks (every request is a one-tick round trip) where the broker's
// took about 3.2 s, so two polls miss the 12-tick rebalance timeout, and
// kgviz's group is fenced round and round (group epoch 23 at C3's join of
// kip848-uniform) where the broker's members revoked in time
// (docs/simplifications.md, "KIP-848 on Kafka 4.4.0").
func SimOutcomes(id string) (o Outcomes, ok bool, err error) {
	base, tv := baseScenario(id)
	script, ok := simScenarios[base]
	if !ok {
		return nil, false, nil
	}
	s := script(simArgs{opts: []kgviz.Option{kgviz.WithTransactionVersion(tv)}})
	s.tv = tv
	if s.err != nil {
		return nil, true, fmt.Errorf("simulation of %s: %v", id, s.err)
	}
	return s.outcomes(), true, nil
}

// SimOutcomesOn is SimOutcomes with the KIP-848 epochs numbered as Kafka
// version's coordinator numbers them (numberedFor): what the comparison with
// that version's runs sees.
func SimOutcomesOn(id, version string) (Outcomes, bool, error) {
	o, ok, err := SimOutcomes(id)
	return numberedFor(o, version), ok, err
}

// baseScenario splits the transaction.version suffix off a scenario id:
// "demo10-transactions-tv2" is the script "demo10-transactions" run with
// WithTransactionVersion(2); a scenario without a suffix runs version 1 (the
// page's flow; the harness's broker for them runs 2, which changes nothing
// without transactions).
func baseScenario(id string) (string, int) {
	if b, ok := strings.CutSuffix(id, "-tv2"); ok {
		return b, 2
	}
	return strings.TrimSuffix(id, "-tv1"), 1
}

func (s *simRun) outcomes() Outcomes {
	o := Outcomes{}
	w := s.w
	ev := eventList(w)
	meter := w.PauseMeter()
	pausedTotal, joins := 0, 0
	for _, seg := range segments(s.steps) {
		o.set(keyAssignment(seg.label), assignmentString(s.assigned[seg.step]))
		if !s.kip848 {
			o.setInt(keyGenerations(seg.label), seg.generation-generationBefore(s.steps, seg.from))
		}
		paused, ticks := meter.Between(int(seg.from), int(seg.to)+1)
		o.set(keyPaused(seg.label), listString(paused))
		o.setMeter(keyPauseTicks(seg.label), float64(ticks))
		if strings.HasPrefix(seg.label, "add ") {
			pausedTotal += len(paused)
			joins++
		}
	}
	if joins >= 3 {
		o.setInt(keyPausedTotal, pausedTotal)
	}

	// crashes and closes
	for i, e := range ev {
		if s.kip848 {
			break // the KIP-848 outcomes report crashes and closes (kip848.go)
		}
		switch e.Type {
		case kgviz.EvCrash:
			removed := -1.0
			for _, f := range ev[i:] {
				if f.Type == kgviz.EvMemberRemoved && f.MemberID == e.MemberID {
					removed = float64(f.Tick - e.Tick)
					break
				}
			}
			o.setTicks(keyRemovedAfter(e.Member), removed)
		case kgviz.EvClose:
			// close() runs at the member's next poll: its LeaveGroup (a static member sends none)
			ran := e.Tick
			for _, f := range ev[i:] {
				if f.Type == kgviz.EvSend && !f.Response && f.API == kgviz.LeaveGroup && f.From == e.Member {
					ran = f.Tick
					break
				}
				if f.Type == kgviz.EvActivity && f.Member == e.Member && f.Activity == kgviz.ActivityDead {
					ran = f.Tick
					break
				}
			}
			after := -1.0
			for _, f := range ev[i:] {
				if f.Type == kgviz.EvGroupState && f.GroupState == kgviz.GroupPreparingRebalance && f.Tick >= ran {
					after = float64(f.Tick - ran)
					break
				}
			}
			o.setTicks(keyRebalanceAfterClose(e.Member), after)
		case kgviz.EvPollTimeout:
			o.set(keyPollTimeout(e.Member), Yes)
		}
	}

	quiet := false
	for _, st := range s.steps {
		if st.Action == "quiet" {
			quiet = true
		}
	}
	if quiet {
		s.processingOutcomes(o, ev)
	}

	// refusals and what the application saw
	for _, e := range ev {
		if e.Type == kgviz.EvSend && e.Response && e.Error != kgviz.NONE && e.API != kgviz.Heartbeat && e.To != "B1" {
			if code := e.Error.String(); !ignoredErrors[code] {
				o.set(keyRejected(e.API.String(), code), Yes)
			}
		}
		if ex := simException(e); ex != "" {
			o.set(keyRaised(ex), Yes)
		}
	}

	if s.demo == 1 {
		for _, seg := range segments(s.steps) {
			for _, m := range w.Members() {
				kept, out := splitLeftOut(simSequence(ev, m, seg.from, seg.to))
				o.set(keySequence(m, seg.label), kinds(kept))
				o.set(keyLeftOut(m, seg.label), out)
			}
		}
	}
	if s.demo == 10 {
		o.set(keyTxnSequence("C1"), simFirstTransaction(ev, "C1"))
	}
	if s.kip848 {
		s.kip848Outcomes(o, ev)
	}
	return o
}

func generationBefore(steps []Step, t float64) int {
	g := 0
	for _, s := range steps {
		if s.Action == "stable" && !s.Timeout && s.Tick <= t && s.Generation > g {
			g = s.Generation
		}
	}
	return g
}

// simException names the exception a Java application would have caught for
// a simulated client error.
func simException(e kgviz.Event) string {
	switch e.Type {
	case kgviz.EvCommitFailed:
		if e.Exception != "" {
			return string(e.Exception)
		}
		return "CommitFailedException"
	case kgviz.EvError:
		switch {
		case e.Error == kgviz.PRODUCER_FENCED || e.Exception == kgviz.ProducerFencedException:
			return "ProducerFencedException"
		case e.API == kgviz.TxnOffsetCommit && (e.Error == kgviz.ILLEGAL_GENERATION || e.Error == kgviz.UNKNOWN_MEMBER_ID || e.Error == kgviz.FENCED_INSTANCE_ID):
			return "CommitFailedException" // KIP-447: sendOffsetsToTransaction fails with it
		case e.Error == kgviz.INVALID_PRODUCER_EPOCH:
			return "InvalidProducerEpochException"
		case e.Error == kgviz.FENCED_INSTANCE_ID:
			return "FencedInstanceIdException"
		case e.Error == kgviz.OUT_OF_ORDER_SEQUENCE_NUMBER:
			return "OutOfOrderSequenceException"
		case e.Error != kgviz.NONE:
			return "KafkaException(" + e.Error.String() + ")"
		}
	}
	return ""
}

// simSequence lists a member's group and offset requests in (from, to], with
// the answer's error; the rebalance notice counts as a refused Heartbeat.
func simSequence(ev []kgviz.Event, m string, from, to float64) []string {
	answers := map[int]kgviz.ErrorCode{}
	for _, e := range ev {
		if e.Type == kgviz.EvSend && e.Response {
			answers[e.ReplyTo] = e.Error
		}
	}
	var out []string
	for _, e := range ev {
		t := float64(e.Tick)
		if e.Type != kgviz.EvSend || t <= from || t > to || !groupFamilies[e.API.String()] {
			continue
		}
		var code kgviz.ErrorCode
		switch {
		case !e.Response && e.From == m:
			code = answers[e.Msg]
		case e.Response && e.To == m && e.API == kgviz.Heartbeat && e.Error != kgviz.NONE:
			code = e.Error
		default:
			continue
		}
		if e.API == kgviz.Heartbeat && code == kgviz.NONE {
			continue
		}
		s := e.API.String()
		if code != kgviz.NONE {
			s += "(" + code.String() + ")"
		}
		out = append(out, s)
	}
	return out
}

// simFirstTransaction: the member's transactional requests from InitProducerId
// to its first EndTxn, then the broker's markers.
func simFirstTransaction(ev []kgviz.Event, m string) string {
	answers := map[int]kgviz.ErrorCode{}
	for _, e := range ev {
		if e.Type == kgviz.EvSend && e.Response {
			answers[e.ReplyTo] = e.Error
		}
	}
	var seq []string
	started := false
	end := -1
	for _, e := range ev {
		if e.Type != kgviz.EvSend || e.Response || e.From != m || !txnAPIs[e.API.String()] {
			continue
		}
		if e.API == kgviz.FindCoordinator {
			continue // kgviz's only FindCoordinator is the consumer's, for the group
		}
		if e.API == kgviz.InitProducerID {
			started = true
		}
		if !started {
			continue
		}
		s := e.API.String()
		if c := answers[e.Msg]; c != kgviz.NONE && !ignoredErrors[c.String()] {
			s += "(" + c.String() + ")"
		}
		seq = append(seq, s)
		if e.API == kgviz.EndTxn {
			end = e.Tick
			break
		}
	}
	if end >= 0 {
		for _, e := range ev {
			if e.Type == kgviz.EvSend && !e.Response && e.API == kgviz.WriteTxnMarkers && e.Tick >= end {
				seq = append(seq, "B1:WriteTxnMarkers")
				break
			}
		}
	}
	return collapse(seq)
}

func (s *simRun) processingOutcomes(o Outcomes, ev []kgviz.Event) {
	w := s.w
	var twice []string
	for rec, n := range w.ProcessedCount() {
		if n > 1 {
			twice = append(twice, rec)
		}
	}
	o.set(keyProcessedTwice, listString(twice))
	log, _ := w.Log("invoices", 0)
	var rc, ru []string
	for _, r := range log {
		if r.State == kgviz.StateMarker {
			continue
		}
		ru = append(ru, r.Record)
		if r.State == kgviz.StateCommitted {
			rc = append(rc, r.Record)
		}
	}
	o.setInt(keyDupRC, extraCopies(rc))
	o.setInt(keyDupRU, extraCopies(ru))
	o.setInt(keyInvoicesRC, len(rc))
	o.set(keyLost, listString(w.Stats().LostRecords))

	// the crashed batch, named relative to itself
	for _, st := range s.steps {
		if st.Action != "arm-crash" || st.WhenPolled == "" {
			continue
		}
		part := strings.SplitN(st.WhenPolled, ".", 2)[0]
		crashAt, crashID := -1, ""
		for _, e := range ev {
			if e.Type == kgviz.EvCrash && e.Member == st.Member {
				crashAt, crashID = e.Tick, e.MemberID
				break
			}
		}
		if crashAt < 0 {
			continue
		}
		// the batch: the records of the process's last poll before the crash
		lastPoll := -1
		for _, e := range ev {
			if e.Type == kgviz.EvFetched && e.MemberID == crashID && e.Tick <= crashAt {
				lastPoll = e.Tick
			}
		}
		first, end := -1, -1
		for _, e := range ev {
			if e.Type == kgviz.EvFetched && e.MemberID == crashID && e.Tick == lastPoll && e.Partition == part {
				if first < 0 || e.Offset < first {
					first = e.Offset
				}
				if e.Offset+1 > end {
					end = e.Offset + 1
				}
			}
		}
		n := 0
		for _, e := range ev {
			if e.Type == kgviz.EvProcessed && e.MemberID == crashID && e.Tick > lastPoll && e.Tick <= crashAt {
				n++
			}
		}
		o.setInt(keyCrashedBatch(st.Member), n)
		if first < 0 {
			continue
		}
		committed := -1
		for _, e := range ev {
			if e.Tick > crashAt {
				break
			}
			if e.Type == kgviz.EvOffsetCommitted && e.Partition == part {
				committed = e.Offset
			}
		}
		o.set(keyCommittedAtCrash(st.Member, part), relativeOffset(committed, first, end))
		next := -1
		for _, e := range ev {
			if e.Type == kgviz.EvFetched && e.Tick > crashAt && e.MemberID != crashID && e.Partition == part {
				next = e.Offset
				break
			}
		}
		o.set(keyNextOwnerStart(st.Member, part), relativeOffset(next, first, end))
	}

	// transactions
	if s.commit == kgviz.Transactional {
		commits, aborts := 0, 0
		for _, r := range log {
			if r.State == kgviz.StateMarker {
				switch r.Record {
				case "COMMIT":
					commits++
				case "ABORT":
					aborts++
				}
			}
		}
		o.setInfo(keyCommitMarkers, fmt.Sprint(commits))
		o.setInt(keyAbortMarkers, aborts)
		owners := map[int64]string{}
		for _, e := range ev {
			if e.Type == kgviz.EvAppend && e.Partition == "invoices-0" && e.PID != 0 {
				owners[e.PID] = e.Member
			}
		}
		var recs []txnRecord
		for _, r := range log {
			if r.PID == 0 {
				continue
			}
			recs = append(recs, txnRecord{member: owners[r.PID], epoch: r.Epoch, marker: r.State == kgviz.StateMarker})
		}
		epochOutcomes(o, recs, s.tv >= 2)
	}
	if s.demo == 11 {
		restart := -1
		for _, st := range s.steps {
			if st.Action == "restart" {
				restart = int(st.Tick)
			}
		}
		simLSOOutcomes(o, log, restart)
	}
	if s.demo == 8 {
		copies := 0
		for _, r := range log {
			if r.Record == "inv(p2.3)" {
				copies++
			}
		}
		o.setInt(keyCopiesP23, copies)
		var sent []int
		for _, e := range ev {
			if req, ok := e.Body().(*kgviz.ProduceRequest); ok && e.Type == kgviz.EvSend && e.From == "C2" && req.Batch.Record == "inv(p2.3)" {
				sent = append(sent, e.Tick)
			}
		}
		retry := -1.0
		if len(sent) >= 2 {
			retry = float64(sent[1] - sent[0])
		}
		o.setTicks(keyRetryAfter, retry)
	}
	if s.demo == 9 {
		pids := map[string]map[int64]bool{}
		for _, r := range log {
			if pids[r.Record] == nil {
				pids[r.Record] = map[int64]bool{}
			}
			pids[r.Record][r.PID] = true
		}
		o.set(keyPIDsTwice, pidsPerInvoice(twice, func(inv string) int { return len(pids[inv]) }))
	}
}

// simLSOOutcomes (demo 11) from the log's append ticks: the LSO at tick t is
// the first offset of a transaction still open at t, else the high watermark.
func simLSOOutcomes(o Outcomes, log []kgviz.LogRecord, restart int) {
	first := -1
	for _, r := range log {
		if r.State == kgviz.StateAborted {
			first = r.Offset
			break
		}
	}
	if first < 0 {
		o.set(keyLSOHeld, No)
		return
	}
	closeTick := map[int]int{} // offset of a transactional record -> tick of its marker
	for i, r := range log {
		if !r.Transactional || r.State == kgviz.StateMarker {
			continue
		}
		closeTick[r.Offset] = 1 << 30
		for _, m := range log[i+1:] {
			if m.State == kgviz.StateMarker && m.PID == r.PID {
				closeTick[r.Offset] = m.Tick
				break
			}
		}
	}
	last := 0
	for _, r := range log {
		if r.Tick > last {
			last = r.Tick
		}
	}
	lsoHW := func(t int) (int, int) {
		hw := 0
		lso := -1
		for _, r := range log {
			if r.Tick > t {
				continue
			}
			hw = r.Offset + 1
			if c, ok := closeTick[r.Offset]; ok && c > t && (lso < 0 || r.Offset < lso) {
				lso = r.Offset
			}
		}
		if lso < 0 {
			lso = hw
		}
		return lso, hw
	}
	held, moved := false, -1
	if restart >= 0 {
		for _, m := range log[first:] {
			if m.State == kgviz.StateMarker && m.Record == "ABORT" && m.PID == log[first].PID && m.Tick >= restart {
				o.setTicks(keyAbortAfterRestart, float64(m.Tick-restart))
				break
			}
		}
		for t := restart; t <= last; t++ {
			if lso, _ := lsoHW(t); lso > first {
				o.setTicks(keyLSOAfterRestart, float64(t-restart))
				break
			}
		}
		return
	}
	for t := 0; t <= last; t++ {
		lso, hw := lsoHW(t)
		if lso == first && hw > first+1 {
			held = true
		}
		if lso > first && moved < 0 {
			moved = t
		}
	}
	o.set(keyLSOHeld, map[bool]string{true: Yes, false: No}[held])
	if moved >= 0 {
		o.setTicks(keyAbortAfter, float64(moved-log[first].Tick))
	}
}

// eventList returns a world's events as a slice.
func eventList(w *kgviz.World) []kgviz.Event {
	out := make([]kgviz.Event, 0, w.EventCount())
	for _, e := range w.Events() {
		out = append(out, e)
	}
	return out
}
