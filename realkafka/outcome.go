package realkafka

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Outcome is one thing a student looks at, reduced to a value that can be
// compared between the simulation and a real broker: an assignment, a count,
// a set of records, a yes/no, or a time in ticks.
type Outcome struct {
	Key   string
	Value string
	// Ticks outcomes are times, compared within the outcome's Tolerance
	// (known_differences.json): heartbeats, timers and client start-up are not
	// tick-exact on a broker.
	Ticks bool
	Num   float64
	// Meter outcomes are pause meters (partition-ticks), compared within
	// MeterFactor of each other (or less than one partition-tick apart).
	Meter bool
	// Info outcomes are shown beside the others but never counted as a difference
	// (durations that depend on kgviz's one-tick round trips).
	Info bool
	seq  int // the order the outcome was extracted in: the order of the story
}

// Outcomes maps an outcome's key to it.
type Outcomes map[string]Outcome

func (o Outcomes) put(x Outcome) {
	if old, ok := o[x.Key]; ok {
		x.seq = old.seq
	} else {
		x.seq = len(o)
	}
	o[x.Key] = x
}

func (o Outcomes) set(key, value string) { o.put(Outcome{Key: key, Value: value}) }

func (o Outcomes) setInt(key string, v int) { o.set(key, strconv.Itoa(v)) }

func (o Outcomes) setTicks(key string, v float64) {
	o.put(Outcome{Key: key, Value: fmtTicks(v), Ticks: true, Num: v})
}

func (o Outcomes) setMeter(key string, v float64) {
	o.put(Outcome{Key: key, Value: fmt.Sprintf("%.1f", v), Meter: true, Num: v})
}

// MeterFactor is how far apart a pause meter may be between kgviz and Kafka
// and still compare equal: the larger at most 1.5 times the smaller.
const MeterFactor = 1.5

// metersAgree: within MeterFactor, or less than one partition-tick apart (a
// pause shorter than a tick, which the recording's 0.1-tick times can show and
// kgviz's integer ticks cannot).
func metersAgree(a, b float64) bool {
	lo, hi := min(a, b), max(a, b)
	return hi-lo < 1+1e-9 || hi <= lo*MeterFactor+1e-9
}

func (o Outcomes) setInfo(key, value string) { o.put(Outcome{Key: key, Value: value, Info: true}) }

// Keys returns the keys in the order they were extracted (the order of the story).
func (o Outcomes) Keys() []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if o[keys[i]].seq != o[keys[j]].seq {
			return o[keys[i]].seq < o[keys[j]].seq
		}
		return keys[i] < keys[j]
	})
	return keys
}

func fmtTicks(v float64) string {
	if v < 0 {
		return "never"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// Yes/no values of the boolean outcomes.
const (
	Yes = "yes"
	No  = "no"
)

// Outcome keys. Both extractions (real.go from a recording, sim.go from a
// kgviz World) use these constructors, so the keys are the same on both sides.
func keyAssignment(label string) string  { return "after " + label + ": assignment" }
func keyGenerations(label string) string { return "after " + label + ": new generations" }
func keyPaused(label string) string      { return "after " + label + ": partitions paused" }
func keyPauseTicks(label string) string  { return "after " + label + ": pause meter (partition-ticks)" }
func keyRemovedAfter(m string) string    { return "crash " + m + ": removed from the group after (ticks)" }
func keyRebalanceAfterClose(m string) string {
	return "close " + m + ": rebalance starts after (ticks)"
}
func keyRejected(api, code string) string { return "rejected: " + api + " " + code }
func keyRaised(exception string) string   { return "client raised: " + exception }
func keySequence(m, label string) string {
	return "kinds of requests of " + m + " during " + label + ", in order"
}
func keyLeftOut(m, label string) string {
	return "requests of " + m + " during " + label + " that kgviz does not send"
}
func keyCrashedBatch(m string) string {
	return "crash " + m + ": records of its batch processed before the crash"
}
func keyCommittedAtCrash(m, p string) string {
	return "crash " + m + ": committed offset of " + p + " at the crash"
}
func keyNextOwnerStart(m, p string) string {
	return "crash " + m + ": the next owner of " + p + " starts at"
}
func keyEpochs(m string) string { return "producer epochs of " + m + "'s invoices" }
func keyEpochBump(m string) string {
	return "a new producer epoch for each of " + m + "'s transactions"
}
func keyEpochGaps(m string) string {
	return "producer epochs of " + m + " that no invoice carries (fences)"
}
func keyTxnSequence(m string) string { return "requests of " + m + "'s first transaction" }
func keyPollTimeout(m string) string { return m + " left the group on max.poll.interval.ms" }

const (
	keyProcessedTwice    = "records processed more than once"
	keyDupRC             = "duplicate invoices (read_committed reader)"
	keyDupRU             = "duplicate invoices (read_uncommitted reader)"
	keyLost              = "lost records"
	keyInvoicesRC        = "invoices a read_committed reader sees"
	keyCommitMarkers     = "COMMIT markers in invoices-0"
	keyAbortMarkers      = "ABORT markers in invoices-0"
	keyLSOHeld           = "LSO held at the open transaction while others committed behind it"
	keyAbortAfter        = "open transaction aborted after its first record (ticks)"
	keyAbortAfterRestart = "open transaction aborted after the restart (ticks)"
	keyLSOAfterRestart   = "LSO past the aborted records after the restart (ticks)"
	keyCopiesP23         = "copies of inv(p2.3) in invoices-0"
	keyRetryAfter        = "Produce of inv(p2.3) sent again after (ticks)"
	keyPIDsTwice         = "producer ids per invoice of a record processed twice"
	keyPausedTotal       = "partitions paused, summed over the joins"
	keyFinalAssignments  = "assignment at the end"
)

// assignmentString renders members' partitions: "C1{o0 o1 p0 p1} C2{o2 p2}".
func assignmentString(a map[string][]string) string {
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		ps := append([]string(nil), a[n]...)
		sort.Strings(ps)
		fmt.Fprintf(&b, "%s{%s}", n, strings.Join(ps, " "))
	}
	return b.String()
}

func listString(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	c := append([]string(nil), s...)
	sort.Strings(c)
	return strings.Join(c, " ")
}

// extraCopies counts the copies of values beyond the first.
func extraCopies(values []string) int {
	seen := map[string]int{}
	n := 0
	for _, v := range values {
		if seen[v] > 0 {
			n++
		}
		seen[v]++
	}
	return n
}

// relativeOffset names an offset by its place in a batch: "the crashed batch's
// first offset" and so on, so runs whose batches hold other records compare.
func relativeOffset(off, batchFirst, batchEnd int) string {
	switch {
	case off < 0:
		return "none"
	case off == batchFirst:
		return "the crashed batch's first offset"
	case off == batchEnd:
		return "the offset after the crashed batch"
	case off < batchFirst:
		return "before the crashed batch"
	default:
		return "after the crashed batch"
	}
}

// kinds reduces a request sequence to the order in which each kind of request
// (API and error) first appears, as a sequence diagram reads: how many
// heartbeats or commits a real member sends depends on how long its batch runs.
func kinds(seq []string) string {
	seen := map[string]bool{}
	var out []string
	for _, s := range seq {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

// leftOut are the requests of a rebalance kgviz does not simulate, on
// purpose (docs/simplifications.md): a new member's first JoinGroup answered
// MEMBER_ID_REQUIRED (KIP-394) and the ListOffsets that resets a partition
// without a committed offset (auto.offset.reset). The request sequences are
// compared without them, so the order of everything else is checked exactly,
// and what was left out is an outcome of its own.
var leftOut = map[string]bool{"JoinGroup(MEMBER_ID_REQUIRED)": true, "ListOffsets": true}

// splitLeftOut returns seq without the left-out requests, and the left-out
// kinds in the order they first appear ("none" if there are none).
func splitLeftOut(seq []string) (kept []string, out string) {
	var dropped []string
	for _, s := range seq {
		if leftOut[s] {
			dropped = append(dropped, s)
		} else {
			kept = append(kept, s)
		}
	}
	return kept, kinds(dropped)
}

// collapse joins a request sequence, writing a run of the same entry once with "+".
func collapse(seq []string) string {
	var out []string
	for i := 0; i < len(seq); i++ {
		j := i
		for j+1 < len(seq) && seq[j+1] == seq[i] {
			j++
		}
		if j > i {
			out = append(out, seq[i]+"+")
		} else {
			out = append(out, seq[i])
		}
		i = j
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

// ignoredErrors are answers a real broker gives while its coordinators load
// right after start-up; they say nothing about the scenario.
var ignoredErrors = map[string]bool{
	"COORDINATOR_LOAD_IN_PROGRESS": true,
	"COORDINATOR_NOT_AVAILABLE":    true,
	"NOT_COORDINATOR":              true,
}

// segment is a scenario's stretch between two Stable() waits, named after what
// the scenario did in it ("add C2", "close C2").
type segment struct {
	label      string
	from, to   float64
	generation int // the generation at the end (classic), recorded by the step
	step       int // the index of the Stable() step that ends it
}

// segments turns steps into labelled stretches ending at each reached Stable().
func segments(steps []Step) []segment {
	var out []segment
	var pending []string
	from := -1.0 // the first stretch includes tick 0
	used := map[string]int{}
	for i, s := range steps {
		switch s.Action {
		case "add", "close", "restart", "crash":
			pending = append(pending, s.Action+" "+s.Member)
		case "stable":
			if s.Timeout || len(pending) == 0 {
				continue
			}
			label := strings.Join(pending, ", ")
			used[label]++
			if used[label] > 1 {
				label += fmt.Sprintf(" (#%d)", used[label])
			}
			out = append(out, segment{label: label, from: from, to: s.Tick, generation: s.Generation, step: i})
			pending = nil
			from = s.Tick
		}
	}
	return out
}

// txnRecord is one offset of invoices-0 for the epoch outcomes: a record or
// a marker of a member's producer.
type txnRecord struct {
	member string
	epoch  int
	marker bool
}

// epochOutcomes: which epochs each member's invoices carry (with
// transaction.version 2 one per transaction, so their number follows the
// number of transactions, which the fetch model makes differ: shown, not
// compared), whether each of its transactions had a new epoch (version 2:
// yes; version 1: only after a restart), and which epochs between the first
// and the last no invoice carries (a fence's bump).
func epochOutcomes(o Outcomes, log []txnRecord, tv2 bool) {
	epochs := map[string]map[int]bool{}
	txnEpochs := map[string][]int{} // per member, the epoch of each transaction with records
	open := map[string]bool{}
	for _, r := range log {
		if r.member == "" {
			continue
		}
		if r.marker {
			open[r.member] = false
			continue
		}
		if epochs[r.member] == nil {
			epochs[r.member] = map[int]bool{}
		}
		epochs[r.member][r.epoch] = true
		if !open[r.member] {
			open[r.member] = true
			txnEpochs[r.member] = append(txnEpochs[r.member], r.epoch)
		}
	}
	for m, es := range epochs {
		if tv2 {
			o.setInfo(keyEpochs(m), intSet(es))
		} else {
			o.set(keyEpochs(m), intSet(es))
		}
		if te := txnEpochs[m]; len(te) > 1 {
			bumps := 0
			for i := 1; i < len(te); i++ {
				if te[i] > te[i-1] {
					bumps++
				}
			}
			v := "sometimes"
			switch bumps {
			case 0:
				v = No
			case len(te) - 1:
				v = Yes
			}
			o.set(keyEpochBump(m), v)
		}
		lo, hi := -1, -1
		for e := range es {
			if lo < 0 || e < lo {
				lo = e
			}
			if e > hi {
				hi = e
			}
		}
		gaps := map[int]bool{}
		for e := lo; e <= hi; e++ {
			if !es[e] {
				gaps[e] = true
			}
		}
		v := intSet(gaps)
		if v == "" {
			v = "none"
		}
		o.set(keyEpochGaps(m), v)
	}
}
