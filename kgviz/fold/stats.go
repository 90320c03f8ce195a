package fold

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kgviz/kgviz/kgviz/event"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

// Stats are the meters every demo can show.
type Stats struct {
	Processed       int                     // records processed (each time)
	Duplicates      int                     // extra copies of invoices the audit reader sees
	DuplicatesInLog int                     // extra copies of invoices in the raw log, aborted ones included
	Lost            int                     // input records below the committed offset never invoiced
	LostRecords     []string                // which ones
	Rejected        map[kafka.ErrorCode]int // responses with an error, by error code (heartbeat answers are notices, not rejections)
	TxnOpen         int                     // transactions open now
	TxnCommitted    int
	TxnAborted      int
	// Unassigned counts the rebalances whose assignor returned no plan or
	// left partitions out (EvAssignmentIncomplete; Kafka's client logs it).
	Unassigned int
	// Stopped is the error that stopped the world ("" if it runs): every
	// figure above is as of that moment.
	Stopped string
	// NeverRan: time never advanced (the world is at tick 0: no RunFor or
	// RunUntil yet), so every figure above is zero for that reason.
	NeverRan bool
}

// neverRanNote is what a world at tick 0 says about itself.
const neverRanNote = "time never advanced (tick 0: no RunFor or RunUntil yet)"

// String renders the stats on one line; a stopped world says so first.
func (s Stats) String() string {
	var rej []string
	for _, c := range ErrorCodesSorted(s.Rejected) {
		rej = append(rej, fmt.Sprintf("%s=%d", c, s.Rejected[c]))
	}
	line := fmt.Sprintf("processed=%d duplicates=%d (log %d) lost=%d rejected={%s} txn open=%d committed=%d aborted=%d",
		s.Processed, s.Duplicates, s.DuplicatesInLog, s.Lost, strings.Join(rej, " "), s.TxnOpen, s.TxnCommitted, s.TxnAborted)
	if s.Unassigned > 0 {
		line += fmt.Sprintf(" | %d assignment(s) left partitions unassigned", s.Unassigned)
	}
	if s.Stopped != "" {
		return "STOPPED: " + s.Stopped + " | " + line
	}
	if s.NeverRan {
		return neverRanNote + " | " + line
	}
	return line
}

// ErrorCodesSorted returns the codes of a count map sorted by name.
func ErrorCodesSorted(m map[kafka.ErrorCode]int) []kafka.ErrorCode {
	out := make([]kafka.ErrorCode, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Stats computes the meters.
func (f *Fold) Stats() Stats {
	if f.stats != nil {
		return *f.stats
	}
	s := Stats{Rejected: map[kafka.ErrorCode]int{}, Stopped: f.Stopped(), NeverRan: f.src.Now() == 0}
	txn := map[string]kafka.TxnState{}
	var txnOrder []string
	for _, e := range f.src.Events() {
		switch e.Type {
		case event.EvProcessed:
			s.Processed++
		case event.EvAssignmentIncomplete:
			s.Unassigned++
		case event.EvSend:
			if e.Response && e.Error != kafka.NONE && e.API != kafka.Heartbeat {
				s.Rejected[e.Error]++
			}
		case event.EvTxnState:
			if _, ok := txn[e.TransactionalID]; !ok {
				txnOrder = append(txnOrder, e.TransactionalID)
			}
			txn[e.TransactionalID] = e.TxnState
			switch e.TxnState {
			case kafka.TxnCompleteCommit:
				s.TxnCommitted++
			case kafka.TxnCompleteAbort:
				s.TxnAborted++
			}
		}
	}
	for _, id := range txnOrder {
		if txn[id].Open() {
			s.TxnOpen++
		}
	}
	inv := f.Log(InvoicesLog, f.Isolation())
	s.Duplicates = inv.SeenDup
	for _, c := range inv.Cells {
		if c.Marker == "" && c.Copy > 1 {
			s.DuplicatesInLog++
		}
	}
	s.LostRecords = f.lost(inv)
	s.Lost = len(s.LostRecords)
	f.stats = &s
	return s
}

// Committed returns the committed offset of every input partition (short
// names) that has one, from EvOffsetCommitted.
func (f *Fold) Committed() map[string]int {
	committed := map[string]int{}
	for _, e := range f.src.Events() {
		if e.Type == event.EvOffsetCommitted {
			committed[e.Partition] = e.Offset
		}
	}
	return committed
}

// lost lists the input records below the committed offset whose invoice
// was never written outside an open or aborted transaction.
func (f *Fold) lost(inv TopicLog) []string {
	invoiced := map[string]bool{}
	for _, c := range inv.Cells {
		if c.Marker == "" && (c.State == CellWritten || c.State == CellCommitted) {
			invoiced[c.Record] = true
		}
	}
	committed := f.Committed()
	var out []string
	for _, p := range f.src.Partitions() {
		for off := 0; off < committed[p]; off++ {
			name := p + "." + strconv.Itoa(off)
			if !invoiced["inv("+name+")"] {
				out = append(out, name)
			}
		}
	}
	return out
}

// Outcome is one world's row of a comparison: duplicates in the log and
// seen by the reader, lost records, rejected requests by error code.
type Outcome struct {
	DupRaw    int
	DupSeen   int
	Lost      int
	Rejected  map[kafka.ErrorCode]int
	Isolation kafka.IsolationLevel
}

// Outcome computes the comparison row for a reader at the given isolation
// level (nil: the world's own).
func (f *Fold) Outcome(isolation *kafka.IsolationLevel) Outcome {
	level := f.Isolation()
	if isolation != nil {
		level = *isolation
	}
	s := f.Stats()
	o := Outcome{Rejected: s.Rejected, Isolation: level, DupRaw: s.DuplicatesInLog}
	inv := f.Log(InvoicesLog, level)
	o.DupSeen = inv.SeenDup
	o.Lost = len(f.lost(inv))
	return o
}
