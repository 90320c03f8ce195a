package exercises

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// collapse removes consecutive repeats.
func collapse(s []string) []string {
	var out []string
	for _, v := range s {
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// batchRequestsOf returns the requests member sent between its k-th and
// (k+1)-th Fetch after tick from, consecutive repeats collapsed.
func batchRequestsOf(w *kgviz.World, member string, from, k int) []string {
	fetches := 0
	var out []string
	for _, e := range w.Events() {
		if e.Tick < from || e.Type != kgviz.EvSend || e.Response || e.From != member || e.API == "Heartbeat" {
			continue
		}
		if e.API == "Fetch" {
			fetches++
			if fetches > k {
				break
			}
			continue
		}
		if fetches == k {
			out = append(out, e.API)
		}
	}
	return collapse(out)
}

// Verify10_1 checks batchRequests(): the requests a transactional member
// sends for one poll batch (after its first), between its Fetch and the next
// one, consecutive repeats collapsed. Checked on both members, several
// batches and other batch sizes.
func Verify10_1(batchRequests func() []string) Outcome {
	const id, name = "ex10-1", "batchRequests"
	if batchRequests == nil {
		return notAnswered(id, name)
	}
	got, err := call(batchRequests)
	if err != nil {
		return panicked(id, name, err, "")
	}
	if got == nil {
		return notAnswered(id, name)
	}
	cases := 0
	for _, mpr := range []int{3, 4, 5} {
		w := group(2, kgviz.WithCommit(kgviz.Transactional), kgviz.WithMaxPollRecords(mpr))
		from := w.Now()
		w.RunFor(60)
		if w.Err() != nil {
			return fail(id, "internal error: %v", w.Err())
		}
		for _, m := range []string{"C1", "C2"} {
			for _, k := range []int{1, 2} {
				want := batchRequestsOf(w, m, from, k)
				cases++
				if !same(collapse(got), want) {
					return fail(id, "%s sends %s for a batch (max.poll.records=%d), %s. Hint: filter the sequence diagram to the transactions, produce and offsets families and follow one batch from Fetch to Fetch.", m, quote(want), mpr, diffLists(collapse(got), want))
				}
			}
		}
	}
	return pass(id, cases, "register the partition (AddPartitionsToTxn), write the invoices, add the group's offsets to the transaction (AddOffsetsToTxn, then TxnOffsetCommit to the group coordinator), and EndTxn: InitProducerId happens only once, at start.")
}

// Check10_1 verifies batchRequests and reports.
func Check10_1(batchRequests func() []string) { Report(Verify10_1(batchRequests)) }

// txnStatesOf returns the states of transactional id txnID's transactions
// as logged in __transaction_state, one list per transaction.
func txnStatesOf(w *kgviz.World, txnID string) [][]string {
	var out [][]string
	var cur []string
	for _, rec := range w.TransactionStateLog() {
		f := strings.Fields(rec)
		if len(f) < 4 || f[0] != txnID {
			continue
		}
		st := f[3]
		if st == "Empty" {
			continue
		}
		cur = append(cur, st)
		if strings.HasPrefix(st, "Complete") {
			out = append(out, collapse(cur))
			cur = nil
		}
	}
	return out
}

// Verify10_2 checks txnStates(commit): the states the transaction
// coordinator writes to __transaction_state for one transaction that commits
// (commit=true) or aborts, consecutive repeats collapsed. Checked on
// committed transactions of both members, a transaction aborted by
// transaction.timeout.ms and one aborted by a restart.
func Verify10_2(txnStates func(commit bool) []string) Outcome {
	const id, name = "ex10-2", "txnStates"
	if txnStates == nil {
		return notAnswered(id, name)
	}
	type scenario struct {
		desc   string
		commit bool
		world  func() *kgviz.World
		txnID  string
	}
	crashed := func(restart bool) func() *kgviz.World {
		return func() *kgviz.World {
			w := group(2, kgviz.WithCommit(kgviz.Transactional))
			w.RunUntil(kgviz.Polled("C2", "o2.3")).Crash("C2", kgviz.AfterRecords(3)).RunUntil(kgviz.Crashed("C2"))
			if restart {
				w.RunFor(1).Restart("C2")
			}
			return w.RunUntil(kgviz.Quiet())
		}
	}
	scenarios := []scenario{
		{"a committed transaction of C1", true, func() *kgviz.World { return group(2, kgviz.WithCommit(kgviz.Transactional)).RunFor(30) }, "tx-C1"},
		{"a transaction C2 left open when it crashed (aborted by transaction.timeout.ms)", false, crashed(false), "tx-C2"},
		{"a transaction C2 left open, aborted by its restart", false, crashed(true), "tx-C2"},
		{"a committed transaction of C2", true, func() *kgviz.World { return group(2, kgviz.WithCommit(kgviz.Transactional)).RunFor(30) }, "tx-C2"},
	}
	for i, sc := range scenarios {
		w := sc.world()
		if w.Err() != nil {
			return fail(id, "internal error: %v", w.Err())
		}
		var want []string
		for _, t := range txnStatesOf(w, sc.txnID) {
			if strings.HasSuffix(t[len(t)-1], "Commit") == sc.commit {
				want = t
				break
			}
		}
		if want == nil {
			return fail(id, "internal error: no such transaction in %s", sc.desc)
		}
		got, err := call(func() []string { return txnStates(sc.commit) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("txnStates(%v)", sc.commit))
		}
		if got == nil && i == 0 {
			return notAnswered(id, name)
		}
		if !same(collapse(got), want) {
			return fail(id, "for %s txnStates(%v): %s. Hint: print w.TransactionStateLog() and follow one transactional.id.", sc.desc, sc.commit, diffLists(collapse(got), want))
		}
	}
	return pass(id, len(scenarios), "Ongoing while records and offsets are added, then Prepare (the outcome is decided and written down before any marker), then Complete once the markers are in every partition.")
}

// Check10_2 verifies txnStates and reports.
func Check10_2(txnStates func(commit bool) []string) { Report(Verify10_2(txnStates)) }
