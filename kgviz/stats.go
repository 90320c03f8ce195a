package kgviz

import (
	"fmt"
	"sort"
	"strings"
)

// Pause is one stretch of time during which a partition was not consumed by
// anybody in the group: from the tick its owner revoked it (or crashed, or
// left) to the tick a member resumed it after OffsetFetch.
type Pause struct {
	Partition  string // "p1"
	From, To   int    // To is the current tick while still paused
	Open       bool   // still paused
	Generation int    // generation of the assignment that resumed it (0 while open)
}

// Ticks is the pause's length in ticks.
func (p Pause) Ticks() int { return p.To - p.From }

// RebalancePause sums the pauses a generation's assignment ended.
type RebalancePause struct {
	Generation     int
	Partitions     []string // distinct partitions that paused
	PartitionTicks int      // paused partitions × ticks
}

// PauseMeter is the page's pause meter: paused partitions × ticks.
type PauseMeter struct {
	Pauses     []Pause
	Rebalances []RebalancePause // by the generation that resumed the partitions
	Total      int              // paused partition-ticks, open pauses up to now
}

// Between returns the distinct partitions that paused, and the paused
// partition-ticks, within ticks [from, to).
func (m PauseMeter) Between(from, to int) (partitions []string, partitionTicks int) {
	seen := map[string]bool{}
	for _, p := range m.Pauses {
		lo, hi := max(p.From, from), min(p.To, to)
		if hi > lo || (p.From >= from && p.From < to) {
			if !seen[p.Partition] {
				seen[p.Partition] = true
				partitions = append(partitions, p.Partition)
			}
		}
		if hi > lo {
			partitionTicks += hi - lo
		}
	}
	sort.Strings(partitions)
	return partitions, partitionTicks
}

// PauseMeter computes the pause meter from the recorded events.
func (w *World) PauseMeter() PauseMeter { return PauseMeterOf(w.events, w.now) }

// PauseMeterOf computes the pause meter from any recorded events (now is the
// tick that closes pauses still open).
func PauseMeterOf(events []Event, now int) PauseMeter {
	var m PauseMeter
	open := map[string]int{}
	byGen := map[int]*RebalancePause{}
	for _, e := range events {
		switch e.Type {
		case EvPaused:
			if _, ok := open[e.Partition]; !ok {
				open[e.Partition] = len(m.Pauses)
				m.Pauses = append(m.Pauses, Pause{Partition: e.Partition, From: e.Tick, Open: true})
			}
		case EvResumed:
			i, ok := open[e.Partition]
			if !ok {
				continue
			}
			delete(open, e.Partition)
			p := &m.Pauses[i]
			p.To, p.Open, p.Generation = e.Tick, false, e.Generation
			r := byGen[e.Generation]
			if r == nil {
				r = &RebalancePause{Generation: e.Generation}
				byGen[e.Generation] = r
			}
			r.Partitions = append(r.Partitions, e.Partition)
			r.PartitionTicks += p.Ticks()
		}
	}
	for i := range m.Pauses {
		if m.Pauses[i].Open {
			m.Pauses[i].To = now
		}
		m.Total += m.Pauses[i].Ticks()
	}
	gens := make([]int, 0, len(byGen))
	for g := range byGen {
		gens = append(gens, g)
	}
	sort.Ints(gens)
	for _, g := range gens {
		r := byGen[g]
		sort.Strings(r.Partitions)
		r.Partitions = dedupe(r.Partitions)
		m.Rebalances = append(m.Rebalances, *r)
	}
	return m
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Stats are the meters every demo can show.
type Stats struct {
	Processed       int            // records processed (each time)
	Duplicates      int            // extra copies of invoices the audit reader sees
	DuplicatesInLog int            // extra copies of invoices in the raw log, aborted ones included
	Lost            int            // input records below the committed offset never invoiced
	LostRecords     []string       // which ones
	Rejected        map[string]int // responses with an error, by error code
	TxnOpen         int            // transactions open now
	TxnCommitted    int
	TxnAborted      int
}

// String renders the stats on one line.
func (s Stats) String() string {
	var rej []string
	for _, k := range sortedKeys(s.Rejected) {
		rej = append(rej, fmt.Sprintf("%s=%d", k, s.Rejected[k]))
	}
	return fmt.Sprintf("processed=%d duplicates=%d (log %d) lost=%d rejected={%s} txn open=%d committed=%d aborted=%d",
		s.Processed, s.Duplicates, s.DuplicatesInLog, s.Lost, strings.Join(rej, " "), s.TxnOpen, s.TxnCommitted, s.TxnAborted)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Stats computes the meters now.
func (w *World) Stats() Stats {
	s := Stats{Rejected: map[string]int{}}
	for _, e := range w.events {
		switch {
		case e.Type == EvProcessed:
			s.Processed++
		case e.Type == EvSend && e.Response && e.Error != NONE && e.API != "Heartbeat": // the rebalance notice is not a rejection
			s.Rejected[e.Error.String()]++
		}
	}
	s.Duplicates = extraCopies(w.Invoices())
	var raw []string
	for _, r := range w.invoices.records {
		if r.State != StateMarker {
			raw = append(raw, r.Record)
		}
	}
	s.DuplicatesInLog = extraCopies(raw)
	invoiced := map[string]bool{}
	for _, r := range w.invoices.records {
		if r.State == StateCommitted {
			invoiced[r.Record] = true
		}
	}
	for _, tp := range w.inputPartitions() {
		c, ok := w.coord.committed[tp]
		if !ok {
			continue
		}
		log := w.inputs[tp]
		for off := 0; off < c && off < log.hw(); off++ {
			name := log.records[off].Record
			if !invoiced["inv("+name+")"] {
				s.Lost++
				s.LostRecords = append(s.LostRecords, name)
			}
		}
	}
	for _, id := range w.txn.order {
		t := w.txn.txns[id]
		s.TxnCommitted += t.committed
		s.TxnAborted += t.aborted
		if t.state == TxnOngoing || t.state == TxnPrepareCommit || t.state == TxnPrepareAbort {
			s.TxnOpen++
		}
	}
	return s
}

func extraCopies(names []string) int {
	seen := map[string]int{}
	n := 0
	for _, r := range names {
		if seen[r] > 0 {
			n++
		}
		seen[r]++
	}
	return n
}

// ProcessedCount returns how many times each input record was processed.
func (w *World) ProcessedCount() map[string]int {
	out := map[string]int{}
	for _, e := range w.events {
		if e.Type == EvProcessed {
			out[e.Record]++
		}
	}
	return out
}

// Isolation returns the audit reader's isolation.level.
func (w *World) Isolation() IsolationLevel { return w.cfg.isolation }

// Invoices returns what the audit reader of invoices-0 sees now, in offset
// order: read_uncommitted reads to the high watermark, aborted records
// included; read_committed reads to the last stable offset and skips aborted
// transactions. Markers are never returned.
func (w *World) Invoices() []string {
	limit := w.invoices.hw()
	if w.cfg.isolation == ReadCommitted {
		limit = w.invoices.lso()
	}
	var out []string
	for _, r := range w.invoices.records[:limit] {
		if r.State == StateMarker || (w.cfg.isolation == ReadCommitted && r.State == StateAborted) {
			continue
		}
		out = append(out, r.Record)
	}
	return out
}

// LSO returns the last stable offset of invoices-0.
func (w *World) LSO() int { return w.invoices.lso() }

// HighWatermark returns the high watermark of invoices-0.
func (w *World) HighWatermark() int { return w.invoices.hw() }

// Log returns every record of a partition with its state: an input
// partition ("orders", 2), "invoices" 0, "__consumer_offsets" or
// "__transaction_state" (any partition number; the group's and the
// transactional ids' partitions hold the records).
func (w *World) Log(topic string, partition int) ([]LogRecord, error) {
	var log *partitionLog
	switch topic {
	case "invoices":
		if partition == 0 {
			log = w.invoices
		}
	case "__consumer_offsets":
		if partition == w.coord.offsetsLog.partition {
			log = w.coord.offsetsLog
		} else if partition >= 0 && partition < 50 {
			return nil, nil
		}
	case "__transaction_state":
		if l, ok := w.txn.logs[partition]; ok {
			log = l
		} else if partition >= 0 && partition < 50 {
			return nil, nil
		}
	default:
		log = w.inputs[TopicPartition{topic, partition}]
	}
	if log == nil {
		return nil, fmt.Errorf("Log(%q, %d): no such partition", topic, partition)
	}
	return append([]LogRecord(nil), log.records...), nil
}

// TransactionStateLog returns every record of __transaction_state, in the order written.
func (w *World) TransactionStateLog() []string {
	var out []string
	for _, e := range w.events {
		if e.Type == EvAppend && strings.HasPrefix(e.Partition, "__transaction_state-") {
			out = append(out, e.Record)
		}
	}
	return out
}
