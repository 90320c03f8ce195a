package realkafka

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// RealOutcomes extracts the outcomes of one real run.
func RealOutcomes(r *Recording) Outcomes {
	o := Outcomes{}
	x := newRealView(r)
	kip848 := r.World["protocol"] == "consumer"

	// Joins, closes, restarts and crashes that ended in Stable().
	pausedTotal := 0
	joins := 0
	for _, s := range segments(r.Steps) {
		o.set(keyAssignment(s.label), assignmentString(x.assignmentExcept(s.to, x.startedAfter(s))))
		if !kip848 {
			o.setInt(keyGenerations(s.label), s.generation-generationBefore(r.Steps, s.from))
		}
		paused, ticks := x.paused(s.from, s.to)
		o.set(keyPaused(s.label), listString(paused))
		o.setMeter(keyPauseTicks(s.label), ticks)
		if strings.HasPrefix(s.label, "add ") {
			pausedTotal += len(paused)
			joins++
		}
	}
	if joins >= 3 {
		o.setInt(keyPausedTotal, pausedTotal)
	}

	// Crashes: when the coordinator removed the member.
	for _, c := range x.crashes() {
		if kip848 {
			continue // reported by the KIP-848 outcomes
		}
		o.setTicks(keyRemovedAfter(c.member), x.removedAfter(c))
	}
	// Closes: when the rebalance started, from the moment close() ran.
	for _, e := range r.Events {
		if e.Type == "close-start" && !kip848 {
			o.setTicks(keyRebalanceAfterClose(e.Member), x.rebalanceAfter(e.Tick))
		}
	}

	quiet := false
	for _, s := range r.Steps {
		if s.Action == "quiet" && !s.Timeout {
			quiet = true
		}
	}
	if quiet {
		x.processingOutcomes(o)
	}

	// What the broker refused and what the application was told.
	for _, q := range r.Requests {
		if q.Member == "B1" || q.API == "Heartbeat" || q.API == "ConsumerGroupHeartbeat" {
			continue
		}
		for _, e := range append([]string{q.Error}, q.Errors...) {
			if e != "" && e != "NONE" && !ignoredErrors[e] {
				o.set(keyRejected(q.API, e), Yes)
			}
		}
	}
	for _, e := range r.Events {
		if ex := realException(e); ex != "" {
			o.set(keyRaised(ex), Yes)
		}
	}
	for _, e := range r.Events {
		if e.Type == "poll-timeout" { // the consumer's own warning (dynamic members then send LeaveGroup)
			o.set(keyPollTimeout(e.Member), Yes)
		}
	}

	// Request sequences (demo 1: the group protocol; demo 10: a transaction).
	if r.Demo == 1 {
		for _, s := range segments(r.Steps) {
			for _, m := range x.memberNames() {
				kept, out := splitLeftOut(x.sequence(m, s.from, s.to, groupFamilies))
				o.set(keySequence(m, s.label), kinds(kept))
				o.set(keyLeftOut(m, s.label), out)
			}
		}
	}
	if r.Demo == 10 {
		o.set(keyTxnSequence("C1"), x.firstTransaction("C1"))
	}
	if kip848 {
		x.kip848Outcomes(o)
	}
	return o
}

var groupFamilies = map[string]bool{"FindCoordinator": true, "JoinGroup": true, "SyncGroup": true, "Heartbeat": true,
	"LeaveGroup": true, "OffsetCommit": true, "OffsetFetch": true, "ListOffsets": true}

// realException names what the application saw: the exception, or its cause
// when the client wrapped it in a KafkaException.
func realException(e MemberEvent) string {
	switch e.Type {
	case "commit-failed", "fatal", "error":
		ex := e.Exception
		if (ex == "KafkaException" || ex == "") && e.Cause != "" {
			ex = e.Cause
		}
		return ex
	}
	return ""
}

type realView struct {
	r *Recording
}

func newRealView(r *Recording) *realView { return &realView{r: r} }

type procKey struct {
	name string
	n    int
}

func (x *realView) memberNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range x.r.Members {
		if !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out
}

// ended returns the tick a process stopped being a member's running process
// (crash, close, fatal error, zombie stop, or left as a zombie by Restart), or -1.
func (x *realView) ended(k procKey) float64 {
	end := -1.0
	first := func(t float64) {
		if end < 0 || t < end {
			end = t
		}
	}
	for _, e := range x.r.Events {
		if e.Member == k.name && e.Process == k.n {
			switch e.Type {
			case "crash", "closed", "fatal", "zombie-stop", "exit":
				first(e.Tick)
			}
		}
	}
	for _, s := range x.r.Steps {
		if s.Member != k.name {
			continue
		}
		if s.Action == "zombie" && s.Process == k.n {
			first(s.Tick)
		}
		if s.Action == "crash" && x.processAt(k.name, s.Tick) == k.n { // a kill -9 from outside
			first(s.Tick)
		}
	}
	return end
}

// processAt returns the newest process of a member started at or before t.
func (x *realView) processAt(name string, t float64) int {
	best := 0
	for _, p := range x.r.Members {
		if p.Name == name && p.Started <= t+0.05 && p.Process > best {
			best = p.Process
		}
	}
	return best
}

// closedAt says whether the process's close() returned at tick t. The runner
// waits for close() to return before it records the next step, so a
// "closed" event in the same rounded tick as a step came before it (a crash
// step in the same tick as the step before it comes after it).
func (x *realView) closedAt(k procKey, t float64) bool {
	for _, e := range x.r.Events {
		if e.Member == k.name && e.Process == k.n && e.Type == "closed" && e.Tick == t {
			return true
		}
	}
	return false
}

// assignmentAt is what every running member owned at tick t, by its own view.
func (x *realView) assignmentAt(t float64) map[string][]string { return x.assignmentExcept(t, nil) }

// startedAfter: the processes that the steps after segment s's Stable() start
// in its last tenth of a tick (the recording's resolution): a static member's
// restart whose new process had its partitions back in the tick the group was
// found stable after its close (Kafka 4.4.0, quiet stability run Q440-1: C1's
// new process assigned o0 p0 at 11.9, the tick of the Stable() after C1's
// close). They belong to the next step.
func (x *realView) startedAfter(s segment) map[procKey]bool {
	out := map[procKey]bool{}
	for _, st := range x.r.Steps[s.step+1:] {
		if st.Tick != s.to {
			break
		}
		if (st.Action == "add" || st.Action == "restart") && st.Process > 0 {
			out[procKey{st.Member, st.Process}] = true
		}
	}
	return out
}

// assignmentExcept is assignmentAt without the processes in skip.
func (x *realView) assignmentExcept(t float64, skip map[procKey]bool) map[string][]string {
	out := map[string][]string{}
	for _, p := range x.r.Members {
		k := procKey{p.Name, p.Process}
		if p.Started > t || skip[k] {
			continue
		}
		if end := x.ended(k); end >= 0 && (end < t || end == t && x.closedAt(k, t)) {
			continue
		}
		var owned []string
		have := false
		for _, e := range x.r.Events {
			if e.Tick > t {
				break
			}
			if e.Tick == t && e.Member == p.Name && e.Process == p.Process && e.Type == "close-start" {
				// the next step's close began in the step's last tenth of a tick
				// (the recording's resolution): its revocation belongs to that step
				break
			}
			if e.Member == p.Name && e.Process == p.Process && hasOwned(e) {
				owned, have = ownedAfter(e), true
			}
		}
		if have {
			out[p.Name] = append([]string{}, owned...)
		}
	}
	return out
}

// ownedAfter is what the process owns once the event is over: a revocation
// callback runs while the partitions are still assigned, an assignment callback
// once they are.
func ownedAfter(e MemberEvent) []string {
	set := map[string]bool{}
	for _, p := range e.Owned {
		set[p] = true
	}
	switch e.Type {
	case "revoked", "lost":
		for _, p := range e.Partitions {
			delete(set, p)
		}
	case "assigned":
		for _, p := range e.Partitions {
			set[p] = true
		}
	}
	out := []string{}
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func hasOwned(e MemberEvent) bool {
	switch e.Type {
	case "group", "assigned", "revoked", "lost":
		return true
	}
	return false
}

// paused returns the partitions no running member consumed at some moment in
// (from, to] (after they had been consumed once), and the partition-ticks paused.
func (x *realView) paused(from, to float64) ([]string, float64) {
	type change struct {
		t     float64
		k     procKey
		owned []string
	}
	var changes []change
	for _, e := range x.r.Events {
		if hasOwned(e) {
			changes = append(changes, change{e.Tick, procKey{e.Member, e.Process}, ownedAfter(e)})
		}
	}
	for _, p := range x.r.Members {
		k := procKey{p.Name, p.Process}
		if end := x.ended(k); end >= 0 {
			changes = append(changes, change{end, k, nil})
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].t < changes[j].t })
	owned := map[procKey][]string{}
	ever := map[string]bool{}
	unowned := func() map[string]bool {
		u := map[string]bool{}
		for p := range ever {
			u[p] = true
		}
		for _, ps := range owned {
			for _, p := range ps {
				delete(u, p)
			}
		}
		return u
	}
	prevT, prevU := 0.0, map[string]bool{}
	pausedIn := map[string]bool{}
	ticks := 0.0
	account := func(t float64) { // the stretch [prevT, t)
		lo, hi := maxf(prevT, from), minf(t, to)
		if hi > lo {
			ticks += (hi - lo) * float64(len(prevU))
			for p := range prevU {
				pausedIn[p] = true
			}
		}
	}
	for _, c := range changes {
		if c.t > to {
			break
		}
		account(c.t)
		owned[c.k] = c.owned
		for _, p := range c.owned {
			ever[p] = true
		}
		prevT, prevU = c.t, unowned()
		if c.t > from {
			for p := range prevU {
				pausedIn[p] = true
			}
		}
	}
	account(to)
	var out []string
	for p := range pausedIn {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, ticks
}

func minf(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

type crash struct {
	member string
	proc   int
	tick   float64
}

func (x *realView) crashes() []crash {
	var out []crash
	for _, e := range x.r.Events {
		if e.Type == "crash" {
			out = append(out, crash{e.Member, e.Process, e.Tick})
		}
	}
	for _, s := range x.r.Steps {
		if s.Action == "crash" {
			out = append(out, crash{s.Member, x.processAt(s.Member, s.Tick), s.Tick})
		}
	}
	return out
}

func (x *realView) memberIDs(k procKey) []string {
	for _, p := range x.r.Members {
		if p.Name == k.name && p.Process == k.n {
			return p.MemberIDs
		}
	}
	return nil
}

// untagged strips the run's tag ("s07.") from a member id.
var tagRE = regexp.MustCompile(`^s\d+\.`)

func untagged(id string) string { return tagRE.ReplaceAllString(id, "") }

// removedAfter: from the crash to the coordinator's removal of the member (its log line).
func (x *realView) removedAfter(c crash) float64 {
	ids := x.memberIDs(procKey{c.member, c.proc})
	for _, l := range x.r.CoordinatorLog {
		if l.Tick < c.tick {
			continue
		}
		if !strings.Contains(l.Message, "has failed, removing it from the group") && !strings.Contains(l.Message, "fenced from the group") {
			continue
		}
		for _, id := range ids {
			if strings.Contains(l.Message, untagged(id)) {
				return l.Tick - c.tick
			}
		}
	}
	return -1
}

// rebalanceAfter: from t to the coordinator's next "Preparing to rebalance".
func (x *realView) rebalanceAfter(t float64) float64 {
	for _, l := range x.r.CoordinatorLog {
		if l.Tick >= t && strings.Contains(l.Message, "Preparing to rebalance") {
			return l.Tick - t
		}
	}
	return -1
}

// sequence lists a member's requests in (from, to] of the given APIs, "API" or "API(ERROR)".
func (x *realView) sequence(m string, from, to float64, apis map[string]bool) []string {
	var out []string
	for _, q := range x.r.Requests {
		if q.Member != m || q.Tick <= from || q.Tick > to || !apis[q.API] {
			continue
		}
		if q.API == "Heartbeat" && q.Error == "NONE" {
			continue
		}
		if ignoredErrors[q.Error] {
			continue
		}
		s := q.API
		if q.Error != "NONE" && q.Error != "" {
			s += "(" + q.Error + ")"
		}
		out = append(out, s)
	}
	return out
}

var txnAPIs = map[string]bool{"InitProducerId": true, "AddPartitionsToTxn": true, "Produce": true, "AddOffsetsToTxn": true,
	"TxnOffsetCommit": true, "EndTxn": true, "FindCoordinator": true}

// firstTransaction: the member's requests from its InitProducerId to its first
// EndTxn, then the markers the broker wrote for it.
func (x *realView) firstTransaction(m string) string {
	var seq []string
	started, ended := false, -1.0
	for _, q := range x.r.Requests {
		if q.Member != m || !txnAPIs[q.API] || ignoredErrors[q.Error] {
			continue
		}
		if q.API == "FindCoordinator" {
			// the group's coordinator is looked up by the consumer too: keep the producer's (transaction) lookups
			if kt, ok := q.Request["keyType"].(float64); !ok || kt != 1 {
				continue
			}
		}
		if q.API == "InitProducerId" {
			started = true
		}
		if !started {
			continue
		}
		s := q.API
		if q.Error != "NONE" && q.Error != "" {
			s += "(" + q.Error + ")"
		}
		seq = append(seq, s)
		if q.API == "EndTxn" {
			ended = q.Tick
			break
		}
	}
	if ended >= 0 {
		for _, q := range x.r.Requests {
			if q.Member == "B1" && q.API == "WriteTxnMarkers" && q.Tick >= ended {
				seq = append(seq, "B1:WriteTxnMarkers")
				break
			}
		}
	}
	return collapse(seq)
}

// processingOutcomes: what the audit readers see, duplicates, losses, the crashed batch.
func (x *realView) processingOutcomes(o Outcomes) {
	r := x.r
	count := map[string]int{}
	for _, e := range r.Events {
		if e.Type == "processed" {
			count[e.Record]++
		}
	}
	var twice []string
	for rec, n := range count {
		if n > 1 {
			twice = append(twice, rec)
		}
	}
	o.set(keyProcessedTwice, listString(twice))
	var rc, ru []string
	for _, v := range r.Invoices.ReadCommitted {
		rc = append(rc, v.Record)
	}
	for _, v := range r.Invoices.ReadUncommitted {
		ru = append(ru, v.Record)
	}
	o.setInt(keyDupRC, extraCopies(rc))
	o.setInt(keyDupRU, extraCopies(ru))
	o.setInt(keyInvoicesRC, len(rc))
	invoiced := map[string]bool{}
	for _, v := range rc {
		invoiced[v] = true
	}
	var lost []string
	for _, p := range []string{"o0", "o1", "o2", "p0", "p1", "p2"} {
		for off := 0; off < r.Committed[p]; off++ {
			name := fmt.Sprintf("%s.%d", p, off)
			if !invoiced["inv("+name+")"] {
				lost = append(lost, name)
			}
		}
	}
	o.set(keyLost, listString(lost))

	// the crashed batch, named relative to itself
	for _, c := range x.crashes() {
		arm := x.armFor(c.member)
		if arm == "" {
			continue
		}
		batch, polledAt := x.lastBatch(c)
		if batch == nil {
			continue
		}
		n := 0 // the records processed between that poll and the crash, in event order
		for _, e := range r.Events[polledAt+1:] {
			if e.Member != c.member || e.Process != c.proc {
				continue
			}
			if e.Type == "crash" || e.Tick > c.tick {
				break
			}
			if e.Type == "processed" {
				n++
			}
		}
		o.setInt(keyCrashedBatch(c.member), n)
		part := strings.SplitN(arm, ".", 2)[0]
		first, end := -1, -1
		for _, rec := range batch {
			if strings.HasPrefix(rec, part+".") {
				var off int
				fmt.Sscanf(strings.TrimPrefix(rec, part+"."), "%d", &off)
				if first < 0 || off < first {
					first = off
				}
				if off+1 > end {
					end = off + 1
				}
			}
		}
		if first < 0 {
			continue
		}
		o.set(keyCommittedAtCrash(c.member, part), relativeOffset(x.committedAt(part, c.tick), first, end))
		o.set(keyNextOwnerStart(c.member, part), relativeOffset(x.nextStart(part, c), first, end))
	}

	// transactions
	commits, aborts := 0, 0
	for _, rec := range r.Invoices.Log {
		switch rec.Control {
		case "COMMIT":
			commits++
		case "ABORT":
			aborts++
		}
	}
	if r.World["commit"] == "transactional" {
		o.setInfo(keyCommitMarkers, fmt.Sprint(commits)) // one per batch: batches differ (fetch model)
		o.setInt(keyAbortMarkers, aborts)
		owners := x.pidOwners()
		var recs []txnRecord
		for _, rec := range r.Invoices.Log {
			if rec.PID < 0 {
				continue
			}
			recs = append(recs, txnRecord{member: owners[rec.PID], epoch: rec.Epoch, marker: rec.Control != ""})
		}
		epochOutcomes(o, recs, r.TransactionVersion >= 2)
	}
	if r.Demo == 11 {
		x.lsoOutcomes(o)
	}
	if r.Demo == 8 {
		copies := 0
		for _, rec := range r.Invoices.Log {
			if rec.Record == "inv(p2.3)" {
				copies++
			}
		}
		o.setInt(keyCopiesP23, copies)
		o.setTicks(keyRetryAfter, x.retryAfter())
	}
	if r.Demo == 9 {
		pids := map[string]map[int]bool{}
		for _, rec := range r.Invoices.Log {
			if pids[rec.Record] == nil {
				pids[rec.Record] = map[int]bool{}
			}
			pids[rec.Record][rec.PID] = true
		}
		o.set(keyPIDsTwice, pidsPerInvoice(twice, func(inv string) int { return len(pids[inv]) }))
	}
}

func intSet(m map[int]bool) string {
	var v []int
	for k := range m {
		v = append(v, k)
	}
	sort.Ints(v)
	s := make([]string, len(v))
	for i, k := range v {
		s[i] = fmt.Sprint(k)
	}
	return strings.Join(s, " ")
}

// armFor returns the record a crash of member was armed on ("p2.3"), or "".
func (x *realView) armFor(member string) string {
	for _, s := range x.r.Steps {
		if s.Action == "arm-crash" && s.Member == member && s.WhenPolled != "" {
			return s.WhenPolled
		}
	}
	return ""
}

// lastBatch: the records of the crashed process's last poll before the crash,
// and that poll's index in the events.
func (x *realView) lastBatch(c crash) ([]string, int) {
	var batch []string
	at := -1
	for i, e := range x.r.Events {
		if e.Tick > c.tick {
			break
		}
		if e.Member == c.member && e.Process == c.proc && e.Type == "polled" {
			batch, at = e.Records, i
		}
	}
	return batch, at
}

// committedAt: the partition's committed offset at tick t: the members' own
// successful commits and transactions, and the OffsetCommits the broker
// accepted (auto-commit commits inside poll(), unseen by the application).
func (x *realView) committedAt(part string, t float64) int {
	off, at := -1, -1.0
	for _, e := range x.r.Events {
		if e.Tick > t {
			break
		}
		if e.Type == "committed" || e.Type == "commit-transaction" {
			if v, ok := e.CommitOffsets()[part]; ok {
				off, at = int(v), e.Tick
			}
		}
	}
	for _, q := range x.r.Requests {
		if q.Tick > t || q.API != "OffsetCommit" || q.Error != "NONE" || q.Tick < at {
			continue
		}
		if v, ok := committedIn(q.Request, part); ok {
			off, at = v, q.Tick
		}
	}
	return off
}

// committedIn reads a partition's offset from an OffsetCommit request's JSON.
func committedIn(req map[string]any, part string) (int, bool) {
	topic := map[byte]string{'o': "orders", 'p': "payments"}[part[0]]
	var idx int
	fmt.Sscanf(part[1:], "%d", &idx)
	topics, _ := req["topics"].([]any)
	for _, tv := range topics {
		tm, _ := tv.(map[string]any)
		if tm["name"] != topic {
			continue
		}
		parts, _ := tm["partitions"].([]any)
		for _, pv := range parts {
			pm, _ := pv.(map[string]any)
			if pi, _ := pm["partitionIndex"].(float64); int(pi) == idx {
				if co, ok := pm["committedOffset"].(float64); ok {
					return int(co), true
				}
			}
		}
	}
	return 0, false
}

// nextStart: the first offset of part another process read after the crash.
func (x *realView) nextStart(part string, c crash) int {
	for _, e := range x.r.Events {
		if e.Tick < c.tick || e.Type != "polled" || (e.Member == c.member && e.Process == c.proc) {
			continue
		}
		var offs []int
		_ = json.Unmarshal(e.Offsets, &offs)
		for i, rec := range e.Records {
			if strings.HasPrefix(rec, part+".") && i < len(offs) {
				return offs[i]
			}
		}
	}
	return -1
}

// pidOwners maps the renumbered producer ids to their members (InitProducerId answers).
func (x *realView) pidOwners() map[int]string {
	out := map[int]string{}
	for _, q := range x.r.Requests {
		if q.API == "InitProducerId" && q.Error == "NONE" {
			if pid, ok := q.Response["producerId"].(float64); ok {
				out[int(pid)] = q.Member
			}
		}
	}
	return out
}

// lsoOutcomes (demo 11): the LSO held at C2's open transaction, and when it was aborted.
func (x *realView) lsoOutcomes(o Outcomes) {
	r := x.r
	first := -1
	var pid int
	for _, rec := range r.Invoices.Log {
		if rec.Outcome == "aborted" {
			first, pid = rec.Offset, rec.PID
			break
		}
	}
	if first < 0 {
		o.set(keyLSOHeld, No)
		return
	}
	restart := -1.0
	for _, s := range r.Steps {
		if s.Action == "restart" {
			restart = s.Tick
		}
	}
	if restart >= 0 {
		// the restart's InitProducerId aborts at once: from the restart to the
		// ABORT marker the coordinator writes for the crashed producer (the request
		// log shows WriteTxnMarkers once it is done), and to the LSO moving on
		for _, q := range r.Requests {
			if q.Member == "B1" && q.API == "WriteTxnMarkers" && q.Tick >= restart && abortMarkerFor(q.Request, pid) {
				o.setTicks(keyAbortAfterRestart, q.Tick-restart)
				break
			}
		}
		for _, s := range r.LSOSamples {
			if s.LSO > first {
				o.setTicks(keyLSOAfterRestart, s.Tick-restart)
				break
			}
		}
		return
	}
	held := false
	for _, s := range r.LSOSamples {
		if s.LSO == first && s.HW > first+1 {
			held = true
		}
	}
	o.set(keyLSOHeld, map[bool]string{true: Yes, false: No}[held])
	// when the first aborted record was written (the producer's ack) and when the LSO moved past it
	owner := x.pidOwners()[pid]
	rec := ""
	for _, e := range r.Invoices.Log {
		if e.Offset == first {
			rec = e.Record
		}
	}
	written := -1.0
	for _, e := range r.Events {
		if e.Member == owner && e.Type == "produced" && e.Record == rec {
			written = e.Tick
			break
		}
	}
	moved := -1.0
	for _, s := range r.LSOSamples {
		if s.LSO > first {
			moved = s.Tick
			break
		}
	}
	if written >= 0 && moved >= 0 {
		o.setTicks(keyAbortAfter, moved-written)
	}
}

// abortMarkerFor says whether a WriteTxnMarkers request carries an ABORT
// marker (transactionResult false) for the producer id.
func abortMarkerFor(req map[string]any, pid int) bool {
	markers, _ := req["markers"].([]any)
	for _, mv := range markers {
		m, _ := mv.(map[string]any)
		if p, _ := m["producerId"].(float64); int(p) == pid {
			if res, ok := m["transactionResult"].(bool); ok && !res {
				return true
			}
		}
	}
	return false
}

// retryAfter (demo 8): from the Produce whose answer was lost to the next Produce of that member.
func (x *realView) retryAfter() float64 {
	if len(x.r.LostResponses) == 0 {
		return -1
	}
	lost := x.r.LostResponses[0].Tick
	first := -1.0
	for _, q := range x.r.Requests {
		if q.Member != "C2" || q.API != "Produce" {
			continue
		}
		if first < 0 && q.Tick >= lost-0.3 {
			first = q.Tick
			continue
		}
		if first >= 0 && q.Tick > first {
			return q.Tick - first
		}
	}
	return -1
}

// pidsPerInvoice: for the records processed twice, how many producer ids wrote
// their invoice ("2": each was written by two producers), "none" without such records.
func pidsPerInvoice(twice []string, n func(inv string) int) string {
	counts := map[int]bool{}
	for _, r := range twice {
		counts[n("inv("+r+")")] = true
	}
	if len(counts) == 0 {
		return "none"
	}
	return intSet(counts)
}
