package exercises

import (
	"fmt"
	"math/rand/v2"

	"github.com/kgviz/kgviz/kgviz"
)

func init() {
	register(Exercise{
		ID: "ex10-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(txnVersion int) []string]("batchRequests")},
		Verify:  func(a Answers, v Variant) Outcome { return verify10_1(get[func(int) []string](a, 0), v) },
		Giveaways: func() []string {
			var out []string
			for _, tv := range []int{1, 2} {
				w := group(2, kgviz.WithCommit(kgviz.Transactional), kgviz.WithTransactionVersion(tv))
				from := w.Now()
				w.RunFor(40)
				out = append(out, fmt.Sprint(batchRequestsOf(w, "C2", from, 1)))
			}
			return out
		},
	})
	register(Exercise{
		ID: "ex10-2", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(lastSent string) string]("outcome")},
		Verify:  func(a Answers, v Variant) Outcome { return verify10_2(get[func(string) string](a, 0), v) },
	})
	register(Exercise{
		ID: "ex10-3", Points: 3,
		Answers: []Answer{answer[func(state kgviz.TxnState, event string) kgviz.TxnState]("nextState")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify10_3(get[func(kgviz.TxnState, string) kgviz.TxnState](a, 0), v)
		},
	})
}

// collapse removes consecutive repeats.
func collapse[T comparable](s []T) []T {
	var out []T
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
	for _, x := range w.Requests(member, kgviz.AnyAPI) {
		if x.Tick < from || x.API == kgviz.Heartbeat {
			continue
		}
		if x.API == kgviz.Fetch {
			fetches++
			if fetches > k {
				break
			}
			continue
		}
		if fetches == k {
			out = append(out, x.API.String())
		}
	}
	return collapse(out)
}

// verify10_1 checks batchRequests(txnVersion): the requests a transactional
// member sends for one poll batch (after its first), between its Fetch and
// the next one, consecutive repeats collapsed, with transaction.version 1 or 2.
// Checked on both members, several batches, batch sizes of 1 to 5 (secret:
// other sizes and batches).
func verify10_1(batchRequests func(txnVersion int) []string, v Variant) Outcome {
	const id, name = "ex10-1", "batchRequests"
	if batchRequests == nil {
		return notAnswered(id, name)
	}
	type scenario struct{ tv, mpr, k int }
	scenarios := []scenario{{1, 3, 1}, {2, 3, 1}, {1, 3, 2}, {2, 4, 2}, {1, 5, 1}, {2, 5, 2}, {2, 1, 3}}
	// Up to 5 records a poll: a longer transactional batch outlasts max.poll.interval.ms.
	scenarios = append(scenarios, draw(v, id, 3, func(r *rand.Rand) scenario {
		return scenario{between(r, 1, 2), between(r, 1, 5), between(r, 1, 3)}
	})...)
	cases := 0
	for i, sc := range scenarios {
		got, err := call(func() []string { return batchRequests(sc.tv) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("batchRequests(%d)", sc.tv))
		}
		if got == nil && i == 0 {
			return notAnswered(id, name)
		}
		w := group(2, kgviz.WithCommit(kgviz.Transactional), kgviz.WithMaxPollRecords(sc.mpr), kgviz.WithTransactionVersion(sc.tv))
		from := w.Now()
		w.RunFor(80)
		if w.Err() != nil {
			return fail(id, "internal error: %v; please report it.", w.Err())
		}
		for _, m := range []string{"C1", "C2"} {
			want := batchRequestsOf(w, m, from, sc.k)
			if len(want) == 0 {
				continue // that member had nothing left to read
			}
			cases++
			if !same(collapse(got), want) {
				return fail(id, "with transaction.version=%d and max.poll.records=%d, %s's requests for a batch are not those: %s. Hint: which requests does KIP-890 (version 2) make unnecessary, and why?", sc.tv, sc.mpr, m, listHint(collapse(got), want))
			}
		}
	}
	return pass(id, cases, "version 1 registers the partition (AddPartitionsToTxn) and the group's offsets (AddOffsetsToTxn) with the transaction coordinator before using them; version 2 lets the first Produce add its partition implicitly and needs no AddOffsetsToTxn. TxnOffsetCommit goes to the group coordinator, EndTxn ends the transaction; InitProducerId happens only once, at start.")
}

// Check10_1 verifies batchRequests and reports.
func Check10_1(batchRequests func(txnVersion int) []string) {
	Report(Run("ex10-1", Public, batchRequests))
}

// txnCrash: a transactional group where victim crashes right after it sent
// api in a transaction (after the group ran runUp ticks); then the world runs
// to the end.
func txnCrash(members, tv, runUp int, victim string, api kgviz.APIKey) *kgviz.World {
	w := group(members, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithTransactionVersion(tv))
	w.RunFor(runUp).RunUntil(kgviz.Sent(victim, api))
	if w.Err() != nil {
		return w
	}
	return w.Crash(victim, kgviz.Immediately()).RunUntil(kgviz.Quiet())
}

// txnAt returns the states (collapsed) of the first transaction of
// transactionalID that ends (Complete…) at or after tick.
func txnAt(w *kgviz.World, transactionalID string, tick int) []kgviz.TxnState {
	if states := w.Fold().TxnEndingFrom(transactionalID, tick); states != nil {
		return collapse(states)
	}
	return nil
}

var txnAPIs = map[string]kgviz.APIKey{"AddPartitionsToTxn": kgviz.AddPartitionsToTxn, "Produce": kgviz.Produce, "AddOffsetsToTxn": kgviz.AddOffsetsToTxn,
	"TxnOffsetCommit": kgviz.TxnOffsetCommit, "EndTxn": kgviz.EndTxn}

type ex10Crash struct {
	members, tv, runUp int
	victim, api        string
}

// verify10_2 checks outcome(lastSent): "commit" or "abort", the end of the
// transaction of a producer that crashed right after it sent lastSent.
// Scenarios: every request of a transaction, both transaction versions,
// groups of two and three, other members and moments (secret: drawn).
func verify10_2(outcome func(lastSent string) string, v Variant) Outcome {
	const id, name = "ex10-2", "outcome"
	if outcome == nil {
		return notAnswered(id, name)
	}
	cases := []ex10Crash{{2, 1, 3, "C2", "EndTxn"}, {2, 1, 3, "C2", "TxnOffsetCommit"}, {2, 1, 3, "C2", "Produce"}, {2, 1, 3, "C2", "AddOffsetsToTxn"},
		{2, 1, 3, "C2", "AddPartitionsToTxn"}, {2, 2, 3, "C2", "EndTxn"}, {2, 2, 3, "C2", "TxnOffsetCommit"}, {3, 2, 10, "C1", "Produce"}, {3, 1, 12, "C3", "EndTxn"}}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) ex10Crash {
		members, tv := between(r, 2, 3), between(r, 1, 2)
		apis := []string{"TxnOffsetCommit", "Produce", "EndTxn"}
		if tv == 1 {
			apis = append(apis, "AddOffsetsToTxn", "AddPartitionsToTxn")
		}
		return ex10Crash{members, tv, between(r, 0, 30), fmt.Sprintf("C%d", between(r, 1, members)), apis[r.IntN(len(apis))]}
	})...)
	checked := 0
	for i, c := range cases {
		w := txnCrash(c.members, c.tv, c.runUp, c.victim, txnAPIs[c.api])
		if w.Err() != nil {
			continue
		}
		crash := 0
		if e, ok := w.Fold().LastOf(c.victim, kgviz.EvCrash); ok {
			crash = e.Tick
		}
		states := txnAt(w, "tx-"+c.victim, crash)
		if len(states) == 0 {
			continue
		}
		want := "abort"
		if states[len(states)-1] == kgviz.TxnCompleteCommit {
			want = "commit"
		}
		got, err := call(func() string { return outcome(c.api) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("outcome(%q)", c.api))
		}
		if i == 0 && got == "" {
			return notAnswered(id, name)
		}
		if got != "commit" && got != "abort" {
			return fail(id, "outcome(%q) = %q: answer \"commit\" or \"abort\".", c.api, got)
		}
		if got != want {
			return fail(id, "outcome(%q) = %q (transaction.version %d, %s crashed in a group of %d). Hint: which request makes the coordinator write its decision to __transaction_state, and can anything change a decision once it is written?", c.api, got, c.tv, c.victim, c.members)
		}
		checked++
	}
	return pass(id, checked, "until EndTxn the transaction is only Ongoing: the coordinator aborts it when transaction.timeout.ms runs out (or a new instance calls InitProducerId). EndTxn(COMMIT) makes it write PrepareCommit; from then on the commit completes, markers and all, even though the producer is gone.")
}

// Check10_2 verifies outcome and reports.
func Check10_2(outcome func(lastSent string) string) { Report(Run("ex10-2", Public, outcome)) }

// ex10Life is one transaction of a scenario: the events the transaction
// coordinator saw, in order, and the states it went through in the simulation.
type ex10Life struct {
	desc   string
	start  kgviz.TxnState // the state before the transaction's first event
	events []string
	world  func() *kgviz.World
	txnID  string
	pick   func(w *kgviz.World) int // a tick inside the transaction
}

// verify10_3 checks nextState(state, event): the transaction coordinator's
// state machine (TransactionMetadata's transitions). The events are
// "AddPartitionsToTxn", "AddOffsetsToTxn", "Produce" (the first write of a
// partition with transaction.version 2), "EndTxn(COMMIT)", "EndTxn(ABORT)",
// "InitProducerId" (a new instance), "timeout" (transaction.timeout.ms) and
// "markers written" (every partition has its marker). The check folds the
// answer over the events of transactions the simulation ran (committed with
// versions 1 and 2, aborted by the application, by a timeout, by a new
// instance, and committed although the producer died after EndTxn) and
// compares the states with the coordinator's.
func verify10_3(nextState func(state kgviz.TxnState, event string) kgviz.TxnState, v Variant) Outcome {
	const id, name = "ex10-3", "nextState"
	if nextState == nil {
		return notAnswered(id, name)
	}
	tx := func(tv int, opts ...kgviz.Option) *kgviz.World {
		return group(2, append([]kgviz.Option{kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithTransactionVersion(tv)}, opts...)...)
	}
	crashTick := func(member string) func(w *kgviz.World) int {
		return func(w *kgviz.World) int {
			if e, ok := w.Fold().FirstOf(member, kgviz.EvCrash, kgviz.EvRestart); ok {
				return e.Tick
			}
			return 0
		}
	}
	lives := []ex10Life{
		{"a committed transaction, version 1", kgviz.TxnCompleteCommit, []string{"AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn(COMMIT)", "markers written"},
			func() *kgviz.World { return tx(1).RunFor(30) }, "tx-C2", func(w *kgviz.World) int { return w.Now() - 12 }},
		{"a committed transaction, version 2", kgviz.TxnCompleteCommit, []string{"Produce", "EndTxn(COMMIT)", "markers written"},
			func() *kgviz.World { return tx(2).RunFor(30) }, "tx-C1", func(w *kgviz.World) int { return w.Now() - 12 }},
		{"C2 crashed mid-transaction (version 1), aborted by transaction.timeout.ms", kgviz.TxnCompleteCommit, []string{"AddPartitionsToTxn", "AddOffsetsToTxn", "timeout", "markers written"},
			func() *kgviz.World { return txnCrash(2, 1, 3, "C2", kgviz.TxnOffsetCommit) }, "tx-C2", crashTick("C2")},
		{"C2 crashed mid-transaction (version 2), aborted by transaction.timeout.ms", kgviz.TxnCompleteCommit, []string{"Produce", "timeout", "markers written"},
			func() *kgviz.World { return txnCrash(2, 2, 3, "C2", kgviz.Produce) }, "tx-C2", crashTick("C2")},
		{"C2 crashed right after EndTxn, then transaction.timeout.ms passed", kgviz.TxnCompleteCommit, []string{"AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn(COMMIT)", "timeout", "markers written"},
			func() *kgviz.World { return txnCrash(2, 1, 3, "C2", kgviz.EndTxn) }, "tx-C2", crashTick("C2")},
		{"C2 restarted while stuck mid-transaction: the new instance's InitProducerId", kgviz.TxnCompleteCommit, []string{"AddPartitionsToTxn", "InitProducerId", "markers written"},
			func() *kgviz.World {
				w, _ := epochFenceScenario(2, "C2", "p2.3", 1)
				return w
			}, "tx-C2", crashTick("C2")},
		{"Demo 12b: C2's TxnOffsetCommit fenced, the application aborts", kgviz.TxnCompleteCommit, []string{"AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn(ABORT)", "markers written"},
			func() *kgviz.World {
				w, _ := generationFenceScenario()
				return w
			}, "tx-C2", func(w *kgviz.World) int {
				for _, r := range w.Refusals("C2", kgviz.TxnOffsetCommit) {
					return r.Tick
				}
				return 0
			}},
	}
	_ = v // the transactions are the simulation's; every variant checks them all
	checked, answered := 0, false
	for _, l := range lives {
		w := l.world()
		if w.Err() != nil {
			return fail(id, "internal error in %s: %v; please report it.", l.desc, w.Err())
		}
		want := txnAt(w, l.txnID, l.pick(w))
		if len(want) == 0 {
			return fail(id, "internal error: no transaction found in %s; please report it.", l.desc)
		}
		state := l.start
		var got []kgviz.TxnState
		for _, ev := range l.events {
			next, err := call(func() kgviz.TxnState { return nextState(state, ev) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("nextState(%s, %q)", state, ev))
			}
			if next != "" && next != state {
				answered = true
			}
			got = append(got, next)
			state = next
		}
		if !answered {
			return notAnswered(id, name)
		}
		if !same(collapse(got), want) {
			return fail(id, "in %s, the events %q take your coordinator through %v, not through the states the coordinator went through. Hint: which transitions are allowed from a Prepare… state, and what ends it?", l.desc, l.events, collapse(got))
		}
		checked++
	}
	return pass(id, checked, "Ongoing from the first partition added until the outcome is decided; EndTxn(COMMIT) → PrepareCommit, EndTxn(ABORT), a timeout or a new instance's InitProducerId → PrepareAbort; once Prepare… is written nothing but the markers moves it, to Complete…: the decision survives the producer.")
}

// Check10_3 verifies nextState and reports.
func Check10_3(nextState func(state kgviz.TxnState, event string) kgviz.TxnState) {
	Report(Run("ex10-3", Public, nextState))
}
