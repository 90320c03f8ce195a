package kgviz

import "github.com/kgviz/kgviz/kgviz/fold"

// Questions to ask a world, for notebooks and exercise checks: each is a fold
// of the recorded events (package fold), so none of them needs an event's
// text, and each works the same on a recorded real-broker run.

// Exchange is one request a client sent and what became of it (its answer's
// error code, or that it was lost).
type Exchange = fold.Exchange

// Refusal is an error answer a client received.
type Refusal = fold.Refusal

// AnyAPI asks Requests and Refusals for every API.
const AnyAPI = fold.AnyAPI

// Requests lists, in send order, the requests member sent of api (AnyAPI for
// all; member "" for every client), each with its answer.
func (w *World) Requests(member string, api APIKey) []Exchange {
	return w.Fold().Exchanges(member, api)
}

// Refusals lists the error answers member received for api (AnyAPI for all),
// the rebalance notice (Heartbeat REBALANCE_IN_PROGRESS) included.
func (w *World) Refusals(member string, api APIKey) []Refusal {
	return w.Fold().Refusals(member, api)
}

// PlanSent returns the plan the group leader sent in SyncGroup for
// generation gen, by member name; nil if no plan was computed in gen.
func (w *World) PlanSent(gen int) map[string][]string { return w.Fold().PlanSent(gen) }

// AssignmentAt returns who owned which partitions in generation gen once the
// group was Stable, by member name (the assignment table's row).
func (w *World) AssignmentAt(gen int) map[string][]string { return w.Fold().AssignmentAt(gen) }

// RecordsSeen returns what an audit reader of invoices with the given
// isolation level reads, in offset order, duplicates included.
func (w *World) RecordsSeen(l IsolationLevel) []string { return w.Fold().RecordsSeen(l) }

// SeenTwice returns the invoices a reader with the given isolation level
// sees more than once, sorted.
func (w *World) SeenTwice(l IsolationLevel) []string { return w.Fold().SeenTwice(l) }

// ProcessedTwice returns the input records processed more than once, sorted.
func (w *World) ProcessedTwice() []string { return w.Fold().ProcessedTwice() }

// Batches returns the records each of member's polls returned, poll by poll.
func (w *World) Batches(member string) [][]string { return w.Fold().Batches(member) }

// Exceptions returns the exceptions member's application saw, in order.
func (w *World) Exceptions(member string) []Exception { return w.Fold().Exceptions(member) }

// TxnStates returns the states the transaction coordinator moved a
// transactional id (e.g. "tx-C2") through, in order.
func (w *World) TxnStates(transactionalID string) []TxnState {
	return w.Fold().TxnStates(transactionalID)
}
