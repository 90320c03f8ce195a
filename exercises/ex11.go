package exercises

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

func init() {
	register(Exercise{
		ID: "ex11-2", Points: 2,
		Answers: []Answer{answer[func(log []kgviz.LogRecord) int]("lastStableOffset")},
		Verify:  func(a Answers, v Variant) Outcome { return verify11_2(get[func([]kgviz.LogRecord) int](a, 0), v) },
	})
	register(Exercise{
		ID: "ex11-3", Points: 2,
		Answers: []Answer{answer[func(log []kgviz.LogRecord) []string]("readCommitted")},
		Verify:  func(a Answers, v Variant) Outcome { return verify11_3(get[func([]kgviz.LogRecord) []string](a, 0), v) },
	})
	register(Exercise{
		ID: "ex11-1", Points: 1, Prediction: true,
		Answers: []Answer{answer[func(transactionTimeout, restartAfter int) string]("unblockedBy")},
		Verify: func(a Answers, v Variant) Outcome {
			return verify11_1(get[func(int, int) string](a, 0), v)
		},
	})
}

// lsoScenarios are the worlds in which the LSO exercises are checked tick by
// tick: the notebook's crash inside a transaction, its restart variant, a
// calm transactional group, and a crash in a group of three.
type lsoScenario struct {
	desc string
	// start builds the world up to the moment the tick-by-tick check begins.
	start func() *kgviz.World
	ticks int
}

func lsoScenarios(v Variant, id string) []lsoScenario {
	crash := func(restart bool, members int, victim, record string) func() *kgviz.World {
		return func() *kgviz.World {
			w := group(members, kgviz.WithCommit(kgviz.Transactional))
			w.RunUntil(kgviz.Polled(victim, record)).Crash(victim, kgviz.AfterRecords(3)).RunUntil(kgviz.Crashed(victim))
			if restart {
				w.RunFor(1).Restart(victim)
			}
			return w
		}
	}
	scenarios := []lsoScenario{
		{"the notebook's scenario (C2 crashes inside a transaction)", crash(false, 2, "C2", "o2.3"), 60},
		{"C2 crashes inside a transaction and is restarted at once", crash(true, 2, "C2", "o2.3"), 30},
		{"a transactional group of two without crashes", func() *kgviz.World {
			return newWorld(kgviz.WithCommit(kgviz.Transactional)).AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2")
		}, 50},
		{"C1 crashes inside a transaction in a group of three", crash(false, 3, "C1", "p0.3"), 50},
	}
	return append(scenarios, draw(v, id, 2, func(r *rand.Rand) lsoScenario {
		members := between(r, 2, 3)
		victim := fmt.Sprintf("C%d", between(r, 1, members))
		part := map[string]int{"C1": 0, "C2": 1, "C3": 2}[victim]
		if members == 2 && victim == "C2" {
			part = 2
		}
		record := fmt.Sprintf("%s%d.3", pick(r, "o", "p"), part) // after the first batch, with 3 records to crash after
		restart := r.IntN(2) == 0
		return lsoScenario{fmt.Sprintf("%s crashes inside a transaction at %s in a group of %d (restarted: %v)", victim, record, members, restart),
			crash(restart, members, victim, record), between(r, 30, 60)}
	})...)
}

// verify11_2 checks lastStableOffset(log): the LSO of invoices-0 computed
// from its records, compared with the broker's at every tick of several
// scenarios.
func verify11_2(lastStableOffset func(log []kgviz.LogRecord) int, v Variant) Outcome {
	const id, name = "ex11-2", "lastStableOffset"
	if lastStableOffset == nil {
		return notAnswered(id, name)
	}
	cases, allZero := 0, true
	var msg string
	for _, sc := range lsoScenarios(v, id) {
		w := sc.start()
		for i := 0; i < sc.ticks && msg == ""; i++ {
			if w.Err() != nil {
				return fail(id, "internal error: %v; please report it.", w.Err())
			}
			log, _ := w.Log("invoices", 0)
			want := w.LSO()
			got, err := call(func() int { return lastStableOffset(log) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("%s, tick %d", sc.desc, w.Now()))
			}
			cases++
			if got != 0 {
				allZero = false
			}
			if got != want {
				more := "before"
				if got < want {
					more = "after"
				}
				msg = fmt.Sprintf("in %s, at tick %d (high watermark %d), you computed the LSO %d; the broker's is %s that. %s", sc.desc, w.Now(), w.HighWatermark(), got, more, diagnose11_2(log, got, want))
			}
			w.RunFor(1)
		}
	}
	if msg != "" {
		if allZero {
			return notAnswered(id, name)
		}
		return fail(id, "%s", msg)
	}
	return pass(id, cases, "the LSO stops at the first record of the oldest open transaction, however many committed records other producers wrote after it.")
}

// Check11_2 verifies lastStableOffset and reports.
func Check11_2(lastStableOffset func(log []kgviz.LogRecord) int) {
	Report(Run("ex11-2", Public, lastStableOffset))
}

// verify11_3 checks readCommitted(log): what a read_committed reader returns
// from invoices-0, compared with the audit reader at every tick of several
// scenarios.
func verify11_3(readCommitted func(log []kgviz.LogRecord) []string, v Variant) Outcome {
	const id, name = "ex11-3", "readCommitted"
	if readCommitted == nil {
		return notAnswered(id, name)
	}
	cases, answered := 0, false
	for _, sc := range lsoScenarios(v, id) {
		w := sc.start().SetIsolation(kgviz.ReadCommitted)
		for i := 0; i < sc.ticks; i++ {
			if w.Err() != nil {
				return fail(id, "internal error: %v; please report it.", w.Err())
			}
			log, _ := w.Log("invoices", 0)
			want := w.Invoices()
			got, err := call(func() []string { return readCommitted(log) })
			if err != nil {
				return panicked(id, name, err, fmt.Sprintf("%s, tick %d", sc.desc, w.Now()))
			}
			if got != nil {
				answered = true
			}
			if !answered && len(want) > 0 {
				return notAnswered(id, name)
			}
			if want == nil {
				want = []string{}
			}
			if got == nil {
				got = []string{}
			}
			cases++
			if !same(got, want) {
				hint := diagnose11_3(log, w.LSO(), got, want)
				return fail(id, "in %s, at tick %d (high watermark %d), what you read is wrong: %s. %s", sc.desc, w.Now(), w.HighWatermark(), listHint(got, want), hint)
			}
			w.RunFor(1)
		}
	}
	return pass(id, cases, "a read_committed reader stops at the LSO and drops markers and aborted records, so it never sees an invoice that might still be rolled back.")
}

// Check11_3 verifies readCommitted and reports.
func Check11_3(readCommitted func(log []kgviz.LogRecord) []string) {
	Report(Run("ex11-3", Public, readCommitted))
}

type ex11Stall struct {
	members, timeout, restartAfter int
	victim, record                 string
}

// stallEnd says what ended the transaction victim left open when it crashed:
// "restart" when its new instance's InitProducerId reached the coordinator
// before it aborted the transaction, "timeout" otherwise; the tick the
// transaction began, and the tick of the restart (-1: none).
func stallEnd(w *kgviz.World, victim string, crash int) (string, int, int) {
	begin, abort := w.Fold().TxnAround("tx-"+victim, crash)
	restart := -1
	for _, x := range w.Requests(victim, kgviz.InitProducerID) {
		if x.Tick > crash && restart < 0 {
			restart = x.Tick
		}
	}
	if restart >= 0 && restart <= abort {
		return "restart", begin, restart
	}
	return "timeout", begin, restart
}

// verify11_1 checks unblockedBy(transactionTimeout, restartAfter): what ends
// the stall of read_committed readers after a member crashed inside a
// transaction, with transaction.timeout.ms = transactionTimeout, when the
// member is restarted restartAfter ticks after the crash (-1: never):
// "timeout" (the coordinator aborts the transaction on its own) or "restart"
// (the new instance's InitProducerId). Scenarios keep 5 ticks away from a tie.
func verify11_1(unblockedBy func(transactionTimeout, restartAfter int) string, v Variant) Outcome {
	const id, name = "ex11-1", "unblockedBy"
	if unblockedBy == nil {
		return notAnswered(id, name)
	}
	cases := []ex11Stall{{2, 30, 1, "C2", "o2.3"}, {2, 30, -1, "C2", "o2.3"}, {2, 10, 20, "C2", "o2.3"}, {2, 40, 20, "C2", "p2.3"}, {3, 20, 40, "C1", "p0.3"}, {3, 60, 10, "C3", "o2.3"}, {2, 20, 32, "C2", "o2.3"}, {3, 15, 25, "C3", "p2.3"}}
	cases = append(cases, draw(v, id, 4, func(r *rand.Rand) ex11Stall {
		members := between(r, 2, 3)
		victim := fmt.Sprintf("C%d", members)
		return ex11Stall{members, between(r, 8, 60), pick(r, -1, between(r, 1, 70)), victim, pick(r, "o2.3", "p2.3")}
	})...)
	checked := 0
	for i, c := range cases {
		w := group(c.members, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithTransactionTimeout(c.timeout))
		w.RunUntil(kgviz.Polled(c.victim, c.record)).Crash(c.victim, kgviz.AfterRecords(3)).RunUntil(kgviz.Crashed(c.victim))
		crash := w.Now()
		if c.restartAfter >= 0 {
			w.RunFor(c.restartAfter).Restart(c.victim)
		}
		w.RunUntil(kgviz.Quiet())
		if w.Err() != nil {
			continue
		}
		want, begin, _ := stallEnd(w, c.victim, crash)
		if begin < 0 {
			continue
		}
		if c.restartAfter >= 0 {
			if d := (crash + c.restartAfter) - (begin + c.timeout); d > -5 && d < 5 {
				continue // too close to call
			}
		}
		got, err := call(func() string { return unblockedBy(c.timeout, c.restartAfter) })
		if err != nil {
			return panicked(id, name, err, fmt.Sprintf("unblockedBy(%d, %d)", c.timeout, c.restartAfter))
		}
		got = strings.TrimSpace(got)
		if i == 0 && got == "" {
			return notAnswered(id, name)
		}
		if got != "timeout" && got != "restart" {
			return fail(id, "unblockedBy(%d, %d) = %q: answer \"timeout\" or \"restart\".", c.timeout, c.restartAfter, got)
		}
		if got != want {
			return fail(id, "unblockedBy(%d, %d) = %q (%s crashed %d tick(s) into its transaction). Hint: from when does transaction.timeout.ms count, and what does a new instance of the same transactional.id do first?", c.timeout, c.restartAfter, got, c.victim, crash-begin)
		}
		checked++
	}
	return pass(id, checked, "the coordinator aborts a transaction open for transaction.timeout.ms (counted from its start, not from the crash); a restarted instance ends it sooner: its InitProducerId makes the coordinator abort what the previous instance left open. Either way the LSO moves and read_committed readers go on.")
}

// Check11_1 verifies unblockedBy and reports.
func Check11_1(unblockedBy func(transactionTimeout, restartAfter int) string) {
	Report(Run("ex11-1", Public, unblockedBy))
}

// stateWords says what a record of the log was at that tick.
func stateWords(r kgviz.LogRecord) string {
	switch {
	case r.State == kgviz.StateMarker:
		return "a transaction marker, not an invoice"
	case r.State == kgviz.StateAborted:
		return "written by a transaction that was aborted"
	case r.State == kgviz.StateOpen:
		return "written by a transaction not yet decided"
	case r.Transactional:
		return "written by a committed transaction"
	}
	return "written outside any transaction"
}

// diagnose11_2 says what the student's LSO did to a reader at that tick: the
// undecided records it let the reader reach, or the record it held the reader
// at; never the broker's LSO itself.
func diagnose11_2(log []kgviz.LogRecord, got, want int) string {
	if got > want {
		open := 0
		for _, r := range log {
			if r.Offset < got && r.State == kgviz.StateOpen {
				open++
			}
		}
		if open > 0 {
			return fmt.Sprintf("A read_committed reader stopping at your LSO would have passed %d record(s) whose transaction was not yet decided: it could not know yet whether to skip them.", open)
		}
		return "Your LSO is past the end of what the log held at that tick."
	}
	for _, r := range log {
		if r.Offset == got {
			return fmt.Sprintf("Your LSO holds a read_committed reader at offset %d, %s (%s): what keeps the reader from going on?", got, r.Record, stateWords(r))
		}
	}
	return fmt.Sprintf("Your LSO %d is not an offset of the log at that tick.", got)
}

// diagnose11_3 names the first record the student's reader returned wrongly,
// with what it was in the log at that tick; of a record it left out it names
// only the kind, never the record.
func diagnose11_3(log []kgviz.LogRecord, lso int, got, want []string) string {
	wantN := map[string]int{}
	for _, r := range want {
		wantN[r]++
	}
	for _, g := range got {
		if wantN[g] > 0 {
			wantN[g]--
			continue
		}
		readable, first := false, -1
		for i, r := range log {
			if r.Record != g {
				continue
			}
			if first < 0 {
				first = i
			}
			if r.Offset < lso && (r.State == kgviz.StateCommitted || !r.Transactional) {
				readable = true
			}
		}
		switch {
		case readable:
			return fmt.Sprintf("You returned %s more often than a readable copy of it was in the log.", g)
		case first >= 0 && log[first].Offset >= lso && (log[first].State == kgviz.StateCommitted || !log[first].Transactional):
			r := log[first]
			return fmt.Sprintf("You returned %s (offset %d, %s); at that tick an earlier transaction in the log was still undecided.", g, r.Offset, stateWords(r))
		case first >= 0:
			r := log[first]
			return fmt.Sprintf("You returned %s (offset %d), %s.", g, r.Offset, stateWords(r))
		}
		return fmt.Sprintf("You returned %s, which the reader should not see at that tick.", g)
	}
	gotN := map[string]int{}
	for _, g := range got {
		gotN[g]++
	}
	for _, r := range log {
		if slices.Contains(want, r.Record) && gotN[r.Record] == 0 {
			return fmt.Sprintf("You left out an invoice %s, which a read_committed reader could read at that tick.", stateWords(r))
		}
	}
	return "Your records are right but not in the log's order."
}
