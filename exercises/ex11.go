package exercises

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// lsoScenarios are the worlds in which the LSO exercises are checked tick by
// tick: the notebook's crash inside a transaction, its restart variant, a
// calm transactional group, and a crash in a group of three.
type lsoScenario struct {
	desc string
	// start builds the world up to the moment the tick-by-tick check begins.
	start func() *kgviz.World
	ticks int
}

func lsoScenarios() []lsoScenario {
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
	return []lsoScenario{
		{"the notebook's scenario (C2 crashes inside a transaction)", crash(false, 2, "C2", "o2.3"), 60},
		{"C2 crashes inside a transaction and is restarted at once", crash(true, 2, "C2", "o2.3"), 30},
		{"a transactional group of two without crashes", func() *kgviz.World {
			return newWorld(kgviz.WithCommit(kgviz.Transactional)).AddMember("C1").RunUntil(kgviz.Stable()).AddMember("C2")
		}, 50},
		{"C1 crashes inside a transaction in a group of three", crash(false, 3, "C1", "p0.3"), 50},
	}
}

// Verify11_1 checks lastStableOffset(log): the LSO of invoices-0 computed
// from its records, compared with the broker's at every tick of several
// scenarios.
func Verify11_1(lastStableOffset func(log []kgviz.LogRecord) int) Outcome {
	const id, name = "ex11-1", "lastStableOffset"
	if lastStableOffset == nil {
		return notAnswered(id, name)
	}
	cases, allZero := 0, true
	var msg string
	for _, sc := range lsoScenarios() {
		w := sc.start()
		for i := 0; i < sc.ticks && msg == ""; i++ {
			if w.Err() != nil {
				return fail(id, "internal error: %v", w.Err())
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
				msg = fmt.Sprintf("in %s, at tick %d (high watermark %d), you computed the LSO %d; the broker's is %d. Hint: the LSO is where the earliest undecided transaction begins (its records have State kgviz.StateOpen), or the high watermark if nothing is undecided.", sc.desc, w.Now(), w.HighWatermark(), got, want)
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

// Check11_1 verifies lastStableOffset and reports.
func Check11_1(lastStableOffset func(log []kgviz.LogRecord) int) {
	Report(Verify11_1(lastStableOffset))
}

// Verify11_2 checks readCommitted(log): what a read_committed reader returns
// from invoices-0, compared with the audit reader at every tick of several
// scenarios.
func Verify11_2(readCommitted func(log []kgviz.LogRecord) []string) Outcome {
	const id, name = "ex11-2", "readCommitted"
	if readCommitted == nil {
		return notAnswered(id, name)
	}
	cases, answered := 0, false
	for _, sc := range lsoScenarios() {
		w := sc.start().SetIsolation(kgviz.ReadCommitted)
		for i := 0; i < sc.ticks; i++ {
			if w.Err() != nil {
				return fail(id, "internal error: %v", w.Err())
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
				hint := "Hint: read up to the LSO only, skip the markers and the records of aborted transactions."
				if len(got) > len(want) {
					extra := map[string]bool{}
					for _, r := range got {
						extra[r] = true
					}
					for _, r := range log {
						if extra[r.Record] && r.Offset >= w.LSO() {
							hint = "Hint: records at or after the LSO are not readable yet, even committed ones."
							break
						}
					}
				}
				return fail(id, "in %s, at tick %d (LSO %d, high watermark %d): %s. %s", sc.desc, w.Now(), w.LSO(), w.HighWatermark(), diffLists(got, want), hint)
			}
			w.RunFor(1)
		}
	}
	return pass(id, cases, "a read_committed reader stops at the LSO and drops markers and aborted records, so it never sees an invoice that might still be rolled back.")
}

// Check11_2 verifies readCommitted and reports.
func Check11_2(readCommitted func(log []kgviz.LogRecord) []string) { Report(Verify11_2(readCommitted)) }

// Verify11_3 checks abortedAtOnceBy(): the request of the restarted C2 that
// makes the transaction coordinator abort the transaction its crashed
// predecessor left open, confirmed on the simulation.
func Verify11_3(abortedAtOnceBy func() string) Outcome {
	const id, name = "ex11-3", "abortedAtOnceBy"
	if abortedAtOnceBy == nil {
		return notAnswered(id, name)
	}
	got, err := call(abortedAtOnceBy)
	if err != nil {
		return panicked(id, name, err, "")
	}
	got = strings.TrimSpace(got)
	if got == "" {
		return notAnswered(id, name)
	}
	w := group(2, kgviz.WithCommit(kgviz.Transactional), kgviz.WithIsolation(kgviz.ReadCommitted))
	w.RunUntil(kgviz.Polled("C2", "o2.3")).Crash("C2", kgviz.AfterRecords(3)).RunUntil(kgviz.Crashed("C2")).RunFor(1)
	n := len(w.Events())
	w.Restart("C2").RunFor(8)
	// The request of C2 that was answered right before the abort began.
	want := ""
	evs := w.Events()[n:]
	for i, e := range evs {
		if e.Type == kgviz.EvTxnState && e.State == "PrepareAbort" {
			for j := i; j >= 0; j-- {
				if evs[j].Type == kgviz.EvSend && !evs[j].Response && evs[j].From == "C2" {
					want = evs[j].API
					break
				}
			}
			break
		}
	}
	if want == "" {
		return fail(id, "the simulation did not abort the open transaction after the restart; please report it.")
	}
	if !strings.EqualFold(got, want) {
		return fail(id, "%q is not the request that does it. Hint: what is the first thing a transactional producer asks the transaction coordinator when it starts, and what does the coordinator do with a transaction the same transactional.id left open?", got)
	}
	return pass(id, 1, "%s: the new instance registers the same transactional.id, the coordinator bumps the epoch and aborts what the old instance left open, so read_committed readers move on without waiting for transaction.timeout.ms.", want)
}

// Check11_3 verifies abortedAtOnceBy and reports.
func Check11_3(abortedAtOnceBy func() string) { Report(Verify11_3(abortedAtOnceBy)) }
