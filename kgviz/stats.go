package kgviz

import (
	"fmt"

	"github.com/kgviz/kgviz/kgviz/fold"
)

// The meters, computed from the recorded events by package fold (the charts
// and the exercise checks read the same functions).
type (
	// Stats are the meters every demo can show, computed by World.Stats from
	// the recorded events (an alias of fold.Stats, whose fields these are):
	//
	//	Processed       int                 records processed, each time (a record processed twice counts 2)
	//	Duplicates      int                 extra copies of invoices the audit reader sees (its isolation level)
	//	DuplicatesInLog int                 extra copies of invoices in the raw log, aborted ones included
	//	Lost            int                 input records below the committed offset never invoiced
	//	LostRecords     []string            which ones, e.g. ["p2.4" "p2.5"]
	//	Rejected        map[ErrorCode]int   responses with an error, by error code (heartbeat notices excluded)
	//	TxnOpen         int                 transactions open now
	//	TxnCommitted    int                 transactions committed
	//	TxnAborted      int                 transactions aborted
	//	Unassigned      int                 rebalances whose assignor left partitions out (EvAssignmentIncomplete)
	//	Stopped         string              the error that stopped the world ("" while it runs); figures are as of then
	//	NeverRan        bool                time never advanced (tick 0: no RunFor or RunUntil yet)
	//
	// Its String method prints them on one line, e.g.
	//
	//	processed=50 duplicates=2 (log 2) lost=0 rejected={} txn open=0 committed=0 aborted=0
	//
	// preceded by "STOPPED: <error> | " for a stopped world and by "time never
	// advanced (tick 0: ...) | " for one that never ran.
	Stats = fold.Stats
	// PauseMeter is the page's pause meter (fold.PauseMeter).
	PauseMeter = fold.PauseMeter
	// Pause is one stretch of time a partition was not consumed (fold.Pause).
	Pause = fold.Pause
	// RebalancePause sums the pauses a generation's rebalance caused (fold.RebalancePause).
	RebalancePause = fold.RebalancePause
)

// Fold returns the views of the world as it is now (package fold).
func (w *World) Fold() *fold.Fold { return fold.Of(w) }

// Stats computes the meters now.
func (w *World) Stats() Stats { return fold.Of(w).Stats() }

// PauseMeter computes the pause meter from the recorded events.
func (w *World) PauseMeter() PauseMeter { return fold.Of(w).PauseMeter() }

// ProcessedCount returns how many times each input record was processed.
func (w *World) ProcessedCount() map[string]int { return fold.Of(w).ProcessedCount() }

// Isolation returns the audit reader's isolation.level.
func (w *World) Isolation() IsolationLevel { return w.cfg.isolation }

// Invoices returns what the audit reader of invoices-0 sees now, in offset
// order: read_uncommitted reads to the high watermark, aborted records
// included; read_committed reads to the last stable offset and skips aborted
// transactions. Markers are never returned.
func (w *World) Invoices() []string { return fold.Of(w).Invoices() }

// LSO returns the last stable offset of invoices-0 (folded from its
// appends and markers, fold.TopicLog.LSO).
func (w *World) LSO() int { return w.Fold().Log(w.invoices.String(), w.cfg.isolation).LSO }

// HighWatermark returns the high watermark of invoices-0 (fold.TopicLog.HW).
func (w *World) HighWatermark() int { return w.Fold().Log(w.invoices.String(), w.cfg.isolation).HW }

// Log returns every record of a partition with its state: an input
// partition ("orders", 2), "invoices" 0, "__consumer_offsets" or
// "__transaction_state" (any partition number; the group's and the
// transactional ids' partitions hold the records).
func (w *World) Log(topic string, partition int) ([]LogRecord, error) {
	switch topic {
	case "__consumer_offsets":
		if partition < 0 || partition >= 50 {
			break
		}
		l := w.broker.Groups().OffsetsLog(GroupID)
		if l.TopicPartition().Partition == partition {
			return l.Records(), nil
		}
		return nil, nil
	case "__transaction_state":
		if partition < 0 || partition >= 50 {
			break
		}
		if l, ok := w.broker.TransactionStateLogs()[partition]; ok {
			return l.Records(), nil
		}
		return nil, nil
	default:
		if l := w.broker.Partition(TopicPartition{Topic: topic, Partition: partition}); l != nil {
			return l.Records(), nil
		}
	}
	return nil, fmt.Errorf("Log(%q, %d): no such partition", topic, partition)
}

// TransactionStateLog returns every record of __transaction_state, in the order written.
func (w *World) TransactionStateLog() []string { return fold.Of(w).TransactionStateLog() }
